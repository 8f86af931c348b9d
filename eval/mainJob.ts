// The main job (`npm start`): a CPP policy trained on the default simulated world with
// `train/configs/main.json` for several seeds (two at a time, in child processes; finished seeds are
// reused and interrupted ones resumed), compared with every baseline on the test split.
import { join } from 'node:path';
import type { Split } from '../src/cache/format.ts';
import type { DebateSettings } from '../src/env/settings.ts';
import { progress } from '../src/progress.ts';
import type { ComputeSettings } from '../src/policy/backends.ts';
import { readConfigFile, resolveConfig, type TrainConfig } from '../train/config.ts';
import { overrideNotes } from '../train/flags.ts';
import { runFiles } from '../train/runFolder.ts';
import { pool, runTraining } from '../train/runs.ts';
import { evalJob, METHODS } from './evalPolicy.ts';
import { ensureDefaultCache } from '../src/sim/generate.ts';

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

export async function mainJob(o: MainOptions): Promise<string> {
  ensureDefaultCache(o.cache);
  const seeds = Array.from({ length: o.seeds }, (_, s) => s);
  const settings = runSettings(o);
  const epochs = resolveConfig(settings).epochs;
  console.error(`\ntraining CPP (${o.config}) for ${o.seeds} seeds, ${o.workers} at a time, in ${o.out}/`);
  const bar = progress('train CPP', seeds.length * epochs);
  let done = 0;
  const runs = await pool(seeds, o.workers, (seed) =>
    runTraining({ ...settings, cache: o.cache, seed, out: join(o.out, `seed-${seed}`) }, epochs, () => bar.update(++done)),
  );
  bar.stop();
  const failed = runs.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed.length) throw new Error(failed.map((f) => (f.reason as Error).message).join('\n'));
  const policies = seeds.map((s) => runFiles(join(o.out, `seed-${s}`)).best);
  const { table, files } = await evalJob({ policies, cache: o.cache, split: o.split, compute: o.compute, settings: o.settings, methods: [...METHODS], seeds: o.seeds, config: o.config, reference: 'Full-Debate', out: join(o.out, 'report') });
  return `\nCPP (${o.seeds} seeds, settings ${o.config}, best validation checkpoints) against every baseline\n\n${table}\n\nwritten: ${files.join(', ')}`;
}
