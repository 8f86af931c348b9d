// `ablate`: train every cell of a grid (train/grid.ts) with local worker processes, or with the
// workers of a Redis queue (train/queue/), and report the Table 6 style table (eval/table6.ts), with
// the wall time.
import type { Split } from '../src/cache/format.ts';
import type { ComputeSettings } from '../src/policy/backends.ts';
import { ensureDefaultCache } from '../src/sim/generate.ts';
import { expandGrid, readGrid, runGrid } from '../train/grid.ts';
import { runQueuedGrid } from '../train/queue/coordinator.ts';
import { parseQueueUrl } from '../train/queue/redis.ts';
import { ablationReport } from './table6.ts';

export interface AblateOptions {
  grid: string;
  /** Results folder; default results/<grid name>. */
  out?: string;
  workers: number;
  /** A Redis URL: the cells go on its queue for `worker` processes instead of local workers. */
  queue?: string;
  split: Split;
  /** Engine, threads and backend of cells whose grid settings are silent, and of the evaluation. */
  compute: ComputeSettings;
}

export async function ablateJob(o: AblateOptions): Promise<{ text: string; failed: number }> {
  const started = Date.now();
  const grid = readGrid(o.grid);
  const results = o.out ?? `results/${grid.name}`;
  for (const cache of grid.caches) ensureDefaultCache(cache);
  const queue = o.queue === undefined ? undefined : parseQueueUrl(o.queue);
  const outcomes = queue
    ? // Workers compute with their own engine settings where the grid is silent.
      await runQueuedGrid(expandGrid(grid, results), { queue })
    : await runGrid(expandGrid(grid, results, o.compute), o.workers);
  const { markdown, files } = await ablationReport(grid, outcomes, results, o.split, o.compute);
  const count = (s: string) => outcomes.filter((x) => x.status === s).length;
  const failed = count('failed');
  const minutes = ((Date.now() - started) / 60000).toFixed(1);
  return {
    text: `${markdown}\n\nwritten: ${files.join(', ')}\nwall time ${minutes} min for ${outcomes.length} cells (${count('trained')} trained, ${count('reused')} reused, ${failed} failed) with ${queue ? `the workers of queue ${queue.label}` : `${o.workers} workers`}`,
    failed,
  };
}
