// `ablate`: train every cell of a grid (train/grid.ts) and report the Table 6 style table
// (eval/table6.ts), with the wall time.
import type { Split } from '../src/cache/format.ts';
import type { ComputeSettings } from '../src/policy/backends.ts';
import { ensureDefaultCache } from '../src/sim/generate.ts';
import { expandGrid, readGrid, runGrid, type GridFile } from '../train/grid.ts';
import { ablationReport } from './table6.ts';

export interface AblateOptions {
  grid: string;
  /** Results folder; default results/<grid name>. */
  out?: string;
  workers: number;
  split: Split;
  /** Engine, threads and backend of cells whose grid settings are silent, and of the evaluation. */
  compute: ComputeSettings;
  /** Debate rounds of every cell and of the table's Full-Debate (--rounds): overrides the grid's, said when it does. */
  rounds?: number;
  log?: (line: string) => void;
}

/** The grid with every cell and the table at `rounds`; each grid setting it overrides is named. */
export function withRounds(grid: GridFile, file: string, rounds: number | undefined, log: (line: string) => void): GridFile {
  if (rounds === undefined) return grid;
  if (grid.base.rounds !== undefined && grid.base.rounds !== rounds) log(`--rounds ${rounds} overrides rounds ${grid.base.rounds} of ${file} (base)`);
  for (const v of grid.variants) if (v.settings.rounds !== undefined && v.settings.rounds !== rounds) log(`--rounds ${rounds} overrides rounds ${v.settings.rounds} of ${file} (variant '${v.name}')`);
  return { ...grid, base: { ...grid.base, rounds }, variants: grid.variants.map((v) => ({ ...v, settings: { ...v.settings, rounds } })) };
}

export async function ablateJob(o: AblateOptions): Promise<{ text: string; failed: number }> {
  const started = Date.now();
  const grid = withRounds(readGrid(o.grid), o.grid, o.rounds, o.log ?? ((line) => console.error(line)));
  const results = o.out ?? `results/${grid.name}`;
  for (const cache of grid.caches) ensureDefaultCache(cache);
  const outcomes = await runGrid(expandGrid(grid, results, o.compute), o.workers);
  const { markdown, files } = await ablationReport(grid, outcomes, results, o.split, o.compute);
  const count = (s: string) => outcomes.filter((x) => x.status === s).length;
  const failed = count('failed');
  const minutes = ((Date.now() - started) / 60000).toFixed(1);
  return {
    text: `${markdown}\n\nwritten: ${files.join(', ')}\nwall time ${minutes} min for ${outcomes.length} cells (${count('trained')} trained, ${count('reused')} reused, ${failed} failed) with ${o.workers} workers`,
    failed,
  };
}
