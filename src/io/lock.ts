// One writer at a time: a run folder, a grid's results folder and a cache are locked while a
// process writes them, with a lock file `<folder>/.lock` naming the holder (pid, host, when it
// started, its command). A second writer gets an error naming the holder. A lock whose holder is
// gone (killed: its pid no longer runs, is a zombie its parent has not reaped, or runs another
// program since) is taken over, with a line saying whose lock and why; so is a lock file copied along
// with its folder (it names the folder it was made in). Temporary files of
// interrupted writes (`*.<pid>.tmp`) whose process is gone are removed by the next writer.
//
// Not proper-lockfile: it judges a lock stale by an mtime its holder refreshes from a timer, which
// a long synchronous write (generating or importing a cache) would let expire under a live holder,
// and it cannot name the holder's pid and start time.
import {
  existsSync,
  linkSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmdirSync,
  rmSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { hostname } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { z } from 'zod';
import { writeFailed } from './atomic.ts';
import { RefusedError, UserError } from './errors.ts';

export const LOCK_FILE = '.lock';

const Holder = z.strictObject({
  pid: z.number().int().positive(),
  host: z.string(),
  /** When the holding process started (ISO 8601). */
  started: z.string(),
  /** Start of the process in clock ticks since boot (Linux /proc), to tell a reused pid; null elsewhere. */
  ticks: z.string().nullable(),
  command: z.array(z.string()),
  /** The folder the lock was taken in (its real path): a copy of the folder carries a lock that is not its own. */
  dir: z.string(),
  /** What is being written (a training run, a grid, a cache). */
  what: z.string(),
});
type Holder = z.infer<typeof Holder>;

/** The fields of process `pid`'s /proc stat after its name (state first), or undefined where there is none. */
function procStat(pid: number): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/** Start of process `pid` in clock ticks since boot, from /proc (null where there is none). */
const startTicks = (pid: number): string | null => procStat(pid)?.[19] ?? null;

/** Whether process `pid` has exited and waits to be reaped (a zombie: `kill -0` still finds it; an OOM kill of a job whose parent is busy). */
const isZombie = (pid: number): boolean => ['Z', 'X'].includes(procStat(pid)?.[0] ?? '');

/** Whether process `pid` runs (on this host). */
function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Whether process `pid` (on this host) is gone: it does not run, or it died and waits to be reaped. */
export const processGone = (pid: number): boolean => !isRunning(pid) || isZombie(pid);

const me = (): Omit<Holder, 'dir' | 'what'> => ({
  pid: process.pid,
  host: hostname(),
  started: new Date(Date.now() - process.uptime() * 1000).toISOString(),
  ticks: startTicks(process.pid),
  command: process.argv.slice(1),
});

/** Why a lock's holder no longer holds it, or null when it does (or cannot be told from here). */
function staleness(h: Holder, dir: string): string | null {
  if (h.dir !== dir) return `a lock copied from ${h.dir}`;
  if (h.host !== hostname()) return null;
  if (h.pid === process.pid && h.ticks === startTicks(process.pid)) return null;
  if (!isRunning(h.pid)) return `left by pid ${h.pid}, which no longer runs`;
  if (isZombie(h.pid)) return `left by pid ${h.pid}, which has died (a zombie its parent has not reaped)`;
  const ticks = startTicks(h.pid);
  if (h.ticks !== null && ticks !== null && ticks !== h.ticks) return `left by pid ${h.pid}, now another process`;
  return null;
}

const describe = (h: Holder) =>
  `pid ${h.pid} on ${h.host}, started ${h.started} (${h.command.map((a) => a.replace(/^.*\/(src|train|bin)\//, '$1/')).join(' ')})`;

/** Locks this process holds, by folder: released at exit too (a lock of a killed process is taken over). */
interface Held {
  dir: string;
  file: string;
  content: string;
  created: string | null;
  what: string;
}
const held = new Map<string, Held>();
process.on('exit', () => {
  for (const l of held.values()) releaseLock(l);
});

function releaseLock(l: Held): void {
  try {
    if (readFileSync(l.file, 'utf8') === l.content) unlinkSync(l.file);
  } catch {
    // already gone
  }
  removeEmpty(l.dir, l.created);
}

/** Folders made only to be locked (`dir` up to `created`), left empty (the write was refused), are removed again. */
function removeEmpty(dir: string, created: string | null): void {
  if (created === null) return;
  for (let d = dir; ; d = dirname(d)) {
    try {
      rmdirSync(d);
    } catch {
      return; // not empty: a write made something there (or another process holds it)
    }
    if (d === created) return;
  }
}

/** The first folder of `dir` and its parents that does not exist (what mkdir -p creates), if any. */
function firstMissing(dir: string): string | null {
  let missing: string | null = null;
  for (let d = resolve(dir); !existsSync(d); d = dirname(d)) missing = d;
  return missing;
}

/**
 * Lock `dir` (created if missing) for writing `what`; returns the release. Temporary files of
 * interrupted writes in it are removed first. Throws an error naming the holder when another live
 * process holds it.
 */
export function lockFolder(dir: string, what: string): () => void {
  const attempt = attemptLock(dir, what);
  if (attempt.holder) throw attempt.error();
  return attempt.release!;
}

/** The lock's release, or undefined while another process holds it (until `deadline`, then its error). */
function lockBy(dir: string, what: string, deadline: number): (() => void) | undefined {
  const attempt = attemptLock(dir, what);
  if (!attempt.holder) return attempt.release!;
  if (Date.now() >= deadline) throw attempt.error();
  return undefined;
}

/** `lockFolder`, waiting up to `seconds` for a live holder to finish (a short write of another process). */
export async function lockFolderWaiting(dir: string, what: string, seconds: number): Promise<() => void> {
  const deadline = Date.now() + seconds * 1000;
  let release: (() => void) | undefined;
  while (!(release = lockBy(dir, what, deadline))) await new Promise((r) => setTimeout(r, 200));
  return release;
}

/** `lockFolderWaiting` for synchronous writers (it blocks the thread while it waits). */
export function lockFolderWaitingSync(dir: string, what: string, seconds: number): () => void {
  const deadline = Date.now() + seconds * 1000;
  let release: (() => void) | undefined;
  while (!(release = lockBy(dir, what, deadline))) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 200);
  return release;
}

function attemptLock(dir: string, what: string): { holder?: Holder; error: () => Error; release?: () => void } {
  const created = firstMissing(dir);
  mkdirSync(dir, { recursive: true });
  const real = realpathSync(dir);
  if (held.has(real)) throw new RefusedError(`${dir} is being written by this process already (${held.get(real)!.what})`);
  const file = join(dir, LOCK_FILE);
  const content = JSON.stringify({ ...me(), dir: real, what } satisfies Holder);
  const holder = tryLock(file, content, real);
  if (holder) {
    // Only empty folders: another process that made the same folder at the same moment may hold it.
    removeEmpty(resolve(dir), created && resolve(created));
    const error = () =>
      new RefusedError(
        `${dir} is being written by another process (${holder.what}: ${describe(holder)}): wait for it ` +
          `to finish, or stop it${holder.host !== hostname() ? `; if it is gone, delete ${file}` : ''}`,
      );
    return { holder, error };
  }
  const lock = { dir: resolve(dir), file, content, created: created && resolve(created), what };
  held.set(real, lock);
  cleanTemp(dir);
  const release = () => {
    if (held.get(real) !== lock) return;
    held.delete(real);
    releaseLock(lock);
  };
  return { error: () => new Error('unreachable'), release };
}

/** Take the lock, or return its live holder. */
function tryLock(file: string, content: string, dir: string): Holder | null {
  // The content goes in complete: written to a file of ours, then linked into place (link fails if a lock exists).
  const mine = `${file}.${process.pid}.tmp`;
  try {
    try {
      writeFileSync(mine, content);
    } catch (e) {
      throw writeFailed(file, e, 'the folder is not locked, and nothing was written in it');
    }
    for (let attempt = 0; attempt < 5; attempt++) {
      try {
        linkSync(mine, file);
        return null;
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw new UserError(`${file}: ${(e as Error).message}`);
      }
      let text: string;
      try {
        text = readFileSync(file, 'utf8');
      } catch {
        continue; // released meanwhile
      }
      const parsed = Holder.safeParse(safeJson(text));
      const holder = parsed.success ? parsed.data : undefined;
      const stale = holder ? staleness(holder, dir) : 'not a lock file of cpp-workbench';
      if (stale === null) return holder!;
      // Stale (or not a lock of ours): claim it by renaming it away (one process can), then check
      // that what was claimed is the lock judged stale, else put it back.
      const claimed = `${file}.${process.pid}.stale.tmp`;
      try {
        renameSync(file, claimed);
      } catch {
        continue; // another process claimed it first
      }
      if (readFileSync(claimed, 'utf8') !== text) {
        try {
          linkSync(claimed, file);
        } catch {
          // a third process locked meanwhile: its lock stands
        }
      } else console.error(`${dirname(file)}: taking over its lock (${holder ? holder.what : 'a lock'}), ${stale}`);
      unlinkSync(claimed);
    }
    throw new RefusedError(`${file}: could not take the lock (it changed hands five times in a row)`);
  } finally {
    rmSync(mine, { force: true });
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Lock `dir` for the duration of `fn`. */
export async function withLock<T>(dir: string, what: string, fn: () => Promise<T> | T): Promise<T> {
  const unlock = lockFolder(dir, what);
  try {
    return await fn();
  } finally {
    unlock();
  }
}

/** `withLock` for synchronous writes. */
export function withLockSync<T>(dir: string, what: string, fn: () => T): T {
  const unlock = lockFolder(dir, what);
  try {
    return fn();
  } finally {
    unlock();
  }
}

/** A temporary file of an interrupted write: `<name>.<pid>.tmp`, or `<name>.<pid>.<part>.tmp` (`.stale`, a columns build's or an import's spill files), file or folder. */
const TEMP = /\.(\d+)(?:\.[a-z]+)?\.tmp$/;

/**
 * The temporary files (and folders) of interrupted writes under `dir` whose process no longer runs
 * (those of live processes are being written now). Only `depth` levels down: what a writer writes
 * (a grid's cell folders, a cache's embeddings/), not a whole tree handed as --out by mistake.
 */
export function leftoverTemp(dir: string, depth = 4): string[] {
  if (depth < 0 || !existsSync(dir) || !statSync(dir).isDirectory()) return [];
  const left: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    const m = TEMP.exec(name);
    if (m && Number(m[1]) !== process.pid && (!isRunning(Number(m[1])) || isZombie(Number(m[1])))) left.push(path);
    else if (!m && name !== 'node_modules' && statSync(path, { throwIfNoEntry: false })?.isDirectory()) left.push(...leftoverTemp(path, depth - 1));
  }
  return left;
}

/** Remove the leftover temporary files under `dir` (leftoverTemp); returns their paths. */
export function cleanTemp(dir: string, depth = 4): string[] {
  const left = leftoverTemp(dir, depth);
  for (const path of left) rmSync(path, { recursive: true, force: true });
  return left;
}

/** The pid and host in `dir`'s lock file, if it has one (for tests and messages). */
export function lockHolder(dir: string): { pid: number; host: string } | undefined {
  const file = join(dir, LOCK_FILE);
  if (!existsSync(file)) return undefined;
  const h = Holder.safeParse(safeJson(readFileSync(file, 'utf8')));
  return h.success ? { pid: h.data.pid, host: h.data.host } : undefined;
}
