// The embeddings file of one encoder (`<cache>/embeddings/<encoder id>.jsonl`, embeddings.ts says its
// form), read and written a line at a time so that its memory does not grow with the file: a scan
// hands each stored vector's line to its caller (which decodes only what it keeps), vectors are
// appended whole as they are made, and texts the cache no longer holds are dropped by a streamed
// rewrite. The texts of a cache are known by their keys only (`TextIndex`): a text is read from the
// cache (its columns) when it is embedded, and never held beside the others.
import { hash } from 'node:crypto';
import { closeSync, existsSync, fstatSync, ftruncateSync, fsyncSync, openSync, readSync } from 'node:fs';
import { z } from 'zod';
import { appendWhole, writeFileAtomic } from '../io/atomic.ts';
import { float32FromBase64 } from '../io/float32.ts';
import { checkedLines, type Problem } from '../io/problems.ts';
import { fileLines } from '../io/textFile.ts';
import { columnTexts } from './columnsCache.ts';
import { journalTail } from './journal.ts';
import type { Cache } from './types.ts';
import { chunked } from './write.ts';

export const VERSION = 2;
const sha256 = z.string().regex(/^[0-9a-f]{64}$/, 'not a sha256 (64 hex digits)');
export const EmbeddingsHeader = z.strictObject({
  type: z.literal('embeddings'),
  version: z.literal([1, VERSION]),
  encoder: z.string().min(1),
  dim: z.number().int().positive(),
});
// `v` is checked where it is decoded (src/io/float32.ts).
const EmbeddingLine = z.strictObject({ sha256, v: z.string() });
const HEX64 = /^[0-9a-f]{64}$/;
/**
 * EmbeddingLine's check, with a quick path for the line every file is made of (a sha256 and a
 * string `v`, nothing else): zod's checks of millions of such lines took most of a warm read.
 * Anything else goes to zod, whose problems name the field.
 */
const QuickLine = {
  safeParse(json: unknown) {
    const r = (json ?? {}) as Record<string, unknown>;
    if (typeof r.v === 'string' && typeof r.sha256 === 'string' && HEX64.test(r.sha256) && Object.keys(r).length === 2) return { success: true, data: r };
    return EmbeddingLine.safeParse(json);
  },
} as unknown as typeof EmbeddingLine;
/** A line of a version-1 file (keyed by record id): read only to be replaced. */
const OldLine = z.strictObject({ kind: z.enum(['question', 'response']), id: z.string().min(1), v: z.string() });
export type EmbeddingsHeader = z.infer<typeof EmbeddingsHeader>;
type EmbeddingLine = z.infer<typeof EmbeddingLine>;
type OldLine = z.infer<typeof OldLine>;

// crypto.hash, one call a text: a Hash object a text (createHash) took 3-4x as long for a cache's texts.
/** The key of a text's vector: sha256 of its UTF-8 bytes. */
export const textKey = (text: string) => hash('sha256', text, 'hex');
/** The same key as 32 one-byte characters: the form held in memory for every text (half the hex form's bytes). */
const binaryKey = (text: string) => hash('sha256', text, 'binary');
const binaryOfHex = (hex: string) => Buffer.from(hex, 'hex').toString('latin1');

/**
 * The distinct texts of a cache by key: `slot` of each key, the slot of each question's and
 * response's text, and where a slot's text is read from (`textOf`). It grows with the number of
 * texts (about 100 bytes a distinct text), not with their length.
 */
export interface TextIndex {
  slots: Map<string, number>;
  questions: Int32Array;
  responses: Int32Array;
  /** The text of a slot, read from the cache (a question's, else a response's) when asked for. */
  textOf: (slot: number) => string;
  size: number;
}

export function textIndex(cache: Cache): TextIndex {
  const slots = new Map<string, number>();
  // A slot's first holder: a question q as -(q + 1), a response as its index.
  let holder = new Int32Array(1024);
  const slotOf = (text: string, who: number) => {
    const key = binaryKey(text);
    let slot = slots.get(key);
    if (slot === undefined) {
      slot = slots.size;
      slots.set(key, slot);
      if (slot === holder.length) {
        const larger = new Int32Array(2 * holder.length);
        larger.set(holder);
        holder = larger;
      }
      holder[slot] = who;
    }
    return slot;
  };
  const questions = Int32Array.from(cache.questions, (q, i) => slotOf(q.text, -(i + 1)));
  const responses = new Int32Array(cache.responses.length);
  for (let from = 0; from < responses.length; ) {
    const texts = columnTexts(cache, from, responses.length) ?? [cache.responses[from].text];
    for (const text of texts) responses[from] = slotOf(text, from++);
  }
  const textOf = (slot: number) => (holder[slot] < 0 ? cache.questions[-holder[slot] - 1].text : cache.responses[holder[slot]].text);
  return { slots, questions, responses, textOf, size: slots.size };
}

/** A stored vector's line: its key (hex), its base64 vector, its line number. */
export interface StoredLine {
  key: string;
  /** The key as TextIndex holds it. */
  binary: string;
  v: string;
  line: number;
  /** Its vector, where the scan decoded it (scanFile's `decode`): valid until the next line. */
  values?: Float32Array;
}

export interface Scan {
  header?: EmbeddingsHeader;
  /** Bytes of whole lines read (a torn last line, a write cut by a crash, is not read). */
  end: number;
  /** A torn last line's bytes, if any. */
  torn: number;
}

const WRITTEN = '{"sha256":"';
const WRITTEN_V = '","v":"';
/**
 * A vector line as vectorLine writes it (`{"sha256":"<64 hex>","v":"<base64>"}`), its vector decoded
 * `into` an array of `dim` values; undefined for any other line, or one whose vector does not decode
 * whole. Such a line is the JSON object it looks like: a vector that decodes whole at its length is
 * base64 throughout (src/io/float32.ts), so `v` holds no quote, backslash or control character.
 */
function writtenLine(text: string, dim: number, into: Float32Array): { hex: string; v: string } | undefined {
  const end = text.length - 2;
  if (!text.startsWith(WRITTEN) || !text.startsWith(WRITTEN_V, 75) || !text.startsWith('"}', end)) return undefined;
  const hex = text.slice(11, 75);
  const v = text.slice(82, end);
  return HEX64.test(hex) && float32FromBase64(v, dim, into) instanceof Float32Array ? { hex, v } : undefined;
}

/**
 * Read an embeddings file a line at a time, handing each vector line of a version-2 file to
 * `onLine`; every problem (file, line, field) goes to `problems`. A torn last line (an append cut
 * by a crash) is left out, and its length said in the scan (the next append cuts it off).
 * `decode`: a line in the written form (writtenLine) is handed over decoded, without JSON.parse and
 * its schema (a check of every vector: parsing took about a third of it); any other line as before.
 */
export function scanFile(file: string, problems: Problem[], onLine: (l: StoredLine, header: EmbeddingsHeader) => void, decode = false): Scan {
  const out: Scan = { end: 0, torn: 0 };
  if (!existsSync(file)) return out;
  const fd = openSync(file, 'r');
  const tail = journalTail(fd);
  closeSync(fd);
  out.end = tail.torn ? tail.cleanEnd : tail.size;
  out.torn = tail.torn ? tail.size - tail.cleanEnd : 0;
  let lines = 0;
  let scratch = new Float32Array(0);
  // The lines checkedLines reads: one handed over decoded stands there blank (skipped, still counted).
  function* unwritten(texts: Iterable<string>): Generator<string> {
    let line = 0;
    for (const text of texts) {
      const h = ++line > 1 && decode && out.header?.version === VERSION ? out.header : undefined;
      if (h && scratch.length !== h.dim) scratch = new Float32Array(h.dim);
      const written = h && writtenLine(text, h.dim, scratch);
      if (!written) {
        yield text;
        continue;
      }
      lines++;
      onLine({ key: written.hex, binary: binaryOfHex(written.hex), v: written.v, line, values: scratch }, h);
      yield '';
    }
  }
  for (const { rec, line } of checkedLines<EmbeddingsHeader | EmbeddingLine | OldLine>(
    unwritten(fileLines(file, 1 << 20)),
    file,
    (line) => (line === 1 ? EmbeddingsHeader : out.header?.version === 1 ? OldLine : QuickLine),
    problems,
    (text) => tail.torn && text === tail.tail,
  )) {
    lines++;
    if ('type' in rec) {
      out.header = rec;
      continue;
    }
    if (out.header?.version !== VERSION || !('sha256' in rec)) continue;
    onLine({ key: rec.sha256, binary: binaryOfHex(rec.sha256), v: rec.v, line }, out.header);
  }
  if (!out.header && lines === 0 && problems.length === 0 && !out.torn)
    problems.push({ file, line: 1, field: 'type', message: 'empty file: no embeddings header' });
  return out;
}

const headerLine = (encoder: { id: string; dim: number }) => JSON.stringify({ type: 'embeddings', version: VERSION, encoder: encoder.id, dim: encoder.dim });
/** The stored line of `text`'s vector. */
export const vectorLine = (text: string, v: Float32Array) =>
  JSON.stringify({ sha256: textKey(text), v: Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('base64') });

/**
 * Whether `file` begins with the current header for `encoder`: another process embedding the same
 * cache may have started it since this one looked, and starting it anew would drop that process's
 * vectors (and leave the lines it appends later after a stale offset: the same text twice).
 */
export function startedFor(file: string, encoder: { id: string; dim: number }): boolean {
  if (!existsSync(file)) return false;
  const fd = openSync(file, 'r');
  try {
    const head = Buffer.alloc(4096);
    const n = readSync(fd, head, 0, head.length, 0);
    const first = head.subarray(0, n).toString('utf8').split('\n')[0];
    return first === headerLine(encoder);
  } finally {
    closeSync(fd);
  }
}

/** Start the file anew with its header only (atomically): a missing file, or one of the older format. */
export function startFile(file: string, encoder: { id: string; dim: number }): void {
  writeFileAtomic(file, [`${headerLine(encoder)}\n`]);
}

/**
 * The vector lines appended to `file` after byte `from` (by another process), and where whole lines
 * end; a torn last line is cut off first (the caller holds the cache's lock).
 */
export function appendedSince(file: string, from: number): { lines: { binary: string; v: string }[]; end: number } {
  const fd = openSync(file, 'r+');
  try {
    const tail = journalTail(fd);
    if (tail.torn) {
      ftruncateSync(fd, tail.cleanEnd);
      fsyncSync(fd);
    }
    const end = tail.torn ? tail.cleanEnd : tail.size;
    const lines: { binary: string; v: string }[] = [];
    if (end > from) {
      const bytes = Buffer.allocUnsafe(end - from);
      readSync(fd, bytes, 0, bytes.length, from);
      for (const text of bytes.toString('utf8').split('\n')) {
        if (!text.trim()) continue;
        const rec = JSON.parse(text) as { sha256?: string; v?: string };
        if (typeof rec.sha256 === 'string' && typeof rec.v === 'string') lines.push({ binary: binaryOfHex(rec.sha256), v: rec.v });
      }
    }
    return { lines, end };
  } finally {
    closeSync(fd);
  }
}

/** Append whole lines to `file`, fsynced (a full disk leaves it as it was: src/io/atomic.ts appendWhole); returns its new end. */
export function appendLines(file: string, lines: string[]): number {
  const fd = openSync(file, 'a');
  try {
    appendWhole(fd, file, `${lines.join('\n')}\n`, true);
    return fstatSync(fd).size;
  } finally {
    closeSync(fd);
  }
}

/** Rewrite `file` keeping, in order, the vectors of the texts `keep` accepts (atomically, a line at a time; its torn last line cut off already). */
export function keepOnly(file: string, keep: (binary: string) => boolean): void {
  function* kept(): Generator<string> {
    let first = true;
    for (const text of fileLines(file, 1 << 20)) {
      if (first) {
        first = false;
        yield text;
        continue;
      }
      const m = /"sha256":"([0-9a-f]{64})"/.exec(text);
      if (m && keep(binaryOfHex(m[1]))) yield text;
    }
  }
  writeFileAtomic(file, chunked(kept()));
}
