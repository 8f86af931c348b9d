// Reading text files, one way everywhere: every error names the path (a missing file, a folder
// where a file should be, a read error), a leading byte-order mark is dropped (editors on Windows
// write one), and bytes that are not UTF-8 are an error naming the file and line, never silently
// replaced by U+FFFD.
import { isAscii, isUtf8 } from 'node:buffer';
import { closeSync, existsSync, openSync, readFileSync, readSync, statSync } from 'node:fs';
import { InputError } from './errors.ts';

const BOM = '\uFEFF';
/** Bytes decoded into one string by fileLines: below V8's largest regular object (128 kB). */
const PIECE = 1 << 16;
const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The path as a file to read: found, and not a folder; otherwise an error naming it. */
export function checkReadable(file: string): void {
  if (!existsSync(file)) throw new InputError(`${file}: file not found`);
  if (statSync(file).isDirectory()) throw new InputError(`${file}: is a folder, not a file`);
}

/** A read error (permissions, I/O) with the path it concerns. */
const named = (file: string, e: unknown) => new InputError(`${file}: ${(e as Error).message.replace(/^[A-Z]+: /, '')}`);

/**
 * Decode UTF-8 bytes that start at line `firstLine`; invalid bytes are an error naming the line.
 * Checked first, then decoded without a check: a fatal TextDecoder decodes through a slower path
 * than Buffer's (most of a cache's and an embeddings file's reading time), and ASCII text (every
 * embeddings file, most caches) is copied byte for byte into a one-byte string.
 */
function decode(bytes: Uint8Array, file: string, firstLine: number): string {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (isAscii(buffer)) return buffer.toString('latin1');
  if (isUtf8(buffer)) return buffer.toString('utf8');
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
 * One buffer is read into again and again (the unfinished last line moved to its start): fresh
 * 16 MB buffers cost more to allocate and fault in than to fill. `chunk`: smaller chunks, for a
 * reader whose memory must stay small (a chunk's text is held while its lines are read).
 */
export function* fileLines(file: string, chunk = 1 << 24): Generator<string> {
  const fd = openToRead(file);
  try {
    // Only the bytes each read returns are used: the buffer needs no zero fill.
    let buffer = Buffer.allocUnsafe(1 << 16);
    let held = 0; // bytes of an unfinished line at the start of the buffer
    let line = 1;
    let first = true;
    const text = (bytes: Buffer) => {
      const t = decode(bytes, file, line);
      const bom = first && t.startsWith(BOM);
      first = false;
      return bom ? t.slice(1) : t;
    };
    for (let n: number; (n = read(fd, buffer, held, file)) > 0; ) {
      const filled = held + n;
      const end = buffer.lastIndexOf(0x0a, filled - 1) + 1;
      // Decoded a piece of about PIECE bytes at a time (whole lines): a longer string is allocated
      // in V8's large-object space, whose fresh pages took about 3x the time of the decoding itself.
      for (let from = 0; from < end; ) {
        let to = from + PIECE >= end ? end : buffer.lastIndexOf(0x0a, from + PIECE - 1) + 1;
        if (to <= from) to = buffer.indexOf(0x0a, from) + 1; // a line longer than a piece: whole
        const parts = text(buffer.subarray(from, to - 1)).split('\n');
        line += parts.length;
        yield* parts;
        from = to;
      }
      held = filled - end;
      // After the first read, or for a line longer than the buffer: a larger one.
      const size = buffer.length < chunk || held === buffer.length ? Math.max(chunk, 2 * held) : buffer.length;
      if (size !== buffer.length) {
        const larger = Buffer.allocUnsafe(size);
        buffer.copy(larger, 0, end, filled);
        buffer = larger;
      } else buffer.copyWithin(0, end, filled);
    }
    if (held) yield text(buffer.subarray(0, held));
  } finally {
    closeSync(fd);
  }
}

/** The file opened for reading, checked as `checkReadable` checks it; an error names the path. */
function openToRead(file: string): number {
  checkReadable(file);
  try {
    return openSync(file, 'r');
  } catch (e) {
    throw named(file, e);
  }
}

function read(fd: number, buffer: Buffer, offset: number, file: string): number {
  try {
    return readSync(fd, buffer, offset, buffer.length - offset, null);
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

/** The number of lines `fileLines` yields for `file`, counted without decoding it (a quick pass, for progress: "read 1,024 of 55,227 lines"). */
export function countLines(file: string): number {
  const fd = openToRead(file);
  try {
    // One small buffer read into again and again: a 16 MB one took longer to fault in (about 80 ms
    // of CPU, most of it the kernel's) than the whole count of a 25 MB cache with this one.
    const buffer = Buffer.allocUnsafe(1 << 16);
    let lines = 0;
    let last = 0x0a;
    for (let n: number; (n = read(fd, buffer, 0, file)) > 0; ) {
      const bytes = buffer.subarray(0, n);
      for (let at = bytes.indexOf(0x0a); at !== -1; at = bytes.indexOf(0x0a, at + 1)) lines++;
      last = bytes[n - 1];
    }
    return lines + (last === 0x0a ? 0 : 1);
  } finally {
    closeSync(fd);
  }
}
