// `cache from-parquet` and `cache to-parquet`: a cache from a Parquet table of records and back
// (src/cache/parquet.ts), with the import report of `cache import` (eval/importReport.ts).
import { existsSync, rmSync } from 'node:fs';
import { basename, join } from 'node:path';
import { ANSWER_TYPES } from '../src/answer.ts';
import { CACHE_FORMAT, CACHE_VERSION, type CacheLine } from '../src/cache/format.ts';
import { cacheFilePath, loadCache } from '../src/cache/load.ts';
import type { DroppedReading } from '../src/cache/importDu.ts';
import { parquetRecords, recordsToParquet, rowProblems, tableProblem } from '../src/cache/parquet.ts';
import { CacheError, type Cache } from '../src/cache/types.ts';
import { cacheRecords, replacedWithCache, writeCacheRecords } from '../src/cache/write.ts';
import { writeFileAtomic } from '../src/io/atomic.ts';
import { RefusedError } from '../src/io/errors.ts';
import { withLock } from '../src/io/lock.ts';
import { droppedReport, importReport } from '../eval/importReport.ts';

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
 * cache with its report or no new cache (a report alone, which the rerun replaces).
 */
export function importParquetJob(o: ParquetImportOptions): Promise<string> {
  return withLock(o.out, 'a cache (cache from-parquet)', async () => {
    if (existsSync(cacheFilePath(o.out)) && !o.force)
      throw new RefusedError(`${o.out} already holds a cache (${cacheFilePath(o.out)}): pass --force to replace it, or choose another --out`);
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
      writeCacheRecords(o.out, headerMade ? [header, ...records] : records, (cache) => {
        report = importedReport(o.file, cacheFilePath(o.out), cache, answersRead, dropped);
        if (o.force) for (const f of replacedWithCache(o.out)) rmSync(f, { force: true });
        writeFileAtomic(join(o.out, 'import-report.md'), [`${report}\n`]);
      });
    } catch (e) {
      // The rows were checked one by one; what only the whole cache shows (a reference to an unknown id) is named at its row too.
      throw e instanceof CacheError ? tableProblem(o.file, rowProblems(e.problems, headerMade)) : e;
    }
    return report;
  });
}

function importedReport(file: string, cacheFile: string, cache: Cache, answersRead: number, dropped: DroppedReading[]): string {
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
    importReport(cache),
  ].join('\n');
}

/** Write the cache in `dir` (its journal included) as a Parquet table, one row per record. */
export function exportParquetJob(dir: string, out: string): string {
  const cache = loadCache(dir);
  const records = cacheRecords(cache);
  writeFileAtomic(out, [new Uint8Array(recordsToParquet(records))]);
  return `wrote ${records.length} records of ${cacheFilePath(dir)}${cache.journal ? ` and its journal` : ''} to ${out} (Parquet, one row per record)`;
}
