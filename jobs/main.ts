// The main job (`npm start`): a CPP policy trained on the default simulated world with
// `train/configs/main.json` for several seeds (two at a time, in warm training processes; finished seeds are
// reused and interrupted ones resumed), compared with every baseline on the test split.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Split } from '../src/cache/format.ts';
import type { DebateSettings } from '../src/env/settings.ts';
import { progress } from '../src/progress.ts';
import type { ComputeSettings } from '../src/policy/backends.ts';
import { overrideNotes, readConfigFile, resolveConfig, type TrainConfig } from '../train/config.ts';
import { runFiles } from '../train/runFolder.ts';
import { otherRunError, runStatus, trainRuns } from '../train/runs.ts';
import { runContentHashes } from '../train/identity.ts';
import { withLock } from '../src/io/lock.ts';
import { evalDescription, METHODS, type EvalOptions } from './eval.ts';
import type { CompareRequest, MasksRequest } from './trainingProcessMain.ts';
import type { TrainedMask } from '../eval/staticMask.ts';
import { trainingProcesses } from '../train/trainingProcesses.ts';
import { runPlan, type JobDescription } from '../train/plan.ts';
import { ensureDefaultCache } from '../src/sim/generate.ts';
import { RefusedError, SettingsError } from '../src/io/errors.ts';

export interface MainOptions {
  cache: string;
  split: Split;
  settings: Partial<DebateSettings>;
  config: string;
  seeds: number;
  /** Job folder: a run per seed (seed-N/) and the report (report/). */
  out: string;
  workers: number;
  /** Engine, threads and TF.js backend of the training runs and of the evaluation. */
  compute: ComputeSettings;
  /** Team file of the record tier: for the runs when their config sets miss = record, for the comparison when its miss is record. */
  endpoints?: string;
  /** Train anew the seeds whose folders hold runs of other settings or another cache (else an error naming each difference). */
  force?: boolean;
}

/** The runs (one per seed) and the comparison of the main job. */
function mainParts(o: MainOptions) {
  const seeds = Array.from({ length: o.seeds }, (_, s) => s);
  // The runs train in the debate the comparison replays (--agents, --rounds, ...), with the config's other settings.
  const settings: Partial<TrainConfig> = { ...runSettings(o), cache: o.cache };
  const trainRecords = resolveConfig(settings).miss === 'record';
  const compareRecords = o.settings.miss === 'record';
  if (o.endpoints !== undefined && !trainRecords && !compareRecords)
    throw new SettingsError(
      `--endpoints ${o.endpoints}: neither the training runs (${o.config}) nor the comparison (--miss ` +
        `${o.settings.miss ?? 'model'}) replay with miss = record, so no endpoint would be asked`,
    );
  if (trainRecords && o.endpoints !== undefined) settings.endpoints = o.endpoints;
  const runs = seeds.map((seed) => ({ seed, out: join(o.out, `seed-${seed}`) }));
  const comparison: EvalOptions = {
    policies: runs.map((r) => runFiles(r.out).best),
    cache: o.cache,
    split: o.split,
    compute: o.compute,
    settings: o.settings,
    methods: [...METHODS],
    seeds: o.seeds,
    config: o.config,
    reference: 'Full-Debate',
    out: join(o.out, 'report'),
    recording: { endpoints: compareRecords ? o.endpoints : undefined },
  };
  // The static masks read the train split only, so a process idle while the last run trains trains
  // them; not where a run or the comparison records (the cache would change under them).
  const masksAhead = comparison.methods.includes('mask') && !trainRecords && !compareRecords;
  return { seeds, settings, epochs: resolveConfig(settings).epochs, runs, comparison, masksAhead };
}

/** The main job's settings as its runs and comparison would use them, and its plan. */
export function mainDescription(o: MainOptions): JobDescription {
  const { settings, epochs, runs, comparison } = mainParts(o);
  const { seed: _, out: __, ...training } = resolveConfig(settings);
  const evaluation = evalDescription(comparison, true);
  return {
    settings: { out: o.out, workers: o.workers, training: { ...training, seed: 'per run', out: 'per run' }, runs, comparison: evaluation.settings },
    plan: async () => {
      const [cache, ...comparing] = await evaluation.plan();
      const hash = await runContentHashes()(settings);
      return [
        cache,
        `train CPP (${o.config}) for ${o.seeds} seeds, ${o.workers} at a time (${epochs} epochs each):`,
        ...runs.map((r) => `  ${runPlan({ ...settings, ...r }, hash, o.force)}`),
        `then compare (report in ${comparison.out}):`,
        ...comparing.map((l) => `  ${l}`),
      ];
    },
  };
}

/**
 * Settings of the job's training runs: the config file's, under the debate settings given (--rounds,
 * --agents, --miss, ...), so that the runs train in the debate the comparison replays; each
 * override of the file is said. A run's seed is its index (--seed is the comparison's replay seed).
 */
export function runSettings(o: Pick<MainOptions, 'config' | 'settings' | 'compute'>, say: (line: string) => void = console.error): Partial<TrainConfig> {
  const file = readConfigFile(o.config);
  const { seed: _replaySeed, priorSmoothing: _prior, ...debate } = o.settings;
  for (const line of overrideNotes(file, debate, o.config)) say(line);
  return { ...file, ...o.compute, ...debate };
}

/** The main job, with its folder locked (a second job into it is refused, naming this one). */
export async function mainJob(o: MainOptions): Promise<string> {
  const { settings, runs, comparison, masksAhead } = mainParts(o);
  return withLock(o.out, 'a main job', async () => {
    ensureDefaultCache(o.cache);
    const hash = await runContentHashes()(settings);
    // Every seed's folder is checked before any trains: a run of other settings or another cache is refused (or, --force, trained anew).
    const other = runs.map((r) => ({ r, d: runStatus({ ...settings, ...r }, hash).differences })).filter((x) => x.d.length);
    if (other.length && !o.force) throw new RefusedError(other.map((x) => otherRunError(x.r.out, x.d).message).join('\n'));
    console.error(`\ntraining CPP (${o.config}) for ${o.seeds} seeds, ${o.workers} at a time, in ${o.out}/`);
    // The comparison runs in the training process that trained last, which holds loaded what it reads too (jobs/trainingProcessMain.ts).
    const processes = trainingProcesses({ from: import.meta.url, name: './trainingProcessMain' });
    let masks: Promise<TrainedMask[]> | undefined;
    const startMasks = () => {
      const finished = comparison.policies.find((p) => existsSync(p)); // the debate's team and rounds
      if (!finished) return;
      masks = processes.task<TrainedMask[]>({ masks: { ...comparison, policies: [finished] } } satisfies MasksRequest, `the static masks (${comparison.out})`);
      masks.catch(() => {}); // awaited before the comparison; a failed run ends the job before that
    };
    try {
      const trained = await trainRuns(
        runs.map((run) => ({ ...settings, ...run })),
        hash,
        { workers: o.workers, label: 'train CPP', force: o.force, processes, idle: masksAhead ? startMasks : undefined },
      );
      const statuses = trained.map((outcome, i) => `seed ${runs[i].seed} ${outcome.status}`);
      const reused = `CPP runs: ${statuses.join(', ')} (reused: finished earlier with the same settings and cache content)`;
      const evaluating = progress(`comparing with every baseline on ${o.split}`, 1);
      const request: CompareRequest = { compare: { ...comparison, masks: await masks, notes: [reused], command: process.argv.slice(1) } };
      const { table, files } = await processes.task<{ table: string; files: string[] }>(request, `the comparison (${comparison.out})`);
      evaluating.stop();
      return `\nCPP (${o.seeds} seeds, settings ${o.config}, best validation checkpoints) against every baseline\n\n${table}\n\nwritten: ${files.join(', ')}`;
    } finally {
      // Awaited: the job ends after its processes, which a measure of its time (its waited-for children) then counts.
      await processes.close();
    }
  });
}
