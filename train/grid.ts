// Ablation grids (SPEC §9, Table 6): a file names variants (setting overrides with a row name),
// seeds and caches; every (variant, cache, seed) is a cell, trained in its own folder under the
// results folder by worker processes. Rerunning a grid skips finished cells and resumes the others;
// a failing cell is reported and the rest go on. train/queue/ runs the same cells on other machines.
import { createHash } from 'node:crypto';
import { basename, join } from 'node:path';
import { z } from 'zod';
import { readJsonFile } from '../src/jsonFile.ts';
import { progress } from '../src/progress.ts';
import { COMPUTE_SETTINGS, TrainConfig, resolveConfig } from './config.ts';
import { checkRunSettings, isFinished, pool, runTraining } from './runs.ts';

// Setting overrides, checked against TrainConfig but kept as written: a variant must override only
// what it names (a parsed partial schema would fill in every default).
const checked = TrainConfig.partial().omit({ out: true, seed: true, cache: true }).strict();
const Settings = z.record(z.string(), z.unknown()).superRefine((value, ctx) => {
  const r = checked.safeParse(value);
  if (!r.success) for (const issue of r.error.issues) ctx.addIssue({ ...issue, message: issue.message } as never);
}) as unknown as z.ZodType<Partial<TrainConfig>>;

export const GridFile = z.strictObject({
  name: z.string().min(1),
  /** Settings every variant starts from. */
  base: Settings.default({}),
  /** Seeds 0..n-1, or a list. */
  seeds: z.union([z.number().int().positive(), z.array(z.number().int())]).default(3),
  caches: z.array(z.string()).min(1).default(['cache/default']),
  variants: z.array(z.strictObject({ name: z.string().min(1), settings: Settings.default({}) })).min(1),
  /** Variant the others are compared with. */
  reference: z.string().optional(),
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

/** Folder name of a variant or cache ("k = -1" -> "k-minus1"). */
const slug = (s: string) => s.toLowerCase().replace(/-(?=\d)/g, 'minus').replace(/[^a-z0-9.]+/g, '-').replace(/^-|-$/g, '');

/** Cells of a grid; `defaults` (engine, threads, ...) apply where the grid's settings are silent. */
export function expandGrid(grid: GridFile, results: string, defaults: Partial<TrainConfig> = {}): Cell[] {
  const seeds = typeof grid.seeds === 'number' ? Array.from({ length: grid.seeds }, (_, s) => s) : grid.seeds;
  const names = new Set<string>();
  for (const v of grid.variants) {
    if (names.has(slug(v.name))) throw new Error(`grid ${grid.name}: two variants named '${v.name}'`);
    names.add(slug(v.name));
  }
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

/** Settings that say where a run lives and how it computes, not what it learns. */
const NOT_IDENTITY: readonly string[] = ['out', 'cache', ...COMPUTE_SETTINGS];

/**
 * A cell's identity: sha256 of what its result depends on, its resolved settings and the content of
 * its cache (`cacheHash`, src/cache/hash.ts). Left out: the out folder and the cache path (where,
 * not what: the content hash stands for the cache), and engine, threads and backend, which a resumed
 * run may switch and on which the engines train to the same decisions (README, "Policy engines").
 */
export function cellIdentity(settings: Partial<TrainConfig>, cacheContent: string): string {
  const learned = Object.fromEntries(Object.entries(resolveConfig(settings)).filter(([k]) => !NOT_IDENTITY.includes(k)));
  // Keys sorted at every level, so that the order a file wrote them in does not matter.
  const canonical = JSON.stringify({ settings: learned, cache: cacheContent }, (_, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : 1))) : v,
  );
  return createHash('sha256').update(canonical).digest('hex');
}

export const readGrid = (file: string) => readJsonFile(file, GridFile);

export interface CellOutcome {
  cell: Cell;
  status: 'reused' | 'trained' | 'failed';
  error?: string;
}

export async function runGrid(cells: Cell[], workers: number, log: (line: string) => void = console.error): Promise<CellOutcome[]> {
  const total = cells.reduce((s, c) => s + c.epochs, 0);
  const finished = cells.filter((c) => isFinished(c.settings.out, c.epochs));
  let epochs = finished.reduce((s, c) => s + c.epochs, 0);
  const bar = progress('grid (epochs)', total, { done: epochs });
  let done = finished.length;
  let running = 0;
  const status = () => `cells: ${done} done, ${running} running, ${cells.length - done - running} left`;
  log(`${cells.length} cells (${done} finished already), ${workers} at a time`);
  bar.update(epochs, undefined, status());
  const results = await pool(cells, workers, async (cell) => {
    checkRunSettings(cell.settings);
    if (isFinished(cell.settings.out, cell.epochs)) return 'reused' as const;
    running++;
    bar.update(epochs, undefined, status());
    try {
      return await runTraining(cell.settings, cell.epochs, () => bar.update(++epochs, undefined, status()));
    } finally {
      running--;
      done++;
      bar.update(epochs, undefined, status());
    }
  });
  bar.stop();
  return results.map((r, i) => {
    const outcome: CellOutcome = r.status === 'fulfilled' ? { cell: cells[i], status: r.value } : { cell: cells[i], status: 'failed', error: (r.reason as Error).message };
    if (outcome.status === 'failed') log(`cell failed: ${outcome.cell.id}: ${outcome.error}`);
    return outcome;
  });
}
