// Reading text files, one way everywhere: every error names the path (a missing file, a folder
// where a file should be, a read error), a leading byte-order mark is dropped (editors on Windows
// write one), and bytes that are not UTF-8 are an error naming the file and line, never silently
// replaced by U+FFFD.
import { closeSync, existsSync, openSync, readFileSync, readSync, statSync } from 'node:fs';
import { InputError } from './errors.ts';

const BOM = '\uFEFF';
const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The path as a file to read: found, and not a folder; otherwise an error naming it. */
export function checkReadable(file: string): void {
  if (!existsSync(file)) throw new InputError(`${file}: file not found`);
  if (statSync(file).isDirectory()) throw new InputError(`${file}: is a folder, not a file`);
}

/** A read error (permissions, I/O) with the path it concerns. */
const named = (file: string, e: unknown) => new InputError(`${file}: ${(e as Error).message.replace(/^[A-Z]+: /, '')}`);

/** Decode UTF-8 bytes that start at line `firstLine`; invalid bytes are an error naming the line. */
function decode(bytes: Uint8Array, file: string, firstLine: number): string {
  try {
    return utf8.decode(bytes);
  } catch {
    // Find the line: a newline byte never occurs inside a multi-byte UTF-8 sequence.
    let line = firstLine;
    let start = 0;
    for (let i = 0; i <= bytes.length; i++) {
      if (i < bytes.length && bytes[i] !== 0x0a) continue;
      try {
        utf8.decode(bytes.subarray(start, i));
      } catch {
        // The column of the first byte that is not UTF-8: where a lenient decoder puts its first U+FFFD.
        const column = new TextDecoder().decode(bytes.subarray(start, i)).indexOf('\uFFFD') + 1;
        throw new InputError(`${file}:${line}: not valid UTF-8 text (column ${column}); save the file as UTF-8`);
      }
      line++;
      start = i + 1;
    }
    throw new InputError(`${file}: not valid UTF-8 text`);
  }
}

/**
 * Lines of a file, read in 16 MB chunks (a whole large cache as one string is slow to parse and
 * collect); the first read is 64 kB, so a caller after the first lines (a header) reads little.
 */
export function* fileLines(file: string): Generator<string> {
  checkReadable(file);
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (e) {
    throw named(file, e);
  }
  try {
    // Only the bytes each read returns are used: no need to zero the buffer (16 MB take a while to fill).
    let buffer = Buffer.allocUnsafe(1 << 16);
    let rest: Buffer = Buffer.alloc(0);
    let line = 1;
    let first = true;
    for (let n: number; (n = read(fd, buffer, file)) > 0; buffer = buffer.length < 1 << 24 ? Buffer.allocUnsafe(1 << 24) : buffer) {
      const bytes = rest.length ? Buffer.concat([rest, buffer.subarray(0, n)]) : buffer.subarray(0, n);
      const end = bytes.lastIndexOf(0x0a) + 1;
      rest = Buffer.from(bytes.subarray(end));
      if (end === 0) continue;
      let text = decode(bytes.subarray(0, end - 1), file, line);
      if (first && text.startsWith(BOM)) text = text.slice(1);
      first = false;
      const parts = text.split('\n');
      line += parts.length;
      yield* parts;
    }
    if (rest.length) {
      let text = decode(rest, file, line);
      if (first && text.startsWith(BOM)) text = text.slice(1);
      yield text;
    }
  } finally {
    closeSync(fd);
  }
}

function read(fd: number, buffer: Buffer, file: string): number {
  try {
    return readSync(fd, buffer, 0, buffer.length, null);
  } catch (e) {
    throw named(file, e);
  }
}

/** A whole text file, checked as `fileLines` checks it. */
export function readTextFile(file: string): string {
  checkReadable(file);
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (e) {
    throw named(file, e);
  }
  const text = decode(bytes, file, 1);
  return text.startsWith(BOM) ? text.slice(1) : text;
}
