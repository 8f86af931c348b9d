// The record tier's append-only journal, `<cache>/journal.jsonl`: every response a live endpoint
// returns is appended here, one complete JSON line, fsynced, before the run uses it, so a paid
// reply survives kill -9. Before each call an intent line names the request about to be paid for:
//   {"type":"intent","id":"<response id>","key":"<request key>"}     (fsynced before the call)
//   {"type":"response","id":"<response id>",...}                     (a cache response record)
// A request's key (and the id of its response) derives from what is asked, so a rerun finds what
// an earlier run recorded, and an intent without its response is a call that may have been paid
// but whose reply was lost; it is asked again with the same idempotency key.
// The loader (load.ts) reads cache.jsonl, then this file; compaction (write.ts) folds it in.
import { closeSync, existsSync, fstatSync, fsyncSync, ftruncateSync, mkdirSync, openSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { appendWhole } from '../io/atomic.ts';
import { ResponseRecord } from './format.ts';

export const JOURNAL_FILE = 'journal.jsonl';
export const journalPath = (dir: string) => join(dir, JOURNAL_FILE);

/** Written and fsynced before a call: the request whose reply will be `id`. */
export const IntentRecord = z.strictObject({ type: z.literal('intent'), id: z.string().min(1), key: z.string().min(1) });
export type IntentRecord = z.infer<typeof IntentRecord>;
export const JournalLine = z.discriminatedUnion('type', [IntentRecord, ResponseRecord]);
export type JournalLine = z.infer<typeof JournalLine>;

/** Bytes [from, to) of an open file. */
function readRange(fd: number, from: number, to: number): Buffer {
  const buffer = Buffer.alloc(to - from);
  for (let at = 0; at < buffer.length; ) {
    const n = readSync(fd, buffer, at, buffer.length - at, from + at);
    if (n === 0) break;
    at += n;
  }
  return buffer;
}

/**
 * The end of a journal's text: where its last complete line ends, and what follows it. A last line
 * without its newline is torn (a write cut by a crash) unless it is complete JSON (only the
 * newline was lost).
 */
export function journalTail(fd: number): { size: number; cleanEnd: number; tail: string; torn: boolean } {
  const size = fstatSync(fd).size;
  let from = size;
  let tail = '';
  while (from > 0) {
    const start = Math.max(0, from - 65536);
    const text = readRange(fd, start, from).toString('latin1');
    const nl = text.lastIndexOf('\n');
    if (nl >= 0) {
      from = start + nl + 1;
      break;
    }
    from = start;
  }
  if (from < size) tail = readRange(fd, from, size).toString('utf8');
  let torn = false;
  if (tail.trim() !== '') {
    try {
      JSON.parse(tail);
    } catch {
      torn = true;
    }
  }
  return { size, cleanEnd: from, tail, torn };
}

/** A journal open for appending by this process. */
export interface Journal {
  file: string;
  fd: number;
  /** Bytes of the file this process has read or written: lines after it were appended by another process. */
  seen: number;
}

/**
 * Open `<dir>/journal.jsonl` for appending (created if missing). A torn last line is cut off, and
 * said: it is a reply that was never complete, so nothing usable is lost. `seen`: bytes the
 * loader already read (lines after it come from other processes and are read by `readAppended`).
 */
export function openJournal(dir: string, seen: number, warn: (message: string) => void = console.error): Journal {
  mkdirSync(dir, { recursive: true });
  const file = journalPath(dir);
  const fd = openSync(file, 'a+');
  const end = journalTail(fd);
  if (end.torn) {
    ftruncateSync(fd, end.cleanEnd);
    fsyncSync(fd);
    warn(`${file}: cut off a torn last line (${end.size - end.cleanEnd} bytes, a write interrupted by a crash)`);
  } else if (end.tail.trim() !== '') appendWhole(fd, file, '\n', true); // complete JSON that lost only its newline
  return { file, fd, seen: Math.min(seen, end.torn ? end.cleanEnd : end.size) };
}

/**
 * Append one line and fsync it: when this returns, the line survives a crash; when the disk is full,
 * nothing of it stays (src/io/atomic.ts appendWhole) and the error names the journal.
 */
export function appendJournal(j: Journal, line: JournalLine): void {
  const text = JSON.stringify(line) + '\n';
  appendWhole(j.fd, j.file, text, true);
  if (fstatSync(j.fd).size === j.seen + Buffer.byteLength(text)) j.seen += Buffer.byteLength(text);
}

/**
 * Complete lines appended since `seen` by other processes recording into the same cache (each
 * append is one write, so lines never interleave); the caller adds their responses.
 */
export function readAppended(j: Journal): unknown[] {
  const size = fstatSync(j.fd).size;
  if (size <= j.seen) return [];
  const text = readRange(j.fd, j.seen, size).toString('utf8');
  const end = text.lastIndexOf('\n') + 1;
  j.seen += Buffer.byteLength(text.slice(0, end));
  const out: unknown[] = [];
  for (const line of text.slice(0, end).split('\n')) {
    if (line.trim() === '') continue;
    try {
      out.push(JSON.parse(line));
    } catch {
      // another process's line that is not JSON: the loader reports it with its line number
    }
  }
  return out;
}

export function closeJournal(j: Journal): void {
  closeSync(j.fd);
}

export const hasJournal = (dir: string) => existsSync(journalPath(dir));
