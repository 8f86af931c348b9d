// `cache from-parquet` and `cache to-parquet`: a cache from a Parquet table of records and back
// (src/cache/parquet.ts), with the import report of `cache import` (eval/importReport.ts).
import { existsSync, rmSync } from 'node:fs';
import { basename, join } from 'node:path';
import { ANSWER_TYPES } from '../src/answer.ts';
import { CACHE_FORMAT, CACHE_VERSION, type CacheLine } from '../src/cache/format.ts';
import { cacheFilePath, loadCacheSteps } from '../src/cache/load.ts';
import type { DroppedReading } from '../src/cache/importDu.ts';
import { parquetRecords, recordsToParquetSteps, rowProblems, tableProblem } from '../src/cache/parquet.ts';
import { CacheError, type Cache } from '../src/cache/types.ts';
import { cacheRecords, replacedWithCache, writeCacheRecordsYielding } from '../src/cache/write.ts';
import { writeFileAtomic } from '../src/io/atomic.ts';
import { RefusedError } from '../src/io/errors.ts';
import { withLock } from '../src/io/lock.ts';
import { droppedReport, importReportSteps } from '../eval/importReport.ts';
import { onInterrupt, stoppableSteps } from '../src/io/interrupt.ts';

export interface ParquetImportOptions {
  file: string;
  out: string;
  /** Cache name when the table has no `cache` row (default: the folder name). */
  name?: string;
  force?: boolean;
}

/**
 * Import a Parquet table into the cache `o.out` (locked meanwhile; checked before it is renamed into
 * place) with its report, written before the cache is renamed into place: a kill leaves either the
 * cache with its report or no new cache (a report alone, which the rerun replaces). Stopped (Ctrl-C)
 * before the rename, it writes nothing: the cache is written with stop points and its report made
 * as steps.
 */
export function importParquetJob(o: ParquetImportOptions): Promise<string> {
  return withLock(o.out, 'a cache (cache from-parquet)', async () => {
    const had = existsSync(cacheFilePath(o.out));
    if (had && !o.force)
      throw new RefusedError(`${o.out} already holds a cache (${cacheFilePath(o.out)}): pass --force to replace it, or choose another --out`);
    const unregister = onInterrupt({
      say: () => [
        `cache from-parquet stopped; nothing was written: ${had ? `the cache in ${o.out} is unchanged` : `${o.out} holds no cache`}; a rerun imports from the start`,
      ],
    });
    try {
      return await importParquetStoppable(o);
    } finally {
      unregister();
    }
  });
}

async function importParquetStoppable(o: ParquetImportOptions): Promise<string> {
  const { records, answersRead, dropped } = await parquetRecords(o.file);
  const header: CacheLine = {
    type: 'cache',
    format: CACHE_FORMAT,
    version: CACHE_VERSION,
    name: o.name ?? basename(o.out),
    source: 'imported',
    meta: { format: 'parquet', file: basename(o.file) },
  };
  const headerMade = !records.some((r) => r.type === 'cache');
  let report = '';
  try {
    await writeCacheRecordsYielding(o.out, headerMade ? [header, ...records] : records, function* (cache) {
      report = yield* importedReportSteps(o.file, cacheFilePath(o.out), cache, answersRead, dropped);
      // From here to the rename, no stop point: a stop writes either both or neither.
      if (o.force) for (const f of replacedWithCache(o.out)) rmSync(f, { force: true });
      writeFileAtomic(join(o.out, 'import-report.md'), [`${report}\n`]);
    });
  } catch (e) {
    // The rows were checked one by one; what only the whole cache shows (a reference to an unknown id) is named at its row too.
    throw e instanceof CacheError ? tableProblem(o.file, rowProblems(e.problems, headerMade)) : e;
  }
  return report;
}

function* importedReportSteps(file: string, cacheFile: string, cache: Cache, answersRead: number, dropped: DroppedReading[]): Generator<unknown, string> {
  const types = ANSWER_TYPES.filter((t) => cache.questions.some((q) => q.answerType === t));
  return [
    `imported ${cache.questions.length} questions, ${cache.responses.length} responses and ${cache.externals.length} external or summary entries from ${file} into ${cacheFile}`,
    answersRead ? `answers read from the texts (the table has no answer column): ${answersRead}` : 'answers as stored in the table',
    ...types.map((t) =>
      droppedReport(
        dropped.filter((d) => cache.questions[cache.questionIndex.get(d.question)!].answerType === t),
        t,
      ),
    ),
    '',
    yield* importReportSteps(cache),
  ].join('\n');
}

/**
 * Write the cache in `dir` (its journal included) as a Parquet table, one row per record, atomically;
 * stopped (Ctrl-C) while it loads the cache or makes the table (a stop point between row groups), it writes nothing.
 */
export async function exportParquetJob(dir: string, out: string): Promise<string> {
  const unregister = onInterrupt({ say: () => [`cache to-parquet ${dir} stopped before it wrote ${out}; nothing was written: a rerun starts over`] });
  const { cache, records, table } = await stoppableSteps(
    (function* () {
      const cache = yield* loadCacheSteps(dir);
      const records = yield* cacheRecordsSteps(cache);
      return { cache, records, table: yield* recordsToParquetSteps(records) };
    })(),
  ).finally(unregister);
  writeFileAtomic(out, [new Uint8Array(table)]);
  return `wrote ${records.length} records of ${cacheFilePath(dir)}${cache.journal ? ` and its journal` : ''} to ${out} (Parquet, one row per record)`;
}

/** Responses a step of cacheRecordsSteps reads (a loaded cache's responses may be read lazily from cache.columns). */
const RESPONSES_A_STEP = 4096;

/**
 * cacheRecords (write.ts) of `cache` as steps (src/io/interrupt.ts): the records of its header,
 * agents, questions and externals, then those of its responses RESPONSES_A_STEP at a time (each
 * slice's records are cacheRecords' of a cache holding only that slice, less the header).
 */
function* cacheRecordsSteps(cache: Cache): Generator<unknown, CacheLine[]> {
  const records = cacheRecords({ ...cache, responses: [] });
  const none = { ...cache, agents: [], questions: [], externals: [] };
  for (let at = 0; at < cache.responses.length; at += RESPONSES_A_STEP) {
    yield 'cache records';
    records.push(...cacheRecords({ ...none, responses: cache.responses.slice(at, at + RESPONSES_A_STEP) }).slice(1));
  }
  return records;
}
