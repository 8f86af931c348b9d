// Writes that never leave a half-written file. A file is written to a temporary file that is
// flushed to disk (fsync), checked where a check is given, and only then renamed into place (and
// the rename flushed), so an interrupted write, a power loss or a failed check never leaves a
// half-written file; several files of one report are renamed only once all are written. An append
// (a journal, a run's log) goes in whole or not at all: what a failed append wrote is cut off again.
// A write the file system refuses (a full disk, a read-only folder, a permission) is one line
// naming the path and the cause, and says that what was there is kept; its temporary file is
// removed, and so is any temporary file of this process when it exits (an interrupt, an error).
import { closeSync, existsSync, fstatSync, fsyncSync, ftruncateSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { isSystemError, UserError } from './errors.ts';
import { letSignalsIn, stoppableSteps } from './interrupt.ts';

/** Temporary files and folders this process is writing: removed if it exits before renaming them. */
const writing = new Set<string>();
process.on('exit', () => {
  for (const path of writing) rmSync(path, { recursive: true, force: true });
});

/** Remove `path` (a temporary file or folder being written) if the process exits meanwhile; returns the call that stops it. */
export function removeOnExit(path: string): () => void {
  writing.add(path);
  return () => writing.delete(path);
}

/**
 * A write of `path` the file system refused, as a user error of one line: the path, the cause
 * (`no space left on device (ENOSPC)`) and what is kept; any other error as it is.
 */
export function writeFailed(path: string, e: unknown, kept: string): unknown {
  if (!isSystemError(e)) return e;
  const cause = /^[A-Z]+: ([^,]+)/.exec(e.message)?.[1] ?? e.message;
  return new UserError(`${path}: not written: ${cause} (${e.code}); ${kept}`, { cause: e });
}

const keptFile = (path: string) => (existsSync(path) ? 'the file there before is unchanged' : 'nothing was written there');

const bytesOf = (chunk: string | Uint8Array) => (typeof chunk === 'string' ? Buffer.from(chunk) : chunk);

/** Write all of `bytes` (writeSync may write fewer bytes than asked, as on a disk filling up), counting them in `written` (for an error). */
function writeAll(fd: number, bytes: Uint8Array, written = { bytes: 0 }): void {
  for (let at = 0; at < bytes.length; ) {
    const n = writeSync(fd, bytes, at, bytes.length - at);
    at += n;
    written.bytes += n;
  }
}

/** Write `chunks` to temporary file `tmp` and fsync it, with `between` after each chunk (the caller removes it on an error). */
function writeTemp(tmp: string, chunks: Iterable<string | Uint8Array>): void {
  const fd = openTemp(tmp);
  try {
    for (const chunk of chunks) writeAll(fd, bytesOf(chunk));
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

function openTemp(tmp: string): number {
  mkdirSync(dirname(tmp), { recursive: true });
  return openSync(tmp, 'w');
}

/**
 * `writeFileAtomic` for a long write (generating or importing a cache): signals are let in between
 * chunks and between the steps of its check (src/io/interrupt.ts), so that a stop (SIGINT, SIGTERM)
 * takes effect within it; the temporary file goes at exit and nothing is renamed into place.
 */
export async function writeFileAtomicYielding(
  path: string,
  chunks: Iterable<string | Uint8Array>,
  check?: (tmp: string) => Generator<unknown, void>,
): Promise<void> {
  const tmp = tempOf(path);
  const forget = removeOnExit(tmp);
  try {
    const fd = openTemp(tmp);
    try {
      for (const chunk of chunks) {
        writeAll(fd, bytesOf(chunk));
        await letSignalsIn();
      }
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    if (check) await stoppableSteps(check(tmp));
    renameSync(tmp, path);
  } catch (e) {
    rmSync(tmp, { force: true });
    throw writeFailed(path, e, keptFile(path));
  } finally {
    forget();
  }
  syncFolder(dirname(path));
}

/** The temporary file beside `path` that a write of it goes to first (`<path>.<pid>.tmp`). */
export const tempOf = (path: string) => `${path}.${process.pid}.tmp`;

/**
 * `writeFileAtomic` as steps (src/io/interrupt.ts): it yields after each chunk, so that a caller's
 * stop points fall between chunks of a long write (a columns file built within a cache's check).
 * Stopped (the generator left unfinished, the process exiting), the temporary file goes at exit.
 */
export function* writeFileAtomicSteps(path: string, chunks: Iterable<string | Uint8Array>): Generator<unknown, void> {
  const tmp = tempOf(path);
  const forget = removeOnExit(tmp);
  let renamed = false;
  try {
    const fd = openTemp(tmp);
    try {
      for (const chunk of chunks) {
        writeAll(fd, bytesOf(chunk));
        yield;
      }
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, path);
    renamed = true;
  } catch (e) {
    throw writeFailed(path, e, keptFile(path));
  } finally {
    // Also when the steps are left unfinished (a failed check of the caller's ends them): no temporary file stays.
    if (!renamed) rmSync(tmp, { force: true });
    forget();
  }
  syncFolder(dirname(path));
}

/**
 * Write `chunks` to a temporary file beside `path` (`<path>.<pid>.tmp`), fsync it, run `check` on
 * it (which throws to refuse it), then rename it into place and fsync the folder.
 */
export function writeFileAtomic(path: string, chunks: Iterable<string | Uint8Array>, check?: (tmp: string) => void): void {
  writeFilesAtomic([[path, chunks]], check && (([tmp]) => check(tmp)));
}

/**
 * Write several files that belong together (a report): every one to its temporary file first, then
 * all renamed into place; a failure before the renames (a full disk) leaves every file as it was.
 */
export function writeFilesAtomic(files: [string, Iterable<string | Uint8Array>][], check?: (temps: string[]) => void): void {
  const temps = files.map(([path]) => tempOf(path));
  const forget = temps.map(removeOnExit);
  let path = files[0]?.[0] ?? '';
  try {
    for (const [i, [target, chunks]] of files.entries()) {
      path = target;
      writeTemp(temps[i], chunks);
    }
    check?.(temps);
    for (const [i, [target]] of files.entries()) {
      path = target;
      renameSync(temps[i], target);
    }
  } catch (e) {
    for (const tmp of temps) rmSync(tmp, { force: true });
    throw writeFailed(path, e, keptFile(path));
  } finally {
    for (const f of forget) f();
  }
  for (const folder of new Set(files.map(([p]) => dirname(p)))) syncFolder(folder);
}

/**
 * Append `data` to the open file `fd` (`file`, named in errors) whole, fsynced with `sync`: when an
 * append fails partway (a full disk), the bytes it wrote are cut off again, so the file ends with
 * its last whole line, and the error is one line naming the file and the cause.
 */
export function appendWhole(fd: number, file: string, data: string | Uint8Array, sync: boolean): void {
  const written = { bytes: 0 };
  try {
    writeAll(fd, bytesOf(data), written);
    if (sync) fsyncSync(fd);
  } catch (e) {
    // The bytes of this append are the file's last ones (another process appending meanwhile fails on a full disk too).
    if (written.bytes > 0 && written.bytes < bytesOf(data).length) ftruncateSync(fd, fstatSync(fd).size - written.bytes);
    throw writeFailed(file, e, 'it ends with its last whole line, as before this write');
  }
}

/** `appendWhole` to the file at `path` (created if missing), without fsync (a log that a run rewrites on resume). */
export function appendToFile(path: string, data: string | Uint8Array): void {
  let fd: number;
  try {
    fd = openSync(path, 'a');
  } catch (e) {
    throw writeFailed(path, e, keptFile(path));
  }
  try {
    appendWhole(fd, path, data, false);
  } finally {
    closeSync(fd);
  }
}

/** fsync a folder, so that a rename into it survives a power loss. */
export function syncFolder(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
