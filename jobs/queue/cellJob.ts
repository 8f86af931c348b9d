// What travels through the queue for one grid cell: the job (identity, settings, cache and its
// content hash), the worker's progress and result, the run files (gzip, in a Redis hash until the
// coordinator collects them), and the record the coordinator writes beside a collected run.
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import type { Redis } from 'ioredis';
import { z } from 'zod';
import { writeFileAtomic } from '../../src/io/atomic.ts';
import { readJsonFile } from '../../src/io/jsonFile.ts';
import { COMPUTE_SETTINGS, ComputeSettings } from '../../src/policy/backends.ts';
import { TrainConfig, resolveConfig } from '../../train/config.ts';
import type { Cell } from '../../train/grid.ts';
import { runFiles } from '../../train/runFolder.ts';

const identity = z.string().regex(/^[0-9a-f]{64}$/);

export const CellJob = z.strictObject({
  identity,
  /** The cell as the grid names it: variant | cache | seed. */
  label: z.string(),
  /** The cache path as the grid names it; a worker reads it there, or where --cache-map says. */
  cache: z.string(),
  cacheHash: z.string(),
  /**
   * Resolved settings, less out and cache, and less engine, threads, backend the grid left to the
   * worker: those three have no default here (zod applies a default under partial), or a worker's
   * own `--engine` would always be overridden by the grid's `auto`.
   */
  settings: TrainConfig.omit({ out: true, cache: true }).partial().extend({
    engine: ComputeSettings.shape.engine.unwrap().optional(),
    threads: ComputeSettings.shape.threads.unwrap().optional(),
    backend: ComputeSettings.shape.backend.unwrap().optional(),
  }),
  epochs: z.number().int().positive(),
});
export type CellJob = z.infer<typeof CellJob>;

export const jobIdOf = (identity: string) => `cell-${identity}`;
/** Redis key of a finished cell's run files, until its coordinator collects them. */
export const filesKey = (jobId: string) => `cpp-workbench:files:${jobId}`;

export function cellJob(cell: Cell, cacheHash: string, id: string): CellJob {
  const { out: _out, cache: _cache, ...settings } = resolveConfig(cell.settings);
  for (const k of COMPUTE_SETTINGS) if (cell.settings[k] === undefined) delete settings[k];
  return { identity: id, label: cell.id, cache: cell.cache, cacheHash, settings, epochs: cell.epochs };
}

/** What a worker reports while it trains a cell (job progress). */
export const CellProgress = z.strictObject({ worker: z.string(), epoch: z.number().int(), epochs: z.number().int() });
export type CellProgress = z.infer<typeof CellProgress>;

/** What a worker returns for a trained cell; the files themselves are under `filesKey`. */
export const CellResult = z.strictObject({ worker: z.string(), trainSeconds: z.number(), files: z.array(z.string()) });
export type CellResult = z.infer<typeof CellResult>;

/** `<run>/cell.json`: which cell a collected run is, who trained it, and when (epoch milliseconds). */
export const CellRecord = z.strictObject({
  identity,
  label: z.string(),
  cacheHash: z.string(),
  worker: z.string(),
  /** Times a worker started it: more than 1 after a crash or a stalled (killed) worker. */
  attempts: z.number().int(),
  stalls: z.number().int(),
  enqueued: z.number(),
  started: z.number(),
  finished: z.number(),
  collected: z.number(),
  trainSeconds: z.number(),
});
export type CellRecord = z.infer<typeof CellRecord>;
export const cellRecordPath = (out: string) => join(out, 'cell.json');

/** The record of a collected run in `out`, if there is one (a folder without it was not made by a queue). */
export const readCellRecord = (out: string): CellRecord | undefined =>
  existsSync(cellRecordPath(out)) ? readJsonFile(cellRecordPath(out), CellRecord) : undefined;

/** Worker side: every file of a finished run folder, gzip'd, into the job's Redis hash. */
export async function uploadRun(redis: Redis, jobId: string, dir: string): Promise<string[]> {
  const files = readdirSync(dir).filter((f) => !f.endsWith('.tmp'));
  await redis.hset(filesKey(jobId), Object.fromEntries(files.map((f) => [f, gzipSync(readFileSync(join(dir, f)))])));
  return files;
}

// Files holding resolved settings, which name the run's folder and cache: the worker's paths are
// replaced by the grid's, so the collected run reads (and resumes) like one trained in place.
const names = runFiles('');
const CHECKPOINTS = [names.checkpoint, names.best];
const SETTINGS_FILES = [names.config, 'settings.json' /* train/runs.ts */];

/**
 * Coordinator side: write the job's files and `record` into `cell.settings.out`, all at once (a
 * folder renamed into place), and drop them from Redis. False when Redis holds no files for it.
 */
export async function collectRun(redis: Redis, jobId: string, cell: Cell, record: CellRecord): Promise<boolean> {
  const files = await redis.hgetallBuffer(filesKey(jobId));
  if (Object.keys(files).length === 0) return false;
  const out = cell.settings.out;
  const tmp = `${out}.${process.pid}.tmp`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  for (const [name, gz] of Object.entries(files)) {
    let content = gunzipSync(gz);
    if (CHECKPOINTS.includes(name) || SETTINGS_FILES.includes(name)) {
      const json = JSON.parse(content.toString('utf8')) as { config: object };
      Object.assign(CHECKPOINTS.includes(name) ? json.config : json, { out, cache: cell.cache });
      content = Buffer.from(CHECKPOINTS.includes(name) ? JSON.stringify(json) : JSON.stringify(json, null, 2) + '\n');
    }
    writeFileAtomic(join(tmp, name), [content]);
  }
  writeFileAtomic(cellRecordPath(tmp), [JSON.stringify(record, null, 2) + '\n']);
  mkdirSync(dirname(out), { recursive: true });
  renameSync(tmp, out);
  await redis.del(filesKey(jobId));
  return true;
}
