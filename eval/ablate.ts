// `ablate`: train every cell of a grid (train/grid.ts) and report the Table 6 style table
// (eval/table6.ts), with the wall time.
import type { Split } from '../src/cache/format.ts';
import type { ComputeSettings } from '../src/policy/backends.ts';
import { ensureDefaultCache } from '../src/sim/generate.ts';
import { resolveConfig } from '../train/config.ts';
import { expandGrid, readGrid, runGrid } from '../train/grid.ts';
import { ablationReport } from './table6.ts';

export interface AblateOptions {
  grid: string;
  /** Results folder; default results/<grid name>. */
  out?: string;
  workers: number;
  split: Split;
  /** Engine, threads and backend of cells whose grid settings are silent, and of the evaluation. */
  compute: ComputeSettings;
  /** Team file of the record tier of the cells that train with miss = record. */
  endpoints?: string;
}

export async function ablateJob(o: AblateOptions): Promise<{ text: string; failed: number }> {
  const started = Date.now();
  const grid = readGrid(o.grid);
  const results = o.out ?? `results/${grid.name}`;
  for (const cache of grid.caches) ensureDefaultCache(cache);
  const cells = expandGrid(grid, results, o.compute);
  if (o.endpoints !== undefined) {
    const recording = cells.filter((c) => resolveConfig(c.settings).miss === 'record');
    if (recording.length === 0) throw new Error(`--endpoints ${o.endpoints}: no cell of grid ${grid.name} trains with miss = record, so no endpoint would be asked`);
    for (const c of recording) c.settings.endpoints ??= o.endpoints;
  }
  const outcomes = await runGrid(cells, o.workers);
  const { markdown, files } = await ablationReport(grid, outcomes, results, o.split, o.compute);
  const count = (s: string) => outcomes.filter((x) => x.status === s).length;
  const failed = count('failed');
  const minutes = ((Date.now() - started) / 60000).toFixed(1);
  return {
    text: `${markdown}\n\nwritten: ${files.join(', ')}\nwall time ${minutes} min for ${outcomes.length} cells (${count('trained')} trained, ${count('reused')} reused, ${failed} failed) with ${o.workers} workers`,
    failed,
  };
}
