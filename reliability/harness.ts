// What every reliability trial needs to run a command: the command line as a user runs it (a child
// process, killed with SIGKILL or stopped with SIGINT or SIGTERM when asked), its process group,
// what it must never print, and the trials' folders. What a folder holds before and after it (the
// snapshots, the leftovers, the normalised run) is in tree.ts. The trials themselves are in kill.ts,
// corpus.ts and concurrency.ts.
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';

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
