// The columnar form of a cache, `<cache>/cache.columns`: derived from cache.jsonl (which stays the
// interchange and the record; the journal is applied on top as ever) so that a large cache loads
// without parsing JSON or reading answers again (columnsLayout.ts: the layout; columnsCache.ts: the
// cache served from it).
// A columns file is used only when its SHA-256 (its last 32 bytes) matches every byte before it,
// head and sections alike; cache.jsonl has the size, mtime, inode and first and last blocks it was
// built from; and today's answer reader normalizes every distinct stored answer as the one that
// built it did (the answers are stored interned). Anything else: it is rebuilt from cache.jsonl
// (loadCache) and that is said.
import { createHash } from 'node:crypto';
import { closeSync, existsSync, fstatSync, openSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { normalizeAnswer, type AnswerType } from '../answer.ts';
import { buildCache } from './columnsCache.ts';
import {
  DIGEST_BYTES,
  type Head,
  INT_COLUMNS,
  LAZY_COLUMNS,
  MAGIC,
  NUMBER_COLUMNS,
  OLDER_MAGIC,
  pad8,
  SECTIONS,
  type Section,
  type Source,
  VERSION,
} from './columnsLayout.ts';
import type { Cache } from './types.ts';
import { writeFileAtomic } from '../io/atomic.ts';

export const COLUMNS_FILE = 'cache.columns';
/** cache.jsonl from this size on gets a columns file when it is loaded: below it, parsing is as quick as reading columns. */
export const COLUMNS_MIN_BYTES = 4 << 20;
/** Bytes at each end of cache.jsonl whose hash a columns file records: an edit there that keeps the size, mtime and inode is seen. */
const END_BLOCK = 1 << 16;

export const columnsPath = (dir: string) => join(dir, COLUMNS_FILE);

/**
 * What a columns file records of `file` (cache.jsonl, or the temporary file renamed into place as
 * it): its size, mtime and inode (a write of the workbench renames a new file into place, an
 * append changes the size) and the SHA-256 of its first and last 64 KiB (an edit there in place).
 */
export function sourceState(file: string): Source {
  const fd = openSync(file, 'r');
  try {
    const s = fstatSync(fd);
    const hash = createHash('sha256');
    const block = Buffer.alloc(Math.min(END_BLOCK, s.size));
    for (const at of new Set([0, s.size - block.length])) hash.update(block.subarray(0, readSync(fd, block, 0, block.length, at)));
    return { size: s.size, mtimeMs: s.mtimeMs, ino: s.ino, ends: hash.digest('hex') };
  } finally {
    closeSync(fd);
  }
}
export const sameSource = (a: Source, b: Source) => a.size === b.size && a.mtimeMs === b.mtimeMs && a.ino === b.ino && a.ends === b.ends;

/** Every distinct stored answer (golds, responses', external and summary entries') with its type and its normalized form when written. */
function readingsOf(cache: Cache): [AnswerType, string, string | null][] {
  const seen = new Map<string, [AnswerType, string, string | null]>();
  const add = (type: AnswerType, raw: string | null) => {
    const key = `${type}\0${raw}`;
    if (raw !== null && !seen.has(key)) seen.set(key, [type, raw, normalizeAnswer(raw, type)]);
  };
  for (const q of cache.questions) add(q.answerType, q.gold);
  for (const r of cache.responses) add(cache.questions[r.q].answerType, r.answer);
  for (const e of cache.externals) add(cache.questions[e.q].answerType, e.answer);
  return [...seen.values()];
}

/** The first stored answer that today's reader normalizes otherwise than the one that built the columns, if any. */
function readDifferently(head: Head): string | undefined {
  for (const [type, raw, normalized] of head.readings) {
    const now = normalizeAnswer(raw, type);
    if (now !== normalized) return `the ${type} answer '${raw}' now reads as ${JSON.stringify(now)}, not ${JSON.stringify(normalized)}`;
  }
  return undefined;
}

/** Write the columns of `cache` (as parsed from cache.jsonl, `source`, before any journal), atomically. */
export function writeColumns(dir: string, cache: Cache, source: Source): void {
  const n = cache.responses.length;
  const ints = Object.fromEntries(INT_COLUMNS.map((c) => [c, new Int32Array(c === 'ctxStart' ? n + 1 : c === 'ctxRefs' ? 0 : n)])) as Record<
    (typeof INT_COLUMNS)[number],
    Int32Array
  >;
  const nums = Object.fromEntries(NUMBER_COLUMNS.map((c) => [c, new Float64Array(n)])) as Record<(typeof NUMBER_COLUMNS)[number], Float64Array>;
  const answers = new Map<string, number>();
  const ambiguous = new Map<string, number>();
  const disagreements = new Map<string, number>();
  const refs: number[] = [];
  const lazy = Object.fromEntries(LAZY_COLUMNS.map((c) => [c, { offsets: new Float64Array(n + 1), chunks: [] as Buffer[], bytes: 0 }]));
  const intern = (map: Map<string, number>, key: string) => map.get(key) ?? (map.set(key, map.size), map.size - 1);
  for (const [i, r] of cache.responses.entries()) {
    ints.q[i] = r.q;
    ints.a[i] = r.a;
    ints.round[i] = r.round;
    ints.sample[i] = r.sample;
    ints.ans[i] = r.ans;
    ints.prevIndex[i] = r.prevIndex;
    ints.answer[i] = r.answer === null ? -1 : intern(answers, r.answer);
    ints.ambiguous[i] = r.ambiguous ? intern(ambiguous, JSON.stringify(r.ambiguous)) : -1;
    ints.disagreement[i] = r.disagreement ? intern(disagreements, JSON.stringify(r.disagreement)) : -1;
    ints.turn[i] = r.turn ?? -1;
    nums.inTokens[i] = r.inTokens;
    nums.outTokens[i] = r.outTokens;
    // Context in record order: a response as its index, an external or summary entry as -(index + 1).
    ints.ctxStart[i] = refs.length;
    for (const id of r.context) {
      const c = cache.responseIndex.get(id);
      refs.push(c ?? -(cache.externalIndex.get(id)! + 1));
    }
    for (const c of LAZY_COLUMNS) {
      const value = c === 'meta' ? (r.meta === undefined ? '' : JSON.stringify(r.meta)) : r[c];
      const bytes = Buffer.from(value, 'utf8');
      const col = lazy[c];
      col.chunks.push(bytes);
      col.bytes += bytes.length;
      col.offsets[i + 1] = col.bytes;
    }
  }
  ints.ctxStart[n] = refs.length;
  ints.ctxRefs = Int32Array.from(refs);
  const bytesOf = (name: string): Uint8Array[] => {
    if (name in ints) return [new Uint8Array(ints[name as (typeof INT_COLUMNS)[number]].buffer)];
    if (name in nums) return [new Uint8Array(nums[name as (typeof NUMBER_COLUMNS)[number]].buffer)];
    return name.endsWith('Offsets') ? [new Uint8Array(lazy[name.slice(0, -'Offsets'.length)].offsets.buffer)] : lazy[name].chunks;
  };
  const sections = SECTIONS.map((name): [string, Uint8Array[]] => [name, bytesOf(name)]);
  const places: Record<string, Section> = {};
  const body: Uint8Array[] = [];
  let offset = 0;
  for (const [name, chunks] of sections) {
    const bytes = chunks.reduce((s, b) => s + b.length, 0);
    places[name] = { offset, bytes };
    body.push(...chunks, new Uint8Array(pad8(bytes)));
    offset += bytes + pad8(bytes);
  }
  const head: Head = {
    version: VERSION,
    source,
    readings: readingsOf(cache),
    responses: n,
    sections: places,
    header: cache.header,
    agents: cache.agents,
    questions: cache.questions,
    externals: cache.externals,
    answerKeys: cache.answerKeys,
    mathKeys: [...cache.mathKeys].map(([q, m]) => [q, [...m]]),
    symbolic: cache.symbolic,
    answers: [...answers.keys()],
    ambiguous: [...ambiguous.keys()].map((s) => JSON.parse(s)),
    disagreements: [...disagreements.keys()].map((s) => JSON.parse(s)),
  };
  const headBytes = Buffer.from(JSON.stringify(head), 'utf8');
  const prefix = Buffer.alloc(12);
  prefix.write(MAGIC, 0, 'latin1');
  prefix.writeUInt32LE(headBytes.length, 8);
  const file = [prefix, headBytes, new Uint8Array(pad8(12 + headBytes.length)), ...body];
  const hash = createHash('sha256');
  for (const b of file) hash.update(b);
  writeFileAtomic(columnsPath(dir), [...file, hash.digest()]);
}

/** Why a columns file is not used (it is then rebuilt): stale, or damaged. */
export type ColumnsRefusal = { stale: string } | { damaged: string };

/**
 * The cache from `<dir>/cache.columns` when it is there, checks against its SHA-256, matches
 * cache.jsonl (`source`) and today's answer reader; otherwise why not (undefined: no columns
 * file). The file stays open while the cache lives: texts, ids and meta are read from it.
 */
export function readColumns(dir: string, source: Source, file: string): { cache: Cache } | { refused: ColumnsRefusal } | undefined {
  const path = columnsPath(dir);
  if (!existsSync(path)) return undefined;
  const fd = openSync(path, 'r');
  const refused = (why: ColumnsRefusal) => {
    closeSync(fd);
    return { refused: why };
  };
  try {
    const read = checkedHead(fd);
    if ('damaged' in read || 'stale' in read) return refused(read);
    const { head, base } = read;
    if (!sameSource(head.source, source)) return refused({ stale: 'cache.jsonl changed since it was built' });
    const reread = readDifferently(head);
    if (reread) return refused({ stale: `answers are read otherwise since it was built (${reread})` });
    // The file stays open while the cache lives: its lazy columns are read from it.
    return { cache: buildCache(fd, head, base, file) };
  } catch (e) {
    return refused({ damaged: (e as Error).message });
  }
}

/** The head of the columns file `fd` once the whole file checks against its SHA-256, and where its sections begin; else why not. */
function checkedHead(fd: number): { head: Head; base: number } | ColumnsRefusal {
  const size = fstatSync(fd).size;
  const prefix = Buffer.alloc(12);
  if (readSync(fd, prefix, 0, 12, 0) !== 12) return { damaged: `${size} bytes, cut short before its head` };
  const magic = prefix.toString('latin1', 0, 8);
  if (magic === OLDER_MAGIC) return { stale: 'an older layout, whose head its SHA-256 did not cover' };
  if (magic !== MAGIC) return { damaged: 'not a columns file (no magic)' };
  if (size < 12 + DIGEST_BYTES) return { damaged: `${size} bytes, cut short` };
  const digest = Buffer.alloc(DIGEST_BYTES);
  readSync(fd, digest, 0, DIGEST_BYTES, size - DIGEST_BYTES);
  if (fileHash(fd, size - DIGEST_BYTES) !== digest.toString('hex')) return { damaged: 'its content does not match its SHA-256' };
  const length = prefix.readUInt32LE(8);
  if (12 + length > size - DIGEST_BYTES) return { damaged: `a head of ${length} bytes in a file of ${size}` };
  const start = Buffer.alloc(12 + length);
  readSync(fd, start, 0, start.length, 0);
  const { head, base } = columnsHead(start);
  if (head.version !== VERSION) return { damaged: `version ${head.version}, this workbench reads ${VERSION}` };
  const end = Math.max(base, ...Object.values(head.sections).map((s: Section) => base + s.offset + s.bytes + pad8(s.bytes))) + DIGEST_BYTES;
  if (end !== size) return { damaged: `${size} bytes where its sections and SHA-256 end at ${end}` };
  return { head, base };
}

/** The head of a columns file whose first bytes are `start` (at least its prefix and head), and where its sections begin. */
export function columnsHead(start: Buffer): { head: Head; base: number } {
  const length = start.readUInt32LE(8);
  return { head: JSON.parse(start.toString('utf8', 12, 12 + length)) as Head, base: 12 + length + pad8(12 + length) };
}

/** SHA-256 of the first `to` bytes of `fd`. */
function fileHash(fd: number, to: number): string {
  const hash = createHash('sha256');
  const buffer = Buffer.alloc(Math.min(8 << 20, Math.max(1, to)));
  for (let at = 0; at < to; ) {
    const got = readSync(fd, buffer, 0, Math.min(buffer.length, to - at), at);
    if (got === 0) break;
    hash.update(buffer.subarray(0, got));
    at += got;
  }
  return hash.digest('hex');
}
