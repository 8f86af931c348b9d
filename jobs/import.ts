// `cache import`: recorded debates into a new cache (src/cache/importDu.ts), then the import report
// (eval/importReport.ts), printed and saved beside the cache.
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { formatImportProblem, importDu, ModelPrice, peerSummary, PriceFile, type DuImportOptions } from '../src/cache/importDu.ts';
import { parseSettings } from '../src/io/problems.ts';
import { readJsonFile } from '../src/io/jsonFile.ts';
import { cacheFilePath, loadCache } from '../src/cache/load.ts';
import { writeFileAtomic } from '../src/io/atomic.ts';
import { journalPath } from '../src/cache/journal.ts';
import { replacedWithCache, writeCacheRecords } from '../src/cache/write.ts';
import { withLockSync } from '../src/io/lock.ts';
import { droppedReport, importReport } from '../eval/importReport.ts';
import { InputError, RefusedError } from '../src/io/errors.ts';

export interface ImportOptions extends DuImportOptions {
  files: string[];
  /** Folder of the new cache (it must not hold one yet, unless `force`). */
  out: string;
  /** Replace the cache `out` holds (with its journal and import report); else that is an error. */
  force?: boolean;
}

/** Prices per model: from a `--prices` file, else `--price-in`/`--price-out` for every model it does not name. */
export function pricesOf(models: string[], file?: string, priceIn?: number, priceOut?: number): ImportOptions['prices'] {
  const prices = { ...(file ? readJsonFile(file, PriceFile) : {}) };
  const flags = parseSettings(ModelPrice.partial(), { in: priceIn, out: priceOut }, (field) => `--price-${field}`);
  for (const model of models) if (!prices[model] && flags.in !== undefined && flags.out !== undefined) prices[model] = { in: flags.in, out: flags.out };
  return prices;
}

/**
 * Import into `o.out`, locked meanwhile. The new cache.jsonl is checked (loaded back) before it is
 * renamed into place, so a refused import leaves the folder as it was (a folder made for it is
 * removed again); a cache already there is replaced only with `force`.
 */
export function importJob(o: ImportOptions): string {
  return withLockSync(o.out, 'a cache (cache import)', () => importLocked(o));
}

function importLocked(o: ImportOptions): string {
  if (existsSync(cacheFilePath(o.out)) && !o.force)
    throw new RefusedError(`${o.out} already holds a cache (${cacheFilePath(o.out)}): pass --force to replace it, or choose another --out`);
  const result = importDu(o.files, o);
  const problems = result.problems.map(formatImportProblem);
  if (result.imported === 0) throw new InputError(`nothing imported from ${o.files.join(', ')}:\n  ${problems.join('\n  ')}`);
  const written = writeCacheRecords(o.out, letGo(result.records));
  // The journal and report of the cache replaced went with it (they describe its records).
  if (o.force) for (const f of replacedWithCache(o.out)) rmSync(f, { force: true });
  // The report reads the cache as it was checked when written (a journal left there without --force is read with it).
  const cache = existsSync(journalPath(o.out)) ? loadCache(o.out) : written;
  const report = [
    `imported ${result.imported} of ${result.read} problems from ${o.files.length} file${o.files.length === 1 ? '' : 's'} into ${cacheFilePath(o.out)}`,
    `${problems.length} problem${problems.length === 1 ? '' : 's'} reported${problems.length ? ':' : ''}`,
    ...problems.map((p) => `  ${p}`),
    peerSummary(result.peers),
    droppedReport(result.dropped, o.answerType),
    '',
    importReport(cache),
  ].join('\n');
  writeFileAtomic(join(o.out, 'import-report.md'), [report + '\n']);
  return report;
}

/** The records, each let go of once it is written: the cache read back holds them again, and two copies of every text need not be held at once. */
function* letGo<T>(records: (T | undefined)[]): Generator<T> {
  for (let i = 0; i < records.length; i++) {
    const r = records[i] as T;
    records[i] = undefined;
    yield r;
  }
}
