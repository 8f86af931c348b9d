// What a command that trains or evaluates would do, for `--print-config` (its resolved settings)
// and `--dry-run` (which runs it would start, reuse or resume, what it would evaluate and write),
// worked out without writing anything.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { cacheFilePath } from '../src/cache/load.ts';
import type { Checkpoint } from '../src/policy/artifact.ts';
import { readCheckpoint, readCheckpointHead } from './checkpoint.ts';
import type { ComputeSettings } from '../src/policy/backends.ts';
import { DEFAULT_CACHE } from '../src/sim/generate.ts';
import { resolveConfig, runDone, TrainConfig } from './config.ts';
import { runFiles } from './runFolder.ts';
import { runContentHashes } from './identity.ts';
import { runStatus } from './runs.ts';
import { InputError } from '../src/io/errors.ts';

/** A job's resolved settings (printed as JSON) and its plan (printed as lines). */
export interface JobDescription {
  settings: unknown;
  plan(): Promise<string[]>;
}

/**
 * The settings a run trains with: a resumed run keeps its saved ones (settings added since take
 * their defaults), except how it computes and where it is: its folder is where it is now, never a
 * path saved inside it (a copied or moved run writes only into itself).
 */
export function runSettings(config: TrainConfig, resumed: Pick<Checkpoint, 'config'> | undefined, compute: Partial<ComputeSettings> = {}): TrainConfig {
  if (!resumed) return config;
  try {
    return resolveConfig(resumed.config as Partial<TrainConfig>, compute, { out: config.out });
  } catch (e) {
    throw new InputError(`${runFiles(config.out).checkpoint}: config: ${(e as Error).message}`);
  }
}

/**
 * Settings a resumed run's checkpoint does not hold, which take their defaults: those added to
 * TrainConfig since it was saved. A setting whose default is unset (endpoints, agents) is left out of
 * a saved config's JSON when unset, so its absence is no news.
 */
export const settingsAddedSince = (saved: Checkpoint): string[] =>
  Object.entries(TrainConfig.shape)
    .filter(([k, schema]) => k !== 'out' && !(k in saved.config) && schema.safeParse(undefined).data !== undefined)
    .map(([k]) => k);

/**
 * What `--resume` of a run that trained all its epochs says (was: "3 epochs from epoch 4", and a
 * session added to its provenance): that it is finished, its best epoch, and how to train longer.
 * Undefined when `out` holds no finished run.
 */
export function finishedRun(out: string): string | undefined {
  const files = runFiles(out);
  if (!existsSync(files.checkpoint)) return undefined;
  // The whole checkpoint, tensors checked: `--resume` must refuse a damaged one (a width its
  // tensors do not have, a NaN weight) rather than call it finished and leave it in use.
  const saved = readCheckpoint(files.checkpoint);
  const settings = runSettings(resolveConfig({ out }), saved);
  if (!runDone(settings, saved)) return undefined;
  const { epochs } = settings;
  const best = saved.best
    ? `best validation epoch ${saved.best.epoch}: accuracy ${(100 * saved.best.accuracy).toFixed(1)}%, cost ${saved.best.costPct.toFixed(1)}% (${files.best})`
    : 'no validation';
  return (
    `${out} is finished: ${saved.epoch} of ${epochs} epochs trained; ${best}. Nothing to resume. To train longer, ` +
    `start a new run from its settings: npx cpp-workbench train --config ${files.config} --epochs N --out OTHER`
  );
}

/** What `--resume` of a folder without a checkpoint should say, with what to run instead. */
export function noCheckpoint(out: string): string {
  const started = existsSync(runFiles(out).config);
  return started
    ? `${out} holds no checkpoint to resume: the run was stopped before its first checkpoint; ` +
        `start it again without --resume (its settings: --config ${runFiles(out).config})`
    : `${out} holds no checkpoint to resume: no run was started there (or it was stopped before writing anything); start it without --resume`;
}

export function cachePlan(dir: string): string {
  if (existsSync(cacheFilePath(dir))) return `cache: read ${cacheFilePath(dir)}`;
  if (resolve(dir) === resolve(DEFAULT_CACHE)) return `cache: ${dir} is missing; generate the default simulated world there first (about 5 s)`;
  return `cache: ${cacheFilePath(dir)} is missing: the command would stop there with that error`;
}

/** What a job would do with the run folder of `settings` (train/runs.ts runStatus), as a line. */
export function runPlan(settings: Partial<TrainConfig> & { out: string }, cacheHash: string, force = false): string {
  const { action, epoch, differences } = runStatus(settings, cacheHash);
  const { out } = settings;
  const epochs = resolveConfig(settings).epochs;
  if (differences.length)
    return `${force ? 'train anew (--force)' : 'refuse'} ${out}: it holds a run of other settings or another cache (${differences.join('; ')})`;
  if (action === 'start') return `start ${out}: ${epochs} epochs`;
  if (action === 'resume') return `resume ${out}: epochs ${epoch + 1}-${epochs} (checkpoint at epoch ${epoch})`;
  return `reuse ${out}: finished (epoch ${epoch} of ${epochs}), the same settings and cache content`;
}

/** The engine that `auto` would take here, and its threads or TF.js backend. */
export async function computePlan(c: ComputeSettings): Promise<string> {
  const { resolveCompute } = await import('../src/policy/createEngine.ts');
  const { ran, note } = await resolveCompute(c);
  const { adapterName } = await import('../src/policy/webgpu.ts');
  const how = ran.adapter
    ? `adapter ${adapterName(ran.adapter)}`
    : ran.backend
      ? `TF.js backend ${ran.backend}`
      : `${ran.threads} CPU thread${ran.threads === 1 ? '' : 's'}`;
  return `engine: ${ran.engine}${note ? ` (${note})` : ''}, ${how}`;
}

/** The `train` command: the settings of its run (a resumed run's saved ones) and its plan. */
export function trainDescription(config: TrainConfig, resume: boolean, compute: Partial<ComputeSettings>, force = false): JobDescription {
  const checkpoint = runFiles(config.out).checkpoint;
  const settings = runSettings(config, resume && existsSync(checkpoint) ? readCheckpointHead(checkpoint) : undefined, compute);
  return { settings, plan: () => trainPlan(settings, resume, force) };
}

async function trainPlan(config: TrainConfig, resume: boolean, force: boolean): Promise<string[]> {
  const held = existsSync(runFiles(config.out).checkpoint);
  const finished = resume ? finishedRun(config.out) : undefined;
  if (finished) return [`nothing to train: ${finished}`];
  const run =
    !held && resume
      ? `refuse: ${noCheckpoint(config.out)}`
      : held && !resume && !force
        ? `refuse: ${config.out} already holds a run (pass --resume to continue it, --force to train it anew, or choose another --out)`
        : held && force
          ? `train anew ${config.out} (--force): ${config.epochs} epochs, replacing the run there`
          : runPlan(config, await runContentHashes()(config));
  return [
    cachePlan(config.cache),
    `embeddings: ${config.encoder} encoder, stored in ${config.cache}/embeddings/ (texts without one are embedded first)`,
    await computePlan(config),
    run,
    `writes in ${config.out}: config.json, provenance.json, log.jsonl, log.csv, events.out.tfevents.*, checkpoint.json (every epoch), best.json`,
  ];
}
