// Atomic writes: every file the project writes goes to a temporary file that is flushed to disk
// (fsync), checked where a check is given, and only then renamed into place (and the rename
// flushed), so an interrupted write, a power loss or a failed check never leaves a half-written file.
import { closeSync, fsyncSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * Write `chunks` to a temporary file beside `path` (`<path>.<pid>.tmp`), fsync it, run `check` on
 * it (which throws to refuse it), then rename it into place and fsync the folder.
 */
export function writeFileAtomic(path: string, chunks: Iterable<string | Uint8Array>, check?: (tmp: string) => void): void {
  mkdirSync(dirname(path), { recursive: true });
  const tmp = `${path}.${process.pid}.tmp`;
  const fd = openSync(tmp, 'w');
  try {
    for (const chunk of chunks) typeof chunk === 'string' ? writeSync(fd, chunk) : writeSync(fd, chunk);
    fsyncSync(fd);
    closeSync(fd);
    check?.(tmp);
  } catch (e) {
    try {
      closeSync(fd);
    } catch {
      // closed already
    }
    rmSync(tmp, { force: true });
    throw e;
  }
  renameSync(tmp, path);
  syncFolder(dirname(path));
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
