// The lookup indexes kept beside the cache (`<cache>/lookup.index`), so that a process that replays
// a cache indexed before reads the lists' arrays instead of making every response's keys again (at
// 100,000 questions four lists of 4.6 million responses: about 6 s of a run's setup). Layout: 8
// bytes of magic, a uint32 (little-endian) head length, a JSON head (version, what it is bound to,
// each list's mask and lengths), the arrays (int32 little-endian, each 8-byte aligned), and last
// the SHA-256 of every byte before it. It is bound as the kept fit is (recordsBinding in columns.ts: cache.jsonl and
// its journal as they are, and the cache's counts) and checked against today's keys: spread samples
// of each list's items must hash, by today's key of their response, to what the file holds, in the
// bucket they sit in, so a change of the keys or of their hash is seen without a version to bump
// (INDEX_VERSION names a change of the lists' order). Anything else (stale, damaged, keys made
// otherwise) is said, and the lists are built again and the file replaced.
import { createHash, hash } from 'node:crypto';
import { closeSync, existsSync, fstatSync, openSync, readSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { recordsBinding } from '../cache/columns.ts';
import type { Cache } from '../cache/types.ts';
import { writeFileAtomic } from '../io/atomic.ts';
import { emptyIndex, type ListParts, type LookupIndex } from './lookupIndex.ts';

export const INDEX_FILE = 'lookup.index';
const MAGIC = 'CPPIDX01';
/** 1: the lists of lookupIndex.ts, round 1's by sample, the others in response order. */
const INDEX_VERSION = 1;
const DIGEST_BYTES = 32;
/** Items of each list checked against today's keys when the file is read. */
const SAMPLES = 64;
const LISTS = ['exact', 'signature', 'round1', 'byAnswer'] as const;

interface Head {
  version: number;
  from: string;
  lists: { mask: number; buckets: number; items: number }[];
}

const pad8 = (n: number) => (8 - (n % 8)) % 8;

/** The lookup indexes of `cache` (all its responses): the kept ones when they check, else `build`'s, kept for the next process. */
export function* keptIndexSteps(cache: Cache, build: () => Generator<unknown, LookupIndex>): Generator<unknown, LookupIndex> {
  const from = recordsBinding(cache);
  if (from === undefined) return yield* build();
  const file = join(dirname(cache.file), INDEX_FILE);
  const read = existsSync(file) ? readIndex(file, cache, from) : undefined;
  if (read && 'index' in read) return read.index;
  if (read) console.error(`${file}: ${read.refused}: the lookup indexes are built again`);
  const index = yield* build();
  try {
    writeFileAtomic(file, indexBytes(index, from));
  } catch (e) {
    console.error(`${file}: could not be written (${(e as Error).message}); the next process builds the lookup indexes again`);
  }
  return index;
}

/** The file's bytes for `index` bound to `from`, its SHA-256 last. */
function indexBytes(index: LookupIndex, from: string): Uint8Array[] {
  const parts = LISTS.map((name) => index[name].parts());
  const head: Head = { version: INDEX_VERSION, from, lists: parts.map((p) => ({ mask: p.mask, buckets: p.start.length, items: p.items.length })) };
  const headBytes = Buffer.from(JSON.stringify(head));
  const prefix = Buffer.alloc(12);
  prefix.write(MAGIC, 0, 'latin1');
  prefix.writeUInt32LE(headBytes.length, 8);
  const chunks: Uint8Array[] = [prefix, headBytes, new Uint8Array(pad8(12 + headBytes.length))];
  for (const p of parts)
    for (const a of [p.start, p.items, p.hashes]) chunks.push(new Uint8Array(a.buffer, a.byteOffset, a.byteLength), new Uint8Array(pad8(a.byteLength)));
  const digest = createHash('sha256');
  for (const c of chunks) digest.update(c);
  return [...chunks, digest.digest()];
}

/** The kept index of `cache` from `file` when it checks (bound to `from`, its SHA-256, its layout, today's keys), else why not. */
function readIndex(file: string, cache: Cache, from: string): { index: LookupIndex } | { refused: string } {
  let bytes: Uint8Array;
  const fd = openSync(file, 'r');
  try {
    bytes = new Uint8Array(fstatSync(fd).size);
    if (readSync(fd, bytes, 0, bytes.length, 0) !== bytes.length) return { refused: 'cut short while read' };
  } finally {
    closeSync(fd);
  }
  const size = bytes.length;
  if (size < 12 + DIGEST_BYTES || Buffer.from(bytes.buffer, 0, 8).toString('latin1') !== MAGIC) return { refused: 'damaged: not a lookup index file' };
  if (!hash('sha256', bytes.subarray(0, size - DIGEST_BYTES), 'buffer').equals(bytes.subarray(size - DIGEST_BYTES)))
    return { refused: 'damaged: its content does not match its SHA-256' };
  const length = Buffer.from(bytes.buffer).readUInt32LE(8);
  const head = JSON.parse(Buffer.from(bytes.buffer, 12, length).toString('utf8')) as Head;
  if (head.version !== INDEX_VERSION) return { refused: `stale: version ${head.version}, this workbench reads ${INDEX_VERSION}` };
  if (head.from !== from) return { refused: `stale: made from another ${cache.file}` };
  let at = 12 + length + pad8(12 + length);
  const ints = (n: number) => {
    const a = new Int32Array(bytes.buffer, at, n);
    at += 4 * n + pad8(4 * n);
    return a;
  };
  const index = emptyIndex(cache);
  try {
    for (const [k, name] of LISTS.entries()) {
      const { mask, buckets, items } = head.lists[k];
      const parts: ListParts = { mask, start: ints(buckets), items: ints(items), hashes: ints(items) };
      if (buckets !== mask + 2 || parts.start[0] !== 0 || parts.start[mask + 1] !== items)
        return { refused: `damaged: the ${name} list's buckets do not hold its items` };
      const lists = index[name].adopt(parts);
      const checked = Math.min(SAMPLES, items);
      for (let s = 0; s < checked; s++)
        if (!lists.holds(Math.floor((s * items) / checked))) return { refused: `stale: the ${name} list's keys are made otherwise today` };
    }
  } catch (e) {
    return { refused: `damaged: ${(e as Error).message}` };
  }
  if (at !== size - DIGEST_BYTES) return { refused: `damaged: ${size} bytes where its lists and SHA-256 end at ${at + DIGEST_BYTES}` };
  return { index };
}
