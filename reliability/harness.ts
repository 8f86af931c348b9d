// What every reliability trial needs: running the command line as a user does (a child process,
// killed with SIGKILL or stopped with SIGINT or SIGTERM when asked), snapshots of a folder tree to tell what a command created or
// changed, the files a kill may leave behind (`*.tmp`, files that do not parse), and the rules that
// say which bytes of a run may differ between an interrupted and an uninterrupted run (wall times,
// timestamps) and why. The trials themselves are in kill.ts, corpus.ts and concurrency.ts.
import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { basename, join, relative, resolve } from 'node:path';
import { columnsHead } from '../src/cache/columns.ts';
import { HASH_FILE } from '../src/cache/hash.ts';
import { FITS_FILE } from '../src/env/keptFit.ts';
import { INDEX_FILE } from '../src/env/keptIndex.ts';
import { BEHAVIOR_FILE } from '../src/policy/keptBehavior.ts';
import { DIGEST_BYTES } from '../src/cache/columnsLayout.ts';

export const REPO = resolve(import.meta.dirname, '..');
const BIN = join(REPO, 'bin', 'cpp-workbench.mjs');

/**
 * Where trials work. Under the repository, not the system's temp folder: the training children of
 * `main` and `ablate` are started with `--import tsx`, which Node resolves from the working folder,
 * so a command run from a folder outside the package cannot start them (noted in the README).
 * `npm test` works in a folder of its own, so that it may run beside `npm run reliability`.
 */
export const WORK = join(REPO, 'results', 'reliability', process.env.VITEST ? 'work-test' : 'work');

export interface CliRun {
  args: string[];
  code: number | null;
  signal: string | null;
  /** stdout and stderr, interleaved as they came. */
  out: string;
  ms: number;
  /** Killed or stopped by us (`stop`) before it ended by itself. */
  killed: boolean;
  /** When the stop's signal was sent, ms after the spawn. */
  stoppedMs?: number;
  /** When start-up ended (`startup` of the options), ms after the spawn; undefined: not seen. */
  startupMs?: number;
  /** Killed by us because it ran past `timeoutMs`: a hang. */
  hung: boolean;
  pid: number;
}

/**
 * How a trial stops a command: SIGKILL to its whole process group (a lost machine, an OOM kill: its
 * training children too), SIGINT to the group (Ctrl-C in a terminal), or SIGTERM to the command
 * alone (a scheduler, `kill PID`).
 */
export type StopSignal = 'SIGKILL' | 'SIGINT' | 'SIGTERM';
export const SIGNALS: StopSignal[] = ['SIGKILL', 'SIGINT', 'SIGTERM'];

export interface CliOptions {
  cwd: string;
  /**
   * Send `signal` `afterMs` after start-up ended (`startup`; else after the spawn); `before` runs just
   * before (to see what the command has written by then).
   */
  stop?: { signal: StopSignal; afterMs: number; before?: (out: string) => void };
  /** The end of start-up: the first output line matching it, or the first time it returns true (polled). */
  startup?: RegExp | (() => boolean);
  /** Called once the child runs (its pid known), e.g. to start a second writer beside it. */
  started?: (pid: number) => void;
  timeoutMs?: number;
}

/** Kill process group `pid` (the command and every child it started) with SIGKILL. */
export const killGroup = (pid: number) => signalTo(-pid, 'SIGKILL');

/** Send `signal` to process `pid` (a group: -pgid), if it is still there. */
function signalTo(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // already gone
  }
}

/**
 * Run `cpp-workbench ARGS` in `cwd`, as `npx cpp-workbench` does, in a process group of its own so
 * that a kill takes its children with it (as a lost machine or an OOM kill of the job would).
 */
export function cli(args: string[], o: CliOptions): Promise<CliRun> {
  const start = performance.now();
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd: o.cwd,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, NO_COLOR: '1' },
  });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  let killed = false;
  let stoppedMs: number | undefined;
  let ended = false;
  let hung = false;
  let startupMs: number | undefined;
  const timers: NodeJS.Timeout[] = [];
  const { stop, startup } = o;
  const stopNow = () => {
    if (ended || !stop) return;
    stop.before?.(out);
    killed = true;
    stoppedMs = performance.now() - start;
    if (stop.signal === 'SIGKILL') killGroup(child.pid!);
    else signalTo(stop.signal === 'SIGINT' ? -child.pid! : child.pid!, stop.signal);
  };
  const startedUp = () => {
    if (startupMs !== undefined) return;
    startupMs = performance.now() - start;
    if (stop) timers.push(setTimeout(stopNow, stop.afterMs));
  };
  if (startup instanceof RegExp) {
    const seen = () => {
      if (startup.test(out)) startedUp();
    };
    child.stdout.on('data', seen);
    child.stderr.on('data', seen);
  } else if (startup) {
    const poll = setInterval(() => {
      if (startup()) clearInterval(poll), startedUp();
    }, 25);
    timers.push(poll);
  } else if (stop) timers.push(setTimeout(stopNow, stop.afterMs));
  timers.push(setTimeout(() => ((hung = true), killGroup(child.pid!)), o.timeoutMs ?? 600_000));
  o.started?.(child.pid!);
  return new Promise((done) =>
    child.on('close', (code, signal) => {
      ended = true;
      for (const t of timers) clearTimeout(t);
      // The group's other members (training children) go with the kill; make sure of it when the
      // command ended by itself too (an orphan would write on).
      killGroup(child.pid!);
      done({ args, code, signal, out, ms: performance.now() - start, killed, stoppedMs, startupMs, hung, pid: child.pid! });
    }),
  );
}

/** Pids of the processes in group `pgid` (a command and the children it started), from /proc. */
export function groupPids(pgid: number): number[] {
  const pids: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]) === pgid) pids.push(Number(name));
    } catch {
      // ended meanwhile
    }
  }
  return pids;
}

/**
 * The repository's git index lock: commands run `git status` for their provenance, and a kill
 * during it leaves this file, which blocks every later git command that writes the index. Null
 * outside a git checkout.
 */
export const GIT_INDEX_LOCK = (() => {
  try {
    return resolve(
      REPO,
      execFileSync('git', ['rev-parse', '--git-path', 'index.lock'], { cwd: REPO, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim(),
    );
  } catch {
    return null;
  }
})();

/** The git index lock, if a command left it since `since` (ms since the epoch). */
export const gitLockLeft = (since: number): string[] =>
  GIT_INDEX_LOCK && existsSync(GIT_INDEX_LOCK) && lstatSync(GIT_INDEX_LOCK).mtimeMs >= since ? [`+${GIT_INDEX_LOCK} (the repository's git index lock)`] : [];

/** A JavaScript stack trace in a command's output: what a user must never see. */
export const STACK_TRACE = /^\s+at .+[(\s]\S+:\d+:\d+\)?$/m;

const sha256 = (data: Buffer | string) => createHash('sha256').update(data).digest('hex');

/** Every file and folder under `dir` by its path relative to `dir`: a file's SHA-256, a folder 'dir'. */
export type Snapshot = Map<string, string>;

export function snapshot(dir: string, exclude: string[] = []): Snapshot {
  const shot: Snapshot = new Map();
  const skip = exclude.map((e) => resolve(dir, e));
  const walk = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      const path = join(d, name);
      if (skip.some((s) => path === s || path.startsWith(s + '/'))) continue;
      const rel = relative(dir, path);
      const st = lstatSync(path);
      if (st.isDirectory()) {
        shot.set(rel, 'dir');
        walk(path);
      } else shot.set(rel, st.isFile() ? sha256(readFileSync(path)) : 'other');
    }
  };
  if (existsSync(dir)) walk(dir);
  return shot;
}

/** Files a run derives from a cache (kept hashes, binary vectors, kept fits, kept lookup indexes, kept behavior rows), bound to their sources' inodes: stale in a trial's copy, rebuilt atomically by its first run. */
const derived = (path: string) => [HASH_FILE, FITS_FILE, INDEX_FILE, BEHAVIOR_FILE].includes(basename(path)) || path.endsWith('.vectors');

/** What differs between two snapshots, as `+path` (created), `-path` (removed), `~path` (changed); derived files left out. */
export function changes(before: Snapshot, after: Snapshot): string[] {
  const out: string[] = [];
  for (const [p, h] of after)
    if (!before.has(p)) out.push(`+${p}`);
    else if (before.get(p) !== h) out.push(`~${p}`);
  for (const p of before.keys()) if (!after.has(p)) out.push(`-${p}`);
  return out.filter((c) => !derived(c.slice(1))).sort();
}

/** Files of interrupted writes under `dir`: `*.tmp` (the workbench writes `<name>.<pid>.tmp`, then renames). */
export const leftoverTemp = (dir: string): string[] => [...snapshot(dir).keys()].filter((p) => /\.tmp$/.test(p));

/** Temporary files under `dir` while a command writes there (names only; files renamed meanwhile are passed over). */
export function tempNow(dir: string): string[] {
  try {
    return readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((p) => /\.tmp$/.test(p));
  } catch {
    return []; // a folder renamed or removed while read: its temporary files, if any, are gone too
  }
}

/** Why `text`, the content of file `name`, does not parse as its kind, or null when it does. */
function unparseableReason(name: string, bytes: Buffer): string | null {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return 'not UTF-8';
  }
  try {
    if (name.endsWith('.json')) JSON.parse(text);
    else if (name.endsWith('.jsonl')) {
      if (text.length > 0 && !text.endsWith('\n')) return 'last line cut short';
      text
        .split('\n')
        .slice(0, -1)
        .forEach((l, i) => {
          try {
            JSON.parse(l);
          } catch {
            throw new Error(`line ${i + 1}`);
          }
        });
    } else if (name.endsWith('.csv')) {
      const lines = text.split('\n');
      if (text.length > 0 && lines.pop() !== '') return 'last line cut short';
      // Fields of a CSV line: commas outside double quotes (the writer, csv-stringify, quotes the rest).
      const fields = (l: string) => l.replace(/"(?:[^"]|"")*"/g, '').split(',').length;
      const bad = lines.findIndex((l) => fields(l) !== fields(lines[0]));
      if (bad >= 0) return `line ${bad + 1}: ${fields(lines[bad])} fields, the header has ${fields(lines[0])}`;
      const headers = lines.filter((l) => l === lines[0]).length;
      if (headers > 1) return `the header ${headers} times`;
    } else if (name.endsWith('.svg')) {
      if (!/^<svg[\s>]/.test(text.trimStart()) || !text.trimEnd().endsWith('</svg>')) return 'not a whole SVG';
    }
  } catch (e) {
    return `does not parse (${(e as Error).message})`;
  }
  return null;
}

/** Files under `path` (or the file `path`) that do not parse as their kind (JSON, JSON lines, CSV, SVG; UTF-8 for text), with why. */
export function unparseable(path: string): string[] {
  const files = lstatSync(path).isDirectory() ? [...snapshot(path)].filter(([, h]) => h !== 'dir').map(([rel]) => rel) : [''];
  const bad: string[] = [];
  for (const rel of files) {
    const file = rel ? join(path, rel) : path;
    if (!/\.(json|jsonl|csv|svg|md|log)$/.test(file) || /\.tmp$/.test(file)) continue;
    const why = unparseableReason(file, readFileSync(file));
    if (why) bad.push(`${rel || file.split('/').pop()}: ${why}`);
  }
  return bad;
}

/**
 * What may differ between an interrupted-then-resumed run and an uninterrupted one, file by file,
 * and why. Every other file must be byte-identical (after the run folder's own path is written as
 * `<OUT>`, for runs resumed in a folder they were copied to).
 */
export const NORMALISATION: { files: RegExp; why: string; apply: ((text: string) => string) | 'skip' }[] = [
  {
    files: /(^|\/)provenance\.json$/,
    apply: 'skip',
    why: 'one session per process that worked on the run: start and end times, pid, command; a resumed run adds its session',
  },
  {
    files: /(^|\/)events\.out\.tfevents\.[^/]+$/,
    apply: 'skip',
    why: 'TensorBoard files are named by start time, host and pid, and hold wall times; a resumed run starts a new one',
  },
  { files: /(^|\/)train\.log$/, apply: 'skip', why: "a job's training child's progress lines: elapsed times, and a resumed child starts at its epoch" },
  {
    files: /(^|\/)log\.jsonl$/,
    apply: (t) => t.replace(/,"(time|seconds|decisionsPerSecond)":("[^"]*"|[-\d.e+]+)/g, ''),
    why: 'each line carries its wall time: time, seconds and decisionsPerSecond are removed',
  },
  { files: /(^|\/)log\.csv$/, apply: csvWithoutWallTimes, why: 'the same columns (time, seconds, decisionsPerSecond) are emptied' },
  {
    files: /(^|\/)(comparison|table6)\.md$/,
    apply: (t) =>
      t
        .replace(/\n## Provenance\n[\s\S]*$/, '\n')
        .replace(/^(CPP runs|Runs):.*$/gm, '$1: <which were reused>')
        .replace(/^wall time .*$/gm, ''),
    why: 'the provenance section (times, command), the line saying which runs this invocation trained or reused, the wall time',
  },
  {
    files: /(^|\/)journal\.jsonl$/,
    apply: (t) => [...new Set(t.split('\n').filter((l) => l.startsWith('{"type":"response"')))].sort().join('\n'),
    why:
      'the record journal is compared as the set of its response lines: an intent line is journaled before each ' +
      'call, so a call in flight at the kill has a second intent, and concurrent calls append in any order',
  },
  {
    files: /(^|\/)cache\.columns$/,
    apply: columnsWithoutSource,
    why:
      "the columnar form's head records the cache.jsonl it was built from (size, mtime, inode, the hash of its end blocks: how a " +
      'load knows it is fresh), which a rerun writes anew, and its closing SHA-256 covers that record; the rest of the head and every section are compared',
  },
];

/** A columns file (src/cache/columnsLayout.ts) as its head less `source`, then its sections (less the SHA-256 that ends it, which covers the source too). */
function columnsWithoutSource(latin1: string): string {
  const { head, base } = columnsHead(Buffer.from(latin1, 'latin1'));
  const { source: _stat, ...rest } = head;
  return JSON.stringify(rest) + latin1.slice(base, -DIGEST_BYTES);
}

function csvWithoutWallTimes(text: string): string {
  const lines = text.split('\n');
  const header = lines[0].split(',');
  const drop = new Set(['time', 'seconds', 'decisionsPerSecond'].map((c) => header.indexOf(c)).filter((i) => i >= 0));
  // log.csv holds numbers and names only, so a plain split is exact here.
  return lines
    .map((l) =>
      l
        .split(',')
        .filter((_, i) => !drop.has(i))
        .join(','),
    )
    .join('\n');
}

/**
 * The files under `dir` (a run's output), each as the SHA-256 of its normalised content; files the
 * rules skip are listed as 'skipped'. `outPaths`: the run folder's path as the command named it (and
 * the folder it was copied from: a copy holds the files the original wrote).
 */
export function normalisedTree(dir: string, outPaths: string[]): Snapshot {
  const tree: Snapshot = new Map();
  for (const [rel, h] of snapshot(dir)) {
    if (h === 'dir') continue;
    const rule = NORMALISATION.find((r) => r.files.test(rel));
    if (rule?.apply === 'skip') {
      // Present, not compared; under one key per rule and folder (a resumed run has two event files).
      tree.set(`${rel.replace(/[^/]*$/, '')}<${rule.files.source}>`, 'skipped');
      continue;
    }
    const bytes = readFileSync(join(dir, rel));
    if (!rule && !/\.(json|jsonl|csv|md|svg|log)$/.test(rel)) {
      tree.set(rel, sha256(bytes));
      continue;
    }
    // A binary file a rule reads (cache.columns) is seen byte for byte (latin1), a text file as UTF-8.
    const decoded = bytes.toString(/\.(json|jsonl|csv|md|svg|log)$/.test(rel) ? 'utf8' : 'latin1');
    let text = outPaths.reduce((t, p) => t.split(p).join('<OUT>'), decoded);
    if (rule) text = rule.apply(text);
    tree.set(rel, sha256(text));
  }
  return tree;
}

/** A fresh folder under WORK (emptied if it exists). */
export function freshDir(...parts: string[]): string {
  const dir = join(WORK, ...parts);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** Copy folder `from` to a fresh folder `to`, but for the entries of `from` named in `leave`. */
export function copyTree(from: string, to: string, leave: string[] = []): void {
  rmSync(to, { recursive: true, force: true });
  const skip = new Set(leave.map((l) => resolve(from, l)));
  cpSync(from, to, { recursive: true, filter: (src) => !skip.has(resolve(src)) });
}

/** The last lines of a command's output, for a report (long outputs cut). */
export const tail = (out: string, lines = 3) => out.trim().split('\n').slice(-lines).join(' | ').slice(0, 400);

/** The first two lines and the last of a command's output (where errors and verdicts are), for a report. */
export function excerpt(out: string): string {
  const lines = out.trim().split('\n');
  return (lines.length <= 3 ? lines : [...lines.slice(0, 2), '...', lines[lines.length - 1]]).map((l) => l.slice(0, 200)).join(' | ');
}
