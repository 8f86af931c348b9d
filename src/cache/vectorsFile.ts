// The vectors of one encoder in binary, derived from its embeddings file:
// `<cache>/embeddings/<encoder id>.vectors`, so that a run on an embedded cache neither parses JSON
// vectors nor hashes every text to find them (embeddings.ts ensureEmbeddings), and reads only the
// rows its steps need (vectorReader.ts). Layout: the rows (float32 LE, one per slot, a slot a
// distinct text, in slot order, from offset 0), then the index: each question's and each response's
// slot (int32 LE), the SHA-256 of each page of PAGE_ROWS rows, the head (JSON: version, encoder,
// dim, the counts of questions, responses, distinct texts and rows per page, and what it is bound
// to), the SHA-256 of the index up to here, the head's length (uint32 LE) and the magic `CPPVEC02`.
// The rows come first so that they are written at their slot's place as they are made, and the
// index last, once all are (vectorsWriter: nothing of them is held in memory).
// It is bound to what it derives from: cache.jsonl and its record journal (the texts: size, mtime,
// inode and the hash of their first and last 64 KiB, as the columns file is, columns.ts
// sourceState) and the embeddings file (the vectors: the same of `<encoder id>.jsonl`). A file whose
// binding differs (stale) or whose index does not check (damaged: cut short, its head, its
// SHA-256, a slot out of range) is never used: the caller says why and rebuilds it from the
// embeddings file. A page is checked against its SHA-256 when it is read (vectorReader.ts), so no
// start reads the whole file; a damaged page is an error naming the file and the page, and the
// file is removed so that the next run rebuilds it.
import { closeSync, existsSync, fstatSync, fsyncSync, mkdirSync, openSync, readSync, renameSync, rmSync, writeSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { dirname, join } from 'node:path';
import { removeOnExit, syncFolder, tempOf, writeFailed } from '../io/atomic.ts';
import { recordsState, sourceState } from './columns.ts';
import { EMBEDDINGS_DIR } from './format.ts';
import type { Cache } from './types.ts';

const MAGIC = 'CPPVEC02';
const VERSION = 2;
const DIGEST_BYTES = 32;
/** The trailer: the index's SHA-256, the head's length and the magic. */
const TRAILER = DIGEST_BYTES + 4 + 8;
/**
 * Rows checked together: a page is the unit a reader reads, checks and keeps (16 KiB at dim 256).
 * A question's responses hold neighbouring slots (46 a question in the simulated worlds: about 4
 * pages), its own text a slot among the questions' (one page, of which one row is asked for); larger
 * pages read and hash rows no step asked for (64-row pages: about twice the bytes a question), and
 * smaller ones pay a read and a hash per few rows.
 */
export const PAGE_ROWS = 16;

export const vectorsPath = (dir: string, encoderId: string) => join(dir, EMBEDDINGS_DIR, `${encoderId}.vectors`);

interface Head {
  version: number;
  encoder: string;
  dim: number;
  questions: number;
  responses: number;
  slots: number;
  pageRows: number;
  /** sourceState of cache.jsonl, of the journal (null: none), of the embeddings file, as JSON. */
  bound: string;
}

/** What the file is bound to, now: the texts (cache.jsonl, the journal) and the vectors (the embeddings file). */
function binding(dir: string, jsonl: string): string {
  return JSON.stringify({ ...recordsState(dir), embeddings: sourceState(jsonl) });
}

const bytesOf = (a: Int32Array | Float32Array) => new Uint8Array(a.buffer, a.byteOffset, a.byteLength);

/** The vectors file being written: rows at their slot as they come (`set`), the index at `finish`. */
export interface VectorsWriter {
  /** Write slot's row; a write that fails is kept and thrown by `finish`. */
  set(slot: number, v: Float32Array): void;
  /** Check every slot was set, write the index (bound to the embeddings file `jsonl` as it is now), and rename the file into place. */
  finish(slots: { questions: Int32Array; responses: Int32Array; size: number }): void;
  /** Remove the temporary file (a failed or stopped embedding). */
  abandon(): void;
}

/**
 * Write the binary vectors of the cache in `dir` under `encoder` to a temporary file, a row at a
 * time at its slot's place (memory does not grow with the rows), renamed into place by `finish`;
 * `pageRows` rows are checked together (the head says how many, for its readers).
 */
export function vectorsWriter(dir: string, jsonl: string, encoder: { id: string; dim: number }, pageRows = PAGE_ROWS): VectorsWriter {
  const path = vectorsPath(dir, encoder.id);
  const tmp = tempOf(path);
  const forget = removeOnExit(tmp);
  const rowBytes = 4 * encoder.dim;
  mkdirSync(dirname(path), { recursive: true });
  let fd: number | undefined = openSync(tmp, 'w+'); // read back by finish, for the pages' digests
  let set = new Uint8Array(1024);
  let failure: unknown;
  const close = () => {
    if (fd !== undefined) closeSync(fd);
    fd = undefined;
  };
  const abandon = () => {
    close();
    rmSync(tmp, { force: true });
    forget();
  };
  const write = (bytes: Uint8Array, at: number) => {
    for (let done = 0; done < bytes.length; ) done += writeSync(fd!, bytes, done, bytes.length - done, at + done);
  };
  return {
    set(slot, v) {
      if (failure !== undefined) return;
      try {
        if (v.length !== encoder.dim) throw new Error(`a vector of ${v.length} values for slot ${slot}, dim is ${encoder.dim}`);
        write(bytesOf(v), slot * rowBytes);
      } catch (e) {
        failure = e; // said by finish: the embedding goes on, its vectors are in the embeddings file
        return;
      }
      while (slot >= set.length) {
        const larger = new Uint8Array(2 * set.length);
        larger.set(set);
        set = larger;
      }
      set[slot] = 1;
    },
    finish(slots) {
      try {
        if (failure !== undefined) throw failure;
        const missing = set.subarray(0, slots.size).indexOf(0);
        if (missing >= 0 || slots.size > set.length) throw new Error(`slot ${missing >= 0 ? missing : set.length} has no vector`);
        const pages = Math.ceil(slots.size / pageRows);
        const digests = new Uint8Array(pages * DIGEST_BYTES);
        const page = new Uint8Array(pageRows * rowBytes);
        for (let p = 0; p < pages; p++) {
          const bytes = page.subarray(0, Math.min(pageRows, slots.size - p * pageRows) * rowBytes);
          if (readSync(fd!, bytes, 0, bytes.length, p * pageRows * rowBytes) !== bytes.length) throw new Error(`page ${p} cut short`);
          digests.set(createHash('sha256').update(bytes).digest(), p * DIGEST_BYTES);
        }
        const head: Head = {
          version: VERSION,
          encoder: encoder.id,
          dim: encoder.dim,
          questions: slots.questions.length,
          responses: slots.responses.length,
          slots: slots.size,
          pageRows,
          bound: binding(dir, jsonl),
        };
        const headBytes = Buffer.from(JSON.stringify(head), 'utf8');
        const index = [bytesOf(slots.questions), bytesOf(slots.responses), digests, headBytes];
        const hash = createHash('sha256');
        for (const part of index) hash.update(part);
        const tail = Buffer.alloc(TRAILER);
        hash.digest().copy(tail, 0);
        tail.writeUInt32LE(headBytes.length, DIGEST_BYTES);
        tail.write(MAGIC, DIGEST_BYTES + 4, 'latin1');
        let at = slots.size * rowBytes;
        for (const part of [...index, tail]) {
          write(part, at);
          at += part.length;
        }
        fsyncSync(fd!);
        close();
        renameSync(tmp, path);
        forget();
      } catch (e) {
        abandon();
        throw writeFailed(path, e, existsSync(path) ? 'the file there before is unchanged' : 'nothing was written there');
      }
      syncFolder(dirname(path));
    },
    abandon,
  };
}

/** A vectors file that checks: its slots and pages, and the open file its rows are read from. */
export interface VectorsFile {
  path: string;
  fd: number;
  dim: number;
  slots: number;
  pageRows: number;
  questions: Int32Array;
  responses: Int32Array;
  /** The SHA-256 of each page, one after the other. */
  digests: Uint8Array;
}

/**
 * The vectors file of `cache` under `encoder` when that is there, bound to today's cache.jsonl,
 * journal and embeddings file `jsonl`, and its index checks (its SHA-256, its head, its slots),
 * open for reading its rows (the caller closes `fd`); `{ refused }` saying why not (stale or
 * damaged); undefined when there is no such file. No row is read: each page is checked as it is.
 */
export function openVectors(
  dir: string,
  jsonl: string,
  cache: Cache,
  encoder: { id: string; dim: number },
): { vectors: VectorsFile } | { refused: string } | undefined {
  const path = vectorsPath(dir, encoder.id);
  if (!existsSync(path)) return undefined;
  const fd = openSync(path, 'r');
  let vectors: VectorsFile | undefined;
  try {
    const size = fstatSync(fd).size;
    const read = (length: number, at: number): Uint8Array => {
      const bytes = new Uint8Array(length);
      if (readSync(fd, bytes, 0, length, at) !== length) throw new Error('cut short');
      return bytes;
    };
    if (size < TRAILER) return { refused: `damaged: ${size} bytes, cut short` };
    const tail = Buffer.from(read(TRAILER, size - TRAILER));
    if (tail.toString('latin1', DIGEST_BYTES + 4) !== MAGIC) {
      const older = Buffer.from(read(8, 0)).toString('latin1');
      return { refused: older === 'CPPVEC01' ? `stale: version 1, this workbench reads ${VERSION}` : 'damaged: not a vectors file (no magic)' };
    }
    const length = tail.readUInt32LE(DIGEST_BYTES);
    if (length + TRAILER > size) return { refused: `damaged: a head of ${length} bytes in a file of ${size}` };
    const headBytes = read(length, size - TRAILER - length);
    let head: Head;
    try {
      head = JSON.parse(Buffer.from(headBytes).toString('utf8')) as Head;
    } catch {
      return { refused: 'damaged: its head is not JSON' };
    }
    if (head.version !== VERSION) return { refused: `stale: version ${head.version}, this workbench reads ${VERSION}` };
    if (head.encoder !== encoder.id || head.dim !== encoder.dim)
      return { refused: `damaged: it holds ${head.encoder} (dim ${head.dim}), not ${encoder.id} (dim ${encoder.dim})` };
    const now = binding(dir, jsonl);
    if (head.bound !== now) return { refused: `stale: ${changed(head.bound, now)} changed since it was built` };
    if (head.questions !== cache.questions.length || head.responses !== cache.responses.length)
      return {
        refused: `stale: ${head.questions} questions and ${head.responses} responses, the cache holds ${cache.questions.length} and ${cache.responses.length}`,
      };
    const pages = Math.ceil(head.slots / head.pageRows);
    const rows = 4 * head.dim * head.slots;
    const end = rows + 4 * (head.questions + head.responses) + DIGEST_BYTES * pages + length + TRAILER;
    if (end !== size) return { refused: `damaged: ${size} bytes where its rows, slots, page digests, head and trailer end at ${end}` };
    const questions = new Int32Array(read(4 * head.questions, rows).buffer);
    const responses = new Int32Array(read(4 * head.responses, rows + 4 * head.questions).buffer);
    const digests = read(DIGEST_BYTES * pages, rows + 4 * (head.questions + head.responses));
    const hash = createHash('sha256');
    for (const part of [bytesOf(questions), bytesOf(responses), digests, headBytes]) hash.update(part);
    if (!hash.digest().equals(tail.subarray(0, DIGEST_BYTES))) return { refused: 'damaged: its index does not match its SHA-256' };
    for (const slots of [questions, responses])
      for (const slot of slots) if (slot < 0 || slot >= head.slots) return { refused: `damaged: slot ${slot} of ${head.slots}` };
    vectors = { path, fd, dim: head.dim, slots: head.slots, pageRows: head.pageRows, questions, responses, digests };
    return { vectors };
  } catch (e) {
    return { refused: `damaged: ${(e as Error).message}` };
  } finally {
    if (!vectors) closeSync(fd);
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
