// Concurrency cases: a second writer of a run folder, a grid's folder, a job's
// folder or a cache (generated, or embedded), started while the first writes, must be refused with
// an error naming the first's pid, and the first must finish as if alone; a lock left by a process
// killed with SIGKILL must be taken over by the next writer.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { cli, copyTree, excerpt, freshDir, groupPids, killGroup, STACK_TRACE, tail } from './harness.ts';
import { unparseable } from './tree.ts';
import { INPUT } from './inputs.ts';
import { slug } from './kill.ts';

export interface ConcurrencyCase {
  name: string;
  /** The first writer; it must run long enough for the second to start beside it. */
  first: string[];
  /** The second writer, started once the first has begun writing `folder`. */
  second: string[];
  /** The folder both write. */
  folder: string;
  /** Before `first`: a run killed with SIGKILL once it has written `prepare.until` (an interrupted run to resume). */
  prepare?: { args: string[]; until: string };
  /** Before `first`: a command run to its end (the input the writers share). */
  before?: string[];
}

// Long enough for a second writer to start (Node, tsx, ONNX Runtime: seconds, many more on a loaded
// 2-core CI machine, where 12 epochs (~4 s) sometimes ended first) while the first trains.
const LONG = ['--epochs', '60'];
const trainTwice = ['train', '--cache', INPUT.cache, '--config', INPUT.config, ...LONG, '--out', 'run'];
const grid = ['ablate', '--grid', INPUT.grid, '--out', 'grid-out', '--workers', '1'];
const job = ['main', '--cache', INPUT.cache, '--seeds', '2', '--config', INPUT.config, '--out', 'job'];
const gen = ['cache', 'gen', '--out', 'generated', '--questions', '3000', '--seed', '5'];
const embed = ['cache', 'embed', 'generated'];

export const CONCURRENCY_CASES: ConcurrencyCase[] = [
  { name: 'two train into one --out', first: trainTwice, second: trainTwice, folder: 'run' },
  { name: 'two ablate into one folder', first: grid, second: grid, folder: 'grid-out' },
  { name: 'two main into one folder', first: job, second: job, folder: 'job' },
  {
    name: 'two --resume of one run',
    prepare: { args: trainTwice.map((a) => (a === LONG[1] ? '40' : a)), until: 'run/checkpoint.json' },
    first: ['train', '--resume', '--out', 'run'],
    second: ['train', '--resume', '--out', 'run'],
    folder: 'run',
  },
  { name: 'cache gen while another writes the cache', first: gen, second: gen, folder: 'generated' },
  // 2,000 questions: about 15 s of embedding, long enough for the second to start beside the first.
  { name: 'two cache embed of one cache', before: [...gen.slice(0, 5), '2000', '--seed', '6'], first: embed, second: embed, folder: 'generated' },
];

export interface ConcurrencyResult {
  case: string;
  /** The second writer ended while the first still ran (else the case tested nothing). */
  beside: boolean;
  /** The second writer exited non-zero while the first ran. */
  refused: boolean;
  /** Its error names a pid of the first writer (the command or one of its children). */
  namesPid: boolean;
  firstCode: number | null;
  secondCode: number | null;
  /** What the second said (and the first, when it failed). */
  said: string;
  firstSaid: string;
  stackTrace: boolean;
  unparseable: string[];
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Wait until `path` exists, or `ms` pass. */
async function until(path: string, ms: number): Promise<void> {
  for (const end = Date.now() + ms; Date.now() < end; await sleep(100)) if (existsSync(path)) return;
}

/** Names and modification times of what `dir` holds. */
const listing = (dir: string) =>
  existsSync(dir)
    ? readdirSync(dir)
        .map((f) => `${f}@${statSync(join(dir, f), { throwIfNoEntry: false })?.mtimeMs}`)
        .sort()
        .join('\n')
    : '';

/** Wait until what `dir` holds changes (the first writer has begun: its lock, its first file), or `ms` pass. */
async function untilChanged(dir: string, ms: number): Promise<void> {
  const before = listing(dir);
  for (const end = Date.now() + ms; Date.now() < end; await sleep(100)) if (listing(dir) !== before) return;
}

/** Run `args` in `ws` and kill it with SIGKILL once `path` exists. */
async function killedRun(ws: string, args: string[], path: string): Promise<void> {
  let pid = 0;
  const run = cli(args, { cwd: ws, started: (p) => (pid = p) });
  await until(join(ws, path), 120_000);
  killGroup(pid);
  const r = await run;
  if (!r.killed && r.signal !== 'SIGKILL') throw new Error(`${args.join(' ')} ended (exit ${r.code}) before it could be killed: ${tail(r.out, 3)}`);
}

export async function concurrencyCase(c: ConcurrencyCase, inputs: string): Promise<ConcurrencyResult> {
  const ws = freshDir('concurrency', slug(c.name));
  copyTree(inputs, ws);
  if (c.prepare) await killedRun(ws, c.prepare.args, c.prepare.until);
  if (c.before) {
    const r = await cli(c.before, { cwd: ws });
    if (r.code !== 0) throw new Error(`${c.before.join(' ')} exited ${r.code}: ${tail(r.out, 3)}`);
  }
  let firstPid = 0;
  let firstEnded = false;
  const folder = join(ws, c.folder);
  const first = cli(c.first, { cwd: ws, started: (pid) => (firstPid = pid) }).finally(() => (firstEnded = true));
  await untilChanged(folder, 60_000);
  // The first writer's processes while it runs: any of them may hold the lock (a job's training child).
  const pids = groupPids(firstPid);
  const second = await cli(c.second, { cwd: ws });
  const beside = !firstEnded;
  const done = await first;
  return {
    case: c.name,
    beside,
    refused: beside && second.code !== 0,
    namesPid: pids.some((p) => new RegExp(`\\b${p}\\b`).test(second.out)),
    firstCode: done.code,
    secondCode: second.code,
    said: excerpt(second.out),
    firstSaid: done.code === 0 ? '' : excerpt(done.out),
    stackTrace: STACK_TRACE.test(second.out) || STACK_TRACE.test(done.out),
    unparseable: existsSync(folder) ? unparseable(folder) : [],
  };
}

export const concurrencyPassed = (r: ConcurrencyResult) => r.refused && r.namesPid && r.firstCode === 0 && !r.stackTrace && r.unparseable.length === 0;

export interface TakeoverResult {
  case: string;
  /** A lock file (a name with "lock" in it) was left by the killed process: else the case tested nothing. */
  lockLeft: string[];
  /** The next `train --resume` exited 0: it took the dead process's lock over. */
  tookOver: boolean;
  /** Lock files left after it finished. */
  lockAfter: string[];
  said: string;
}

const locks = (dir: string) => (existsSync(dir) ? readdirSync(dir).filter((f) => /lock/i.test(f)) : []);

/** A `train` killed with SIGKILL after its first checkpoint, holding its run folder's lock; `train --resume` must take the lock over. */
export async function staleLockCase(inputs: string): Promise<TakeoverResult> {
  const ws = freshDir('concurrency', 'stale-lock');
  copyTree(inputs, ws);
  await killedRun(ws, trainTwice, 'run/checkpoint.json');
  const lockLeft = locks(join(ws, 'run'));
  const resume = await cli(['train', '--resume', '--out', 'run'], { cwd: ws });
  return {
    case: 'a lock left by a kill -9 is taken over',
    lockLeft,
    tookOver: resume.code === 0,
    lockAfter: locks(join(ws, 'run')),
    said: tail(resume.out, 2),
  };
}

export const takeoverPassed = (r: TakeoverResult) => r.lockLeft.length > 0 && r.tookOver && r.lockAfter.length === 0;
