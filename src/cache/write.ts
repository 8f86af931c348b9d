// Writing caches. Every write goes to a temporary file that is flushed to disk (fsync), checked
// where a check is given, and only then renamed into place (and the rename flushed), so an
// interrupted write, a power loss or a failed check never leaves a half-written or invalid file.
import { existsSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { COLUMNS_MIN_BYTES, columnsPath, sourceState } from './columns.ts';
import { AgentRecord, FIT_FILE, ExternalRecord, QuestionRecord, ResponseRecord, SummaryRecord, type CacheLine } from './format.ts';
import { journalPath } from './journal.ts';
import { CacheError, type Cache } from './types.ts';
import { cacheFilePath, loadCacheSteps, parsedIntoColumns, parseCacheSteps } from './load.ts';
import { removeOnExit, writeFileAtomic, writeFileAtomicYielding } from '../io/atomic.ts';
import { fileLines } from '../io/textFile.ts';
import { withLock } from '../io/lock.ts';
import { runSteps, stoppableSteps } from '../io/interrupt.ts';

/** Copy only the fields a schema declares, dropping the loader's index fields. */
function pick<T extends object>(shape: object, value: object): T {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(shape)) {
    const v = (value as Record<string, unknown>)[key];
    if (v !== undefined) out[key] = v;
  }
  return out as T;
}

export function cacheRecords(cache: Cache): CacheLine[] {
  return [
    cache.header,
    ...cache.agents.map((a) => pick<CacheLine>(AgentRecord.shape, a)),
    ...cache.questions.map((q) => pick<CacheLine>(QuestionRecord.shape, q)),
    ...cache.externals.map((e) => pick<CacheLine>(e.type === 'summary' ? SummaryRecord.shape : ExternalRecord.shape, e)),
    ...cache.responses.map((r) => pick<CacheLine>(ResponseRecord.shape, r)),
  ];
}

/** Lines joined into chunks of about 1 MB, so large files are written without one huge string. */
export function* chunked(lines: Iterable<string>): Generator<string> {
  let out = '';
  for (const line of lines) {
    out += line + '\n';
    if (out.length > 1 << 20) {
      yield out;
      out = '';
    }
  }
  if (out) yield out;
}

export function* serializeRecords(records: Iterable<CacheLine>): Generator<string> {
  for (const r of records) yield JSON.stringify(r);
}

/**
 * Write a cache.jsonl; it is loaded back (parsed and checked) before it is renamed into place, so
 * an invalid cache never replaces one. Returns what it loaded back: the cache as loadCache reads
 * the file (without a record journal). `beforeRename` sees that cache once checked, before the
 * rename: what belongs with the cache (an import report) is written there, so that a kill leaves
 * no cache without it.
 */
export function writeCacheRecords(dir: string, records: Iterable<CacheLine>, beforeRename?: (cache: Cache) => void): Cache {
  let written: Cache | undefined;
  writeFileAtomic(cacheFilePath(dir), chunked(serializeRecords(records)), (tmp) => {
    written = runSteps(checkCacheSteps(dir, tmp));
    beforeRename?.(written);
  });
  return written!;
}

/**
 * `writeCacheRecords` letting signals in between chunks (about 1 MB) and steps of its check, so that
 * a stop (SIGINT) takes effect within a long write, before the rename. `beforeRename`: steps run on
 * the checked cache before the rename (an import's report), stoppable alike. Without it, the cache
 * is checked and its columns written, but no cache is served from them (`cache gen` needs none).
 */
export async function writeCacheRecordsYielding(
  dir: string,
  records: Iterable<CacheLine>,
  beforeRename?: (cache: Cache) => Generator<unknown, void>,
): Promise<void> {
  // The columns its check writes for a new cache go with the process if it stops before the rename (no cache, no columns).
  const forget = existsSync(columnsPath(dir)) ? () => true : removeOnExit(columnsPath(dir));
  try {
    await writeFileAtomicYielding(cacheFilePath(dir), chunked(serializeRecords(records)), function* (tmp) {
      const written = yield* checkCacheSteps(dir, tmp, beforeRename !== undefined);
      if (beforeRename) yield* beforeRename(written!);
    });
  } finally {
    forget();
  }
}

/**
 * The check of a cache written to `tmp` for the folder `dir`: every line parses; the cache it holds
 * (unless not `served`). A large cache is parsed into its columns (so its first load need not parse
 * it again, and its texts are never all held), built for `tmp`, whose stat its rename into place
 * keeps (should the rename not happen, they do not match the cache.jsonl there and are rebuilt when
 * it is loaded), and served from them; a small one is held as parsed.
 */
function checkCacheSteps(dir: string, tmp: string): Generator<unknown, Cache>;
function checkCacheSteps(dir: string, tmp: string, served: boolean): Generator<unknown, Cache | undefined>;
function* checkCacheSteps(dir: string, tmp: string, served = true): Generator<unknown, Cache | undefined> {
  if (statSync(tmp).size >= COLUMNS_MIN_BYTES) return yield* parsedIntoColumns(dir, tmp, sourceState(tmp), cacheFilePath(dir), served);
  const { cache, problems } = yield* parseCacheSteps(fileLines(tmp), cacheFilePath(dir));
  if (!cache) throw new CacheError(problems);
  return cache;
}

/** Files that belong to the cache in `dir` and go when it is replaced (--force): its record journal, import report and fitted simulator. */
export const replacedWithCache = (dir: string) => [journalPath(dir), join(dir, 'import-report.md'), join(dir, FIT_FILE)];

export function saveCache(dir: string, cache: Cache): void {
  writeCacheRecords(dir, cacheRecords(cache));
}

/**
 * Fold the record tier's journal into cache.jsonl: the cache (journal included) is rewritten
 * atomically, then the journal is replaced by its unanswered intents only (or removed). A crash
 * between the two steps leaves journal responses that equal cache.jsonl's, which loading skips.
 * Run it when no process is recording into the cache: a journal that grew meanwhile is left whole.
 */
export function compactCache(dir: string): Promise<{ responses: number; unanswered: number; journalKept: boolean }> {
  return withLock(dir, 'a cache (cache compact)', () => compactLocked(dir));
}

/** Loaded and rewritten with stop points (src/io/interrupt.ts): stopped before the rename, the cache and its journal are as they were. */
async function compactLocked(dir: string): Promise<{ responses: number; unanswered: number; journalKept: boolean }> {
  const cache = await stoppableSteps(loadCacheSteps(dir));
  const journal = cache.journal;
  if (!journal) return { responses: 0, unanswered: 0, journalKept: false };
  await writeCacheRecordsYielding(dir, cacheRecords(cache));
  const file = journalPath(dir);
  const journalKept = existsSync(file) && statSync(file).size !== journal.bytes;
  if (!journalKept) {
    if (journal.unanswered.size)
      writeFileAtomic(
        file,
        [...journal.unanswered].map(([id, key]) => JSON.stringify({ type: 'intent', id, key }) + '\n'),
      );
    else rmSync(file);
  }
  return { responses: journal.responses, unanswered: journal.unanswered.size, journalKept };
}
