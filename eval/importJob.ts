// `cache import`: recorded debates into a new cache (src/cache/importDu.ts), then the import report
// (eval/importReport.ts), printed and saved beside the cache.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { formatImportProblem, importDu, peerSummary, PriceFile, type DuImportOptions } from '../src/cache/importDu.ts';
import { readJsonFile } from '../src/jsonFile.ts';
import { cacheFilePath, loadCache } from '../src/cache/load.ts';
import { writeCacheRecords, writeFileAtomic } from '../src/cache/write.ts';
import { importReport } from './importReport.ts';

export interface ImportOptions extends DuImportOptions {
  files: string[];
  /** Folder of the new cache (it must not hold one yet). */
  out: string;
}

/** Prices per model: from a `--prices` file, else `--price-in`/`--price-out` for every model it does not name. */
export function pricesOf(models: string[], file?: string, priceIn?: number, priceOut?: number): ImportOptions['prices'] {
  const prices = { ...(file ? readJsonFile(file, PriceFile) : {}) };
  for (const model of models) if (!prices[model] && priceIn !== undefined && priceOut !== undefined) prices[model] = { in: priceIn, out: priceOut };
  return prices;
}

export function importJob(o: ImportOptions): string {
  if (existsSync(cacheFilePath(o.out))) throw new Error(`${o.out} already holds a cache: choose another --out, or delete it first`);
  const result = importDu(o.files, o);
  const problems = result.problems.map(formatImportProblem);
  if (result.imported === 0) throw new Error(`nothing imported from ${o.files.join(', ')}:\n  ${problems.join('\n  ')}`);
  writeCacheRecords(o.out, result.records);
  const report = [
    `imported ${result.imported} of ${result.read} problems from ${o.files.length} file${o.files.length === 1 ? '' : 's'} into ${cacheFilePath(o.out)}`,
    `${problems.length} problem${problems.length === 1 ? '' : 's'} reported${problems.length ? ':' : ''}`,
    ...problems.map((p) => `  ${p}`),
    peerSummary(result.peers),
    '',
    importReport(loadCache(o.out)),
  ].join('\n');
  writeFileAtomic(join(o.out, 'import-report.md'), [report + '\n']);
  return report;
}
