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
import { basename, dirname, join } from 'node:path';
import { normalizeAnswer } from '../answer.ts';
import { buildCache } from './columnsCache.ts';
import { CACHE_FILE } from './format.ts';
import { journalPath } from './journal.ts';
import { DIGEST_BYTES, type Head, MAGIC, OLDER_MAGIC, pad8, type Section, type Source, VERSION } from './columnsLayout.ts';
import { startColumns } from './columnsWriter.ts';
import type { Cache } from './types.ts';
import { runSteps } from '../io/interrupt.ts';

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
/** The state of a cache's records now: sourceState of `<dir>/cache.jsonl` and of its record journal (null: none), what a file derived from them is bound to. */
export function recordsState(dir: string): { cache: Source; journal: Source | null } {
  const journal = journalPath(dir);
  return { cache: sourceState(join(dir, CACHE_FILE)), journal: existsSync(journal) ? sourceState(journal) : null };
}
/**
 * What a file derived from `cache`'s records is bound to now: recordsState of its folder and the
 * numbers of questions, agents and responses the cache holds; undefined for a cache not read from
 * a folder's cache.jsonl (nothing is kept for it).
 */
export function recordsBinding(cache: Cache): string | undefined {
  if (basename(cache.file) !== CACHE_FILE || !existsSync(cache.file)) return undefined;
  const held = { questions: cache.questions.length, agents: cache.agents.length, responses: cache.responses.length };
  return JSON.stringify({ ...recordsState(dirname(cache.file)), held });
}
export const sameSource = (a: Source, b: Source) => a.size === b.size && a.mtimeMs === b.mtimeMs && a.ino === b.ino && a.ends === b.ends;

/** Readings checked a step. */
const READINGS_STEP = 1024;

/** The first stored answer that today's reader normalizes otherwise than the one that built the columns, if any. */
function* readDifferently(head: Head): Generator<unknown, string | undefined> {
  for (const [k, [type, raw, normalized]] of head.readings.entries()) {
    if (k % READINGS_STEP === READINGS_STEP - 1) yield;
    const now = normalizeAnswer(raw, type);
    if (now !== normalized) return `the ${type} answer '${raw}' now reads as ${JSON.stringify(now)}, not ${JSON.stringify(normalized)}`;
  }
  return undefined;
}

/**
 * Write the columns of a whole `cache` (as parsed from cache.jsonl, `source`, before any journal),
 * atomically. A cache being parsed is written as it is parsed instead (load.ts, parse.ts).
 */
export function writeColumns(dir: string, cache: Cache, source: Source): void {
  const build = startColumns(columnsPath(dir));
  try {
    for (const r of cache.responses) build.add(r, r.q, r.a, r.ans, cache.questions[r.q].answerType);
    for (const r of cache.responses)
      build.resolved(
        r.index,
        r.context.map((id) => cache.responseIndex.get(id) ?? -(cache.externalIndex.get(id)! + 1)),
        r.prevIndex,
      );
    runSteps(build.finish(cache, source));
  } finally {
    build.close();
  }
}

/** Why a columns file is not used (it is then rebuilt): stale, or damaged. */
export type ColumnsRefusal = { stale: string } | { damaged: string };

/**
 * The cache from `<dir>/cache.columns` when it is there, checks against its SHA-256, matches
 * cache.jsonl (`source`) and today's answer reader; otherwise why not (undefined: no columns
 * file). The file stays open while the cache lives: texts, ids and meta are read from it.
 */
export const readColumns = (dir: string, source: Source, file: string): ColumnsRead => runSteps(readColumnsSteps(dir, source, file));

export type ColumnsRead = { cache: Cache } | { refused: ColumnsRefusal } | undefined;

/** readColumns as steps (src/io/interrupt.ts): its hash of the file, its check of the readings and its build of the cache yield as they go. */
export function* readColumnsSteps(dir: string, source: Source, file: string): Generator<unknown, ColumnsRead> {
  const path = columnsPath(dir);
  if (!existsSync(path)) return undefined;
  const fd = openSync(path, 'r');
  const refused = (why: ColumnsRefusal) => {
    closeSync(fd);
    return { refused: why };
  };
  try {
    const read = yield* checkedHead(fd);
    if ('damaged' in read || 'stale' in read) return refused(read);
    const { head, base } = read;
    if (!sameSource(head.source, source)) return refused({ stale: 'cache.jsonl changed since it was built' });
    const reread = yield* readDifferently(head);
    if (reread) return refused({ stale: `answers are read otherwise since it was built (${reread})` });
    // The file stays open while the cache lives: its lazy columns are read from it.
    return { cache: yield* buildCache(fd, head, base, file) };
  } catch (e) {
    return refused({ damaged: (e as Error).message });
  }
}

/** The head of the columns file `fd` once the whole file checks against its SHA-256, and where its sections begin; else why not. */
function* checkedHead(fd: number): Generator<unknown, { head: Head; base: number } | ColumnsRefusal> {
  const size = fstatSync(fd).size;
  const prefix = Buffer.alloc(12);
  if (readSync(fd, prefix, 0, 12, 0) !== 12) return { damaged: `${size} bytes, cut short before its head` };
  const magic = prefix.toString('latin1', 0, 8);
  if (magic === OLDER_MAGIC) return { stale: 'an older layout, whose head its SHA-256 did not cover' };
  if (magic !== MAGIC) return { damaged: 'not a columns file (no magic)' };
  if (size < 12 + DIGEST_BYTES) return { damaged: `${size} bytes, cut short` };
  const digest = Buffer.alloc(DIGEST_BYTES);
  readSync(fd, digest, 0, DIGEST_BYTES, size - DIGEST_BYTES);
  if ((yield* fileHash(fd, size - DIGEST_BYTES)) !== digest.toString('hex')) return { damaged: 'its content does not match its SHA-256' };
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

/** Bytes hashed a step. */
const HASH_STEP = 8 << 20;

/** SHA-256 of the first `to` bytes of `fd`, a step every HASH_STEP bytes. */
function* fileHash(fd: number, to: number): Generator<unknown, string> {
  const hash = createHash('sha256');
  const buffer = Buffer.alloc(Math.min(HASH_STEP, Math.max(1, to)));
  for (let at = 0; at < to; ) {
    const got = readSync(fd, buffer, 0, Math.min(buffer.length, to - at), at);
    if (got === 0) break;
    hash.update(buffer.subarray(0, got));
    at += got;
    yield;
  }
  return hash.digest('hex');
}
