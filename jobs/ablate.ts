// `ablate`: train every cell of a grid (train/grid.ts) with local worker processes, or with the
// workers of a Redis queue (jobs/queue/), and report the Table 6 style table (eval/table6.ts), with
// the wall time.
import { existsSync } from 'node:fs';
import type { Split } from '../src/cache/format.ts';
import type { ComputeSettings } from '../src/policy/backends.ts';
import { embeddingsPath } from '../src/cache/embeddings.ts';
import { cacheFilePath } from '../src/cache/load.ts';
import { readAnyPolicy } from '../train/checkpoint.ts';
import { computeRan } from '../src/policy/createEngine.ts';
import { progress } from '../src/progress.ts';
import { hashFile, recordReport, startSession } from '../src/provenance.ts';
import { runFiles } from '../train/runFolder.ts';
import { ensureDefaultCache } from '../src/sim/generate.ts';
import { expandGrid, readGrid, runGrid, type CellOutcome, type GridFile } from '../train/grid.ts';
import { rememberFailed, skipFailed } from '../train/failedCells.ts';
import { resolveConfig } from '../train/config.ts';
import { cachePlan, computePlan, runPlan, type JobDescription } from '../train/plan.ts';
import { runContentHashes } from '../train/identity.ts';
import { withLock } from '../src/io/lock.ts';
import { ablationReport } from '../eval/table6.ts';
import { InputError, SettingsError } from '../src/io/errors.ts';

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
  /** Team file of the record tier of the cells that train with miss = record. */
  endpoints?: string;
  /** Debate rounds of every cell and of the table's Full-Debate (--rounds): overrides the grid's, said when it does. */
  rounds?: number;
  /** Train anew the cells whose folders hold runs of other settings or another cache (else an error naming each difference). */
  force?: boolean;
  /** Train again the cells that failed in an earlier run of this grid (else they are reported failed, with their reason, untrained). */
  retryFailed?: boolean;
  log?: (line: string) => void;
}

/** The grid with every cell and the table at `rounds`; each grid setting it overrides is named. */
export function withRounds(grid: GridFile, file: string, rounds: number | undefined, log: (line: string) => void): GridFile {
  if (rounds === undefined) return grid;
  if (grid.base.rounds !== undefined && grid.base.rounds !== rounds) log(`--rounds ${rounds} overrides rounds ${grid.base.rounds} of ${file} (base)`);
  for (const v of grid.variants)
    if (v.settings.rounds !== undefined && v.settings.rounds !== rounds)
      log(`--rounds ${rounds} overrides rounds ${v.settings.rounds} of ${file} (variant '${v.name}')`);
  return { ...grid, base: { ...grid.base, rounds }, variants: grid.variants.map((v) => ({ ...v, settings: { ...v.settings, rounds } })) };
}

/** Train and report a grid, with its results folder locked (a second job into it is refused, naming this one). */
export async function ablateJob(o: AblateOptions): Promise<{ text: string; failed: number }> {
  const grid = withRounds(readGrid(o.grid), o.grid, o.rounds, o.log ?? ((line) => console.error(line)));
  const results = o.out ?? `results/${grid.name}`;
  if (o.queue !== undefined && o.force)
    throw new SettingsError(
      '--force with --queue: a queued grid reuses only the cells its results folder holds under their identity; remove the folders of cells to train anew',
    );
  // A grid's caches are there (the default one made on first use) before its results folder is made
  // (a queue's workers may find theirs elsewhere: worker --cache-map).
  grid.caches.forEach((cache, i) => {
    ensureDefaultCache(cache);
    if (o.queue === undefined && !existsSync(cacheFilePath(cache)))
      throw new InputError(`${o.grid}: caches.${i}: no cache at ${cache} (${cacheFilePath(cache)} not found)`);
  });
  return withLock(results, `an ablation grid (${grid.name})`, () => ablateLocked(o, grid, results));
}

async function ablateLocked(o: AblateOptions, grid: GridFile, results: string): Promise<{ text: string; failed: number }> {
  const started = Date.now();
  const session = await startSession({ caches: grid.caches.map(cacheFilePath), compute: await computeRan(o.compute) });
  // The queue's modules (BullMQ, ioredis) load only for a queued grid.
  const queue = o.queue === undefined ? undefined : (await import('./queue/redis.ts')).parseQueueUrl(o.queue);
  // Workers of a queue compute with their own engine settings where the grid is silent.
  const cells = queue ? expandGrid(grid, results) : expandGrid(grid, results, o.compute);
  if (o.endpoints !== undefined) {
    const recording = cells.filter((c) => resolveConfig(c.settings).miss === 'record');
    if (recording.length === 0)
      throw new SettingsError(`--endpoints ${o.endpoints}: no cell of grid ${grid.name} trains with miss = record, so no endpoint would be asked`);
    for (const c of recording) c.settings.endpoints ??= o.endpoints;
  }
  // Cells that failed in an earlier run of this grid are not trained again unless asked (train/failedCells.ts).
  const { train, skipped } = skipFailed(cells, results, o.retryFailed ?? false);
  for (const x of skipped) (o.log ?? console.error)(`cell not trained: ${x.cell.id}: ${x.error}`);
  // Each failure is remembered as it happens (a job killed afterwards leaves it known), the rest once the grid is done.
  const remember = (x: CellOutcome) => rememberFailed(results, [x], []);
  const ran =
    train.length === 0
      ? []
      : queue
        ? await (await import('./queue/coordinator.ts')).runQueuedGrid(train, { queue, retryFailed: o.retryFailed, failed: remember })
        : await runGrid(train, o.workers, undefined, o.force, remember);
  const outcomes = cells.map((c) => ran.find((x) => x.cell === c) ?? skipped.find((x) => x.cell === c)!);
  rememberFailed(results, outcomes, skipped);
  const evaluated = outcomes.filter((x) => x.status !== 'failed');
  const evaluating = progress(`evaluating ${evaluated.length} cells on ${o.split}`, evaluated.length);
  let evaluatedCells = 0;
  const { markdown, files } = await ablationReport(grid, outcomes, results, o.split, o.compute, () => evaluating.update(++evaluatedCells));
  evaluating.stop();
  session.inputs = await Promise.all(evaluated.map((x) => hashFile(runFiles(x.cell.settings.out).best)));
  const embeddings = new Set(evaluated.map((x) => embeddingsPath(x.cell.cache, readAnyPolicy(runFiles(x.cell.settings.out).best).encoder)));
  session.embeddings = await Promise.all([...embeddings].map((f) => hashFile(f, true)));
  files.push(recordReport(results, session, files.find((f) => f.endsWith('.md'))!));
  const count = (s: string) => outcomes.filter((x) => x.status === s).length;
  const failed = count('failed');
  const seconds = (Date.now() - started) / 1000;
  const minutes = (seconds / 60).toFixed(1);
  return {
    text:
      `${markdown}\n\nwritten: ${files.join(', ')}\nwall time ${minutes} min for ` +
      `${outcomes.length} cells, ${(seconds / Math.max(1, outcomes.length)).toFixed(1)} s a ` +
      `cell (${count('trained')} trained, ${count('reused')} reused, ${failed} failed) ` +
      `with ${queue ? `the workers of queue ${queue.label}` : `${o.workers} workers`}${overheadLine(outcomes)}`,
    failed,
  };
}

/** What the cells trained now spent beyond their training steps (each cell's is on its own line as it finishes). */
function overheadLine(outcomes: CellOutcome[]): string {
  const beyond = outcomes.flatMap((x) => (x.trained ? [x.trained.seconds - x.trained.time.steps.seconds] : [])).sort((a, b) => a - b);
  if (beyond.length === 0) return '';
  return (
    `\ncell time beyond the training steps (process, setup, validation, checkpoints, end): median ` +
    `${beyond[beyond.length >> 1].toFixed(1)} s, most ${beyond.at(-1)!.toFixed(1)} s over ${beyond.length} cells trained`
  );
}

/** A grid's cells with the settings each would train with, and the plan: which cells start, resume or are reused. */
export function ablateDescription(o: AblateOptions): JobDescription {
  const grid = withRounds(readGrid(o.grid), o.grid, o.rounds, () => {});
  const results = o.out ?? `results/${grid.name}`;
  const cells = expandGrid(grid, results, o.compute);
  return {
    settings: {
      grid: o.grid,
      name: grid.name,
      results,
      workers: o.workers,
      split: o.split,
      compute: o.compute,
      reference: grid.reference ?? grid.variants[0].name,
      cells: cells.map((c) => ({ id: c.id, settings: resolveConfig(c.settings) })),
    },
    plan: async () => {
      const contentOf = runContentHashes();
      return [
        ...grid.caches.map(cachePlan),
        `train ${cells.length} cells, ${o.workers} at a time:`,
        ...(await Promise.all(cells.map(async (c) => `  ${runPlan(c.settings, await contentOf(c.settings), o.force)} [${c.id}]`))),
        `then evaluate the best checkpoint of every cell on the ${o.split} split (${await computePlan(o.compute)})`,
        `writes in ${results}: table6.md, table6.csv, accuracy-cost.svg, learning-curves.svg, provenance.json`,
      ];
    },
  };
}
