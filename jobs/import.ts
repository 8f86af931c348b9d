// `cache import`: recorded debates into a new cache (src/cache/importDu.ts), then the import report
// (eval/importReport.ts), printed and saved beside the cache.
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { formatImportProblem, importDuSteps, ModelPrice, PriceFile, type DuImportOptions, type ImportProgress } from '../src/cache/importDu.ts';
import { peerSummary } from '../src/cache/peerMarkers.ts';
import { onInterrupt, stoppableSteps } from '../src/io/interrupt.ts';
import { parseSettings } from '../src/io/problems.ts';
import { readJsonFile } from '../src/io/jsonFile.ts';
import { applyJournal, cacheFilePath } from '../src/cache/load.ts';
import { writeFileAtomic } from '../src/io/atomic.ts';
import { journalPath } from '../src/cache/journal.ts';
import { replacedWithCache, writeCacheRecordsYielding } from '../src/cache/write.ts';
import { withLock } from '../src/io/lock.ts';
import { spilledRecords, type RecordStore } from '../src/cache/recordSpill.ts';
import { droppedReport, importReportSteps } from '../eval/importReport.ts';
import { InputError, RefusedError } from '../src/io/errors.ts';
import { CacheError } from '../src/cache/types.ts';

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
 * removed again); a cache already there is replaced only with `force`. Stopped (Ctrl-C) while it
 * reads the files or writes the cache, it writes nothing (the rename never happens) and says how
 * far it got; a rerun starts over.
 */
export function importJob(o: ImportOptions): Promise<string> {
  return withLock(o.out, 'a cache (cache import)', () => importLocked(o));
}

async function importLocked(o: ImportOptions): Promise<string> {
  const had = existsSync(cacheFilePath(o.out));
  if (had && !o.force) throw new RefusedError(`${o.out} already holds a cache (${cacheFilePath(o.out)}): pass --force to replace it, or choose another --out`);
  const progress: ImportProgress = { files: 0, problems: 0 };
  let writing = false;
  const unregister = onInterrupt({
    say: () => [
      `cache import stopped ${writing ? 'while writing the cache, ' : ''}after reading ${progress.problems} problem${progress.problems === 1 ? '' : 's'} (${progress.files} of ${o.files.length} files whole); ` +
        `nothing was written: ${had ? `the cache in ${o.out} is unchanged` : `${o.out} holds no cache`}; a rerun imports every file from the start`,
    ],
  });
  try {
    return await importStoppable(o, progress, () => (writing = true));
  } finally {
    unregister();
  }
}

async function importStoppable(o: ImportOptions, progress: ImportProgress, writing: () => void): Promise<string> {
  // Each problem's records are spilled beside the cache as it is read: what the import holds does not grow with the texts.
  const stored = { externals: spilledRecords(spillPath(o.out, 'externals')), responses: spilledRecords(spillPath(o.out, 'responses')) };
  try {
    return await importSpilled(o, progress, writing, stored);
  } finally {
    stored.externals.close();
    stored.responses.close();
  }
}

const spillPath = (out: string, kind: string) => join(out, `import.${process.pid}.${kind}.tmp`);

async function importSpilled(
  o: ImportOptions,
  progress: ImportProgress,
  writing: () => void,
  stored: { externals: RecordStore; responses: RecordStore },
): Promise<string> {
  const result = await stoppableSteps(importDuSteps(o.files, o, progress, stored));
  const problems = result.problems.map(formatImportProblem);
  if (result.imported === 0) throw new InputError(`nothing imported from ${o.files.join(', ')}:\n  ${problems.join('\n  ')}`);
  writing();
  let report = '';
  // The report is made from the cache as checked, before the rename (a stop meanwhile writes nothing);
  // from the rename on, only short writes remain.
  await writeCacheRecordsYielding(o.out, result.records, function* (written) {
    // A journal left in the folder without --force is read with the cache; with --force it goes with the cache replaced.
    if (!o.force && existsSync(journalPath(o.out))) {
      const journal = applyJournal(written, o.out);
      if (journal.problems.length) throw new CacheError(journal.problems);
      journal.warnings.forEach((w) => console.error(w));
    }
    report = [
      `imported ${result.imported} of ${result.read} problems from ${o.files.length} file${o.files.length === 1 ? '' : 's'} into ${cacheFilePath(o.out)}`,
      `${problems.length} problem${problems.length === 1 ? '' : 's'} reported${problems.length ? ':' : ''}`,
      ...problems.map((p) => `  ${p}`),
      peerSummary(result.peers),
      droppedReport(result.dropped, o.answerType),
      '',
      yield* importReportSteps(written),
    ].join('\n');
  });
  // The journal and report of the cache replaced went with it (they describe its records).
  if (o.force) for (const f of replacedWithCache(o.out)) rmSync(f, { force: true });
  writeFileAtomic(join(o.out, 'import-report.md'), [report + '\n']);
  return report;
}
