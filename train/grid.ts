// Ablation grids (docs/method.md §9, Table 6): a file names variants (setting overrides with a row name),
// seeds and caches; every (variant, cache, seed) is a cell, trained in its own folder under the
// results folder by warm training processes (train/trainingProcesses.ts). Rerunning a grid skips finished cells and resumes the others
// (each only if it is the same run: train/identity.ts); a failing cell is reported and the rest go
// on. jobs/queue/ runs the same cells on other machines.
import { basename, join } from 'node:path';
import { z } from 'zod';
import { readJsonFile } from '../src/io/jsonFile.ts';
import { progress } from '../src/progress.ts';
import { TrainConfig, resolveConfig } from './config.ts';
import { runContentHashes } from './identity.ts';
import { checkRun, otherRunError, pool, runStatus, runTraining } from './runs.ts';
import { splitLine } from './timeSplit.ts';
import { trainingProcesses, type Trained } from './trainingProcesses.ts';
import { ensureDefaultCache } from '../src/sim/generate.ts';
import { RefusedError, SettingsError } from '../src/io/errors.ts';

// Setting overrides, checked against TrainConfig but kept as written: a variant must override only
// what it names (a parsed partial schema would fill in every default).
const checked = TrainConfig.partial().omit({ out: true, seed: true, cache: true }).strict();
const Settings = z.record(z.string(), z.unknown()).superRefine((value, ctx) => {
  const r = checked.safeParse(value);
  if (!r.success) for (const issue of r.error.issues) ctx.addIssue({ ...issue, message: issue.message } as never);
}) as unknown as z.ZodType<Partial<TrainConfig>>;

/** Folder name of a variant or cache ("k = -1" -> "k-minus1"). */
const slug = (s: string) =>
  s
    .toLowerCase()
    .replace(/-(?=\d)/g, 'minus')
    .replace(/[^a-z0-9.]+/g, '-')
    .replace(/^-|-$/g, '');

export const GridFile = z
  .strictObject({
    name: z.string().min(1),
    /** Settings every variant starts from. */
    base: Settings.default({}),
    /** Seeds 0..n-1, or a list. */
    seeds: z
      .union([z.number().int().positive(), z.array(z.number().int().nonnegative()).min(1, 'needs at least one seed: a grid without seeds trains nothing')])
      .default(3),
    caches: z.array(z.string()).min(1).default(['cache/default']),
    variants: z.array(z.strictObject({ name: z.string().min(1), settings: Settings.default({}) })).min(1),
    /** Variant the others are compared with. */
    reference: z.string().optional(),
  })
  .superRefine((grid, ctx) => {
    // Each variant trains in the folder of its name's slug: two names of one slug would share it.
    const names = new Map<string, string>();
    grid.variants.forEach((v, i) => {
      const other = names.get(slug(v.name));
      if (other !== undefined)
        ctx.addIssue({
          code: 'custom',
          path: ['variants', i, 'name'],
          message: `two variants named '${other}' and '${v.name}' (one folder, ${slug(v.name)}): name them apart`,
        });
      names.set(slug(v.name), v.name);
    });
    // Settings that contradict each other only once merged (rloo with rollouts: 1 from the base):
    // named by the variant, in the grid file, before any cell is made.
    grid.variants.forEach((v, i) => {
      if (!checked.safeParse(grid.base).success || !checked.safeParse(v.settings).success) return; // named field by field above
      try {
        resolveConfig(grid.base, v.settings);
      } catch (e) {
        if (!(e instanceof SettingsError)) throw e;
        ctx.addIssue({ code: 'custom', path: ['variants', i, 'settings'], message: `variant '${v.name}' (its settings over base): ${e.message}` });
      }
    });
    if (grid.reference !== undefined && !grid.variants.some((v) => v.name === grid.reference))
      ctx.addIssue({
        code: 'custom',
        path: ['reference'],
        message: `'${grid.reference}' is not a variant of this grid (${grid.variants.map((v) => `'${v.name}'`).join(', ')})`,
      });
  });
export type GridFile = z.infer<typeof GridFile>;

export interface Cell {
  id: string;
  variant: string;
  cache: string;
  seed: number;
  settings: Partial<TrainConfig> & { out: string };
  epochs: number;
}

/** Cells of a grid; `defaults` (engine, threads, ...) apply where the grid's settings are silent. */
export function expandGrid(grid: GridFile, results: string, defaults: Partial<TrainConfig> = {}): Cell[] {
  const seeds = typeof grid.seeds === 'number' ? Array.from({ length: grid.seeds }, (_, s) => s) : grid.seeds;
  return grid.variants.flatMap((v) =>
    grid.caches.flatMap((cache) =>
      seeds.map((seed) => {
        const out = join(results, slug(v.name), slug(basename(cache)), `seed-${seed}`);
        const settings = { ...defaults, ...grid.base, ...v.settings, cache, seed, out };
        return { id: `${v.name} | ${cache} | seed ${seed}`, variant: v.name, cache, seed, settings, epochs: resolveConfig(settings).epochs };
      }),
    ),
  );
}

export const readGrid = (file: string) => readJsonFile(file, GridFile);

export interface CellOutcome {
  cell: Cell;
  status: 'reused' | 'trained' | 'failed';
  /** A cell trained now: its time split, and its wall time as the grid saw it. */
  trained?: Trained;
  error?: string;
  /** What a failed cell threw (a user error, or a bug with its stack). */
  reason?: unknown;
}

/**
 * Train every cell not finished yet, `workers` at a time. A cell folder holding a run of other
 * settings or another cache is refused, every such cell named, before anything trains; with
 * `force` those cells are trained anew. `failed` is told of each cell as it fails (as the
 * coordinator of a queue tells it: `ablate` remembers it at once).
 */
export async function runGrid(
  cells: Cell[],
  workers: number,
  log: (line: string) => void = console.error,
  force = false,
  failed?: (outcome: CellOutcome) => void,
): Promise<CellOutcome[]> {
  for (const cache of new Set(cells.map((c) => c.cache))) ensureDefaultCache(cache);
  const contentOf = runContentHashes();
  const hashes = await Promise.all(cells.map((c) => contentOf(c.settings)));
  const status = cells.map((c, i) => runStatus(c.settings, hashes[i]));
  const other = cells.map((c, i) => ({ c, d: status[i].differences })).filter((x) => x.d.length);
  if (other.length && !force) throw new RefusedError(other.map((x) => otherRunError(x.c.settings.out, x.d).message).join('\n'));
  const total = cells.reduce((s, c) => s + c.epochs, 0);
  const finished = cells.filter((_, i) => status[i].action === 'reuse' && status[i].differences.length === 0);
  let epochs = finished.reduce((s, c) => s + c.epochs, 0);
  const bar = progress('grid (epochs)', total, { done: epochs });
  let done = finished.length;
  let running = 0;
  const said = () => `cells: ${done} done, ${running} running, ${cells.length - done - running} left`;
  log(
    `${cells.length} cells (${done} finished ` +
      `already${other.length ? `, ${other.length} of other settings or another cache trained anew (--force)` : ''}), ${workers} at a time`,
  );
  bar.update(epochs, undefined, said());
  // Cells train in warm training processes, at most `workers` at a time: a cell after the first in
  // a process finds the code, its cache, embeddings and ONNX Runtime loaded.
  const processes = trainingProcesses();
  const results = await pool(
    cells.map((cell, i) => ({ cell, hash: hashes[i] })),
    workers,
    async ({ cell, hash }) => {
      try {
        // A finished cell is reused by runTraining, which completes its end-of-run files.
        if (checkRun(cell.settings, hash, force).action === 'reuse') return await runTraining(cell.settings, hash, () => {});
        running++;
        bar.update(epochs, undefined, said());
        try {
          const outcome = await runTraining(cell.settings, hash, () => bar.update(++epochs, undefined, said()), { processes });
          if (outcome.status === 'trained') log(`${cell.id}: ${cellTime(outcome.trained)}`);
          return outcome;
        } finally {
          running--;
          done++;
          bar.update(epochs, undefined, said());
        }
      } catch (e) {
        // Told (remembered in failed.json) and then said, as it happens, as a queue's coordinator
        // does: a grid killed right after the line has already remembered the failure.
        const outcome = failedOutcome(cell, e);
        failed?.(outcome);
        log(`cell failed: ${cell.id}: ${outcome.error}`);
        throw e;
      }
    },
  );
  processes.close();
  bar.stop();
  return results.map((r, i) => (r.status === 'fulfilled' ? { cell: cells[i], ...r.value } : failedOutcome(cells[i], r.reason)));
}

const failedOutcome = (cell: Cell, reason: unknown): CellOutcome => ({ cell, status: 'failed', error: (reason as Error).message, reason });

/** A trained cell's wall time, its training steps' share, and what it spent beyond them (its overhead: process, setup, validation, checkpoints, end). */
export const cellTime = (t: Trained) =>
  `${t.seconds.toFixed(1)} s, of which ${t.time.steps.count} training steps ${t.time.steps.seconds.toFixed(1)} s and ` +
  `${(t.seconds - t.time.steps.seconds).toFixed(1)} s beyond them (${splitLine(t.time)} in its process)`;

/** A line for a table: which cells were reused (finished earlier with the same settings and cache content) and which trained now. */
export function reuseNote(outcomes: CellOutcome[]): string {
  const reused = outcomes.filter((o) => o.status === 'reused');
  const trained = outcomes.filter((o) => o.status === 'trained').length;
  if (reused.length === 0) return `Runs: all ${trained} trained by this run.`;
  return (
    `Runs: ${trained} trained by this run, ${reused.length} reused (finished earlier with ` +
    `the same settings and cache content): ${reused.map((o) => o.cell.id).join('; ')}.`
  );
}
