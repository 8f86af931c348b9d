// The vectors of one encoder in binary, derived from its embeddings file:
// `<cache>/embeddings/<encoder id>.vectors`, so that a run on an embedded cache neither parses JSON
// vectors nor hashes every text to find them (embeddings.ts ensureEmbeddings). Layout: the magic
// `CPPVEC01`, the head's length (uint32 LE) and the head (JSON: version, encoder, dim, the counts of
// questions, responses and distinct texts, and what it is bound to), padding to 4 bytes, each
// question's and each response's slot (int32 LE, a slot a distinct text), the slots' vectors
// (float32 LE rows in slot order), and the SHA-256 of everything before it.
// It is bound to what it derives from: cache.jsonl and its record journal (the texts: size, mtime,
// inode and the hash of their first and last 64 KiB, as the columns file is, columns.ts
// sourceState) and the embeddings file (the vectors: the same of `<encoder id>.jsonl`). A file whose
// binding differs (stale) or that does not check (damaged: cut short, its SHA-256, its head, a slot
// out of range) is never used: the caller says why and rebuilds it from the embeddings file.
import { closeSync, existsSync, fstatSync, openSync, readSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { writeFileAtomic } from '../io/atomic.ts';
import { sourceState } from './columns.ts';
import { EMBEDDINGS_DIR } from './format.ts';
import { journalPath } from './journal.ts';
import { cacheFilePath } from './load.ts';
import type { Cache } from './types.ts';

const MAGIC = 'CPPVEC01';
const VERSION = 1;
const DIGEST_BYTES = 32;
/** Vectors read or written at once: one allocation each (4 MB at dim 256). */
export const BLOCK = 4096;

export const vectorsPath = (dir: string, encoderId: string) => join(dir, EMBEDDINGS_DIR, `${encoderId}.vectors`);

interface Head {
  version: number;
  encoder: string;
  dim: number;
  questions: number;
  responses: number;
  slots: number;
  /** sourceState of cache.jsonl, of the journal (null: none), of the embeddings file, as JSON. */
  bound: string;
}

/** What the file is bound to, now: the texts (cache.jsonl, the journal) and the vectors (the embeddings file). */
function binding(dir: string, jsonl: string): string {
  const journal = journalPath(dir);
  return JSON.stringify({
    cache: sourceState(cacheFilePath(dir)),
    journal: existsSync(journal) ? sourceState(journal) : null,
    embeddings: sourceState(jsonl),
  });
}

/** Vectors by slot in blocks of BLOCK rows; each slot's view is made once. */
export interface VectorStore {
  set(slot: number, v: Float32Array): void;
  get(slot: number): Float32Array;
  /** The rows of slots 0..size-1 in order, as blocks' bytes (for writing). */
  rows(size: number): Generator<Uint8Array>;
  /** A whole block of rows, filled by a read. */
  block(b: number): Float32Array;
}

export function vectorStore(dim: number): VectorStore {
  const blocks: Float32Array[] = [];
  const views: Float32Array[] = [];
  const block = (b: number) => {
    while (blocks.length <= b) blocks.push(new Float32Array(BLOCK * dim));
    return blocks[b];
  };
  return {
    set: (slot, v) => {
      const at = (slot % BLOCK) * dim;
      const rows = block(Math.floor(slot / BLOCK));
      rows.set(v, at);
      views[slot] = rows.subarray(at, at + dim);
    },
    get: (slot) => {
      if (!views[slot]) {
        const at = (slot % BLOCK) * dim;
        views[slot] = block(Math.floor(slot / BLOCK)).subarray(at, at + dim);
      }
      return views[slot];
    },
    *rows(size) {
      for (let b = 0; b * BLOCK < size; b++) {
        const rows = Math.min(BLOCK, size - b * BLOCK);
        yield new Uint8Array(block(b).buffer, 0, rows * dim * 4);
      }
    },
    block,
  };
}

const pad4 = (n: number) => (4 - (n % 4)) % 4;

/**
 * Write the binary vectors of `cache` (every slot of `slots` filled in `store`), bound to the
 * embeddings file `jsonl` as it is now; atomically.
 */
export function writeVectors(
  dir: string,
  jsonl: string,
  encoder: { id: string; dim: number },
  slots: { questions: Int32Array; responses: Int32Array; size: number },
  store: VectorStore,
): void {
  const head: Head = {
    version: VERSION,
    encoder: encoder.id,
    dim: encoder.dim,
    questions: slots.questions.length,
    responses: slots.responses.length,
    slots: slots.size,
    bound: binding(dir, jsonl),
  };
  const headBytes = Buffer.from(JSON.stringify(head), 'utf8');
  const prefix = Buffer.alloc(12);
  prefix.write(MAGIC, 0, 'latin1');
  prefix.writeUInt32LE(headBytes.length, 8);
  const hash = createHash('sha256');
  function* chunks(): Generator<Uint8Array> {
    const parts = [
      prefix,
      headBytes,
      new Uint8Array(pad4(12 + headBytes.length)),
      new Uint8Array(slots.questions.buffer, slots.questions.byteOffset, slots.questions.byteLength),
      new Uint8Array(slots.responses.buffer, slots.responses.byteOffset, slots.responses.byteLength),
    ];
    for (const part of [...parts, ...store.rows(slots.size)]) {
      hash.update(part);
      yield part;
    }
    yield hash.digest();
  }
  writeFileAtomic(vectorsPath(dir, encoder.id), chunks());
}

/** The vectors read from the binary file: by question and by response, views into blocks of rows. */
export interface StoredVectors {
  questions: Float32Array[];
  responses: Float32Array[];
}

/**
 * The vectors of `cache` under `encoder` from its binary file when that is there, bound to today's
 * cache.jsonl, journal and embeddings file `jsonl`, and checks (its SHA-256, its head, its slots);
 * `{ refused }` saying why not (stale or damaged); undefined when there is no such file.
 */
export function readVectors(
  dir: string,
  jsonl: string,
  cache: Cache,
  encoder: { id: string; dim: number },
): { vectors: StoredVectors } | { refused: string } | undefined {
  const path = vectorsPath(dir, encoder.id);
  if (!existsSync(path)) return undefined;
  const fd = openSync(path, 'r');
  try {
    const size = fstatSync(fd).size;
    const read = <T extends Uint8Array>(bytes: T, at: number): T => {
      if (readSync(fd, bytes, 0, bytes.byteLength, at) !== bytes.byteLength) throw new Error('cut short');
      return bytes;
    };
    if (size < 12 + DIGEST_BYTES) return { refused: `damaged: ${size} bytes, cut short` };
    const prefix = read(Buffer.alloc(12), 0);
    if (prefix.toString('latin1', 0, 8) !== MAGIC) return { refused: 'damaged: not a vectors file (no magic)' };
    const length = prefix.readUInt32LE(8);
    if (12 + length + DIGEST_BYTES > size) return { refused: `damaged: a head of ${length} bytes in a file of ${size}` };
    const headBytes = read(Buffer.alloc(length), 12);
    let head: Head;
    try {
      head = JSON.parse(headBytes.toString('utf8')) as Head;
    } catch {
      return { refused: 'damaged: its head is not JSON' };
    }
    if (head.version !== VERSION) return { refused: `stale: version ${head.version}, this workbench reads ${VERSION}` };
    if (head.encoder !== encoder.id || head.dim !== encoder.dim)
      return { refused: `damaged: it holds ${head.encoder} (dim ${head.dim}), not ${encoder.id} (dim ${encoder.dim})` };
    if (head.bound !== binding(dir, jsonl)) return { refused: `stale: ${changed(head.bound, binding(dir, jsonl))} changed since it was built` };
    if (head.questions !== cache.questions.length || head.responses !== cache.responses.length)
      return {
        refused: `stale: ${head.questions} questions and ${head.responses} responses, the cache holds ${cache.questions.length} and ${cache.responses.length}`,
      };
    const start = 12 + length + pad4(12 + length);
    const end = start + 4 * (head.questions + head.responses) + 4 * head.dim * head.slots + DIGEST_BYTES;
    if (end !== size) return { refused: `damaged: ${size} bytes where its slots, vectors and SHA-256 end at ${end}` };
    const hash = createHash('sha256');
    hash
      .update(prefix)
      .update(headBytes)
      .update(new Uint8Array(pad4(12 + length)));
    const slotsOf = (n: number, at: number) => {
      const slots = new Int32Array(n);
      hash.update(read(new Uint8Array(slots.buffer), at));
      return slots;
    };
    const questions = slotsOf(head.questions, start);
    const responses = slotsOf(head.responses, start + 4 * head.questions);
    const store = vectorStore(head.dim);
    let at = start + 4 * (head.questions + head.responses);
    for (let b = 0; b * BLOCK < head.slots; b++) {
      const rows = Math.min(BLOCK, head.slots - b * BLOCK);
      const bytes = new Uint8Array(store.block(b).buffer, 0, rows * head.dim * 4);
      hash.update(read(bytes, at));
      at += bytes.byteLength;
    }
    if (!hash.digest().equals(read(Buffer.alloc(DIGEST_BYTES), at))) return { refused: 'damaged: its content does not match its SHA-256' };
    for (const slots of [questions, responses])
      for (const slot of slots) if (slot < 0 || slot >= head.slots) return { refused: `damaged: slot ${slot} of ${head.slots}` };
    return { vectors: { questions: Array.from(questions, store.get), responses: Array.from(responses, store.get) } };
  } catch (e) {
    return { refused: `damaged: ${(e as Error).message}` };
  } finally {
    closeSync(fd);
  }
}

/** Which of the bound files differ between two bindings, in words. */
function changed(was: string, now: string): string {
  const names: Record<string, string> = { cache: 'cache.jsonl', journal: 'the record journal', embeddings: 'the embeddings file' };
  let a: Record<string, unknown> = {};
  try {
    a = JSON.parse(was) as Record<string, unknown>;
  } catch {
    // an unreadable binding: every file is named
  }
  const b = JSON.parse(now) as Record<string, unknown>;
  const differ = Object.keys(names).filter((k) => JSON.stringify(a[k]) !== JSON.stringify(b[k]));
  return differ.length ? differ.map((k) => names[k]).join(' and ') : 'what it is bound to';
}
