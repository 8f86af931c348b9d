// What a command that trains or evaluates would do, for `--print-config` (its resolved settings)
// and `--dry-run` (which runs it would start, reuse or resume, what it would evaluate and write),
// worked out without writing anything.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { cacheFilePath } from '../src/cache/load.ts';
import { loadCheckpoint, type Checkpoint } from '../src/policy/artifact.ts';
import type { ComputeSettings } from '../src/policy/backends.ts';
import { DEFAULT_CACHE } from '../src/sim/generate.ts';
import { resolveConfig, type TrainConfig } from './config.ts';
import { runFiles } from './runFolder.ts';
import { runAction } from './runs.ts';

/** A job's resolved settings (printed as JSON) and its plan (printed as lines). */
export interface JobDescription {
  settings: unknown;
  plan(): Promise<string[]>;
}

/** The settings a run trains with: a resumed run keeps its saved ones, except how it computes. */
/** A resumed run keeps its saved settings (settings added since take their defaults), except how it computes. */
export const runSettings = (config: TrainConfig, resumed: Checkpoint | undefined, compute: Partial<ComputeSettings> = {}): TrainConfig =>
  resumed ? resolveConfig(resumed.config as Partial<TrainConfig>, compute) : config;

export function cachePlan(dir: string): string {
  if (existsSync(cacheFilePath(dir))) return `cache: read ${cacheFilePath(dir)}`;
  if (resolve(dir) === resolve(DEFAULT_CACHE)) return `cache: ${dir} is missing; generate the default simulated world there first (about 5 s)`;
  return `cache: ${cacheFilePath(dir)} is missing: the command would stop there with that error`;
}

export function runPlan(out: string, epochs: number): string {
  const { action, epoch } = runAction(out, epochs);
  if (action === 'start') return `start ${out}: ${epochs} epochs`;
  if (action === 'resume') return `resume ${out}: epochs ${epoch + 1}-${epochs} (checkpoint at epoch ${epoch})`;
  return `reuse ${out}: finished (epoch ${epoch} of ${epochs})`;
}

/** The engine that `auto` would take here, and its threads or TF.js backend. */
export async function computePlan(c: ComputeSettings): Promise<string> {
  const { computeRan } = await import('../src/policy/createEngine.ts');
  const ran = await computeRan(c);
  const how = ran.backend ? `TF.js backend ${ran.backend}` : `${ran.threads} CPU thread${ran.threads === 1 ? '' : 's'}`;
  return `engine: ${ran.engine}${c.engine === 'auto' ? ' (auto)' : ''}, ${how}`;
}

/** The `train` command: the settings of its run (a resumed run's saved ones) and its plan. */
export function trainDescription(config: TrainConfig, resume: boolean, compute: Partial<ComputeSettings>): JobDescription {
  const checkpoint = runFiles(config.out).checkpoint;
  const settings = runSettings(config, resume && existsSync(checkpoint) ? loadCheckpoint(checkpoint) : undefined, compute);
  return { settings, plan: () => trainPlan(settings, resume) };
}

async function trainPlan(config: TrainConfig, resume: boolean): Promise<string[]> {
  const { action } = runAction(config.out, config.epochs);
  const run =
    action === 'start' && resume ? `refuse: ${config.out} holds no checkpoint to resume`
    : action !== 'start' && !resume ? `refuse: ${config.out} already holds a run (pass --resume to continue it, or choose another --out)`
    : runPlan(config.out, config.epochs);
  return [
    cachePlan(config.cache),
    `embeddings: ${config.encoder} encoder, stored in ${config.cache}/embeddings/ (texts without one are embedded first)`,
    await computePlan(config),
    run,
    `writes in ${config.out}: config.json, provenance.json, log.jsonl, log.csv, events.out.tfevents.*, checkpoint.json (every epoch), best.json`,
  ];
}
