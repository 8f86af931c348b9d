// Options shared by several commands. Each flag has one meaning in every command that takes it
// (the README's flag table lists them):
//   --cache DIR    the cache a command reads          --out DIR     the folder a command writes
//   --config FILE  a training-settings file           --split S     the questions it replays
//   --seed N       the one seed of what it does       --seeds N     seeded runs 0..N-1
import type { Argv } from 'yargs';
import { SPLITS, type Split } from '../cache/format.ts';
import { RESPONSE_MODELS } from '../env/responseModel.ts';
import { DebateSettings, MISS_TIERS } from '../env/settings.ts';
import { BACKENDS, ENGINES } from '../policy/backends.ts';
import { defaultCompute } from '../../train/config.ts';

import { DEFAULT_CACHE } from '../sim/generate.ts';

export const cacheOption = <T>(y: Argv<T>) => y.option('cache', { type: 'string', default: DEFAULT_CACHE, describe: 'cache directory to read' });

export const splitOption = <T>(y: Argv<T>, describe = 'questions to evaluate on') => y.option('split', { choices: SPLITS, default: 'test' as Split, describe });

export const seedsOption = <T>(y: Argv<T>, describe: string, fallback = 3) => y.option('seeds', { type: 'number', default: fallback, describe: `${describe} (seeds 0..N-1)` });

export const workersOption = <T>(y: Argv<T>, describe: string) => y.option('workers', { type: 'number', default: 2, describe });

/** Debate settings of the replaying commands (SPEC §1, §3). */
export function debateOptions<T>(y: Argv<T>) {
  return y
    .option('miss', { choices: MISS_TIERS, default: 'model' as const, describe: 'deepest lookup tier on a cache miss: error | signature | model | record (record asks the live endpoint; simulator caches have one)' })
    .option('response-model', { choices: RESPONSE_MODELS, default: DebateSettings.shape.responseModel.parse(undefined), describe: 'tier-3 response model: full (own response kept or pruned, agreeing / disagreeing peers, peer accuracy) or base (SPEC §3 base form)' })
    .option('rounds', { type: 'number', default: 3, describe: 'debate rounds R (round 1 = independent answers)' })
    .option('agents', { type: 'string', describe: 'team as comma-separated agent ids (default: every agent of the cache)' })
    .option('round1-sample', { choices: ['first', 'random'] as const, default: 'first' as const, describe: 'round-1 sample a debate starts from' })
    .option('tie-break', { choices: ['lowest-agent', 'random'] as const, default: 'lowest-agent' as const, describe: 'majority tie rule' })
    .option('seed', { type: 'number', default: 0, describe: 'seed of every random choice in a replay' });
}

export function debateSettings(a: { miss: DebateSettings['miss']; responseModel: DebateSettings['responseModel']; rounds: number; agents?: string; round1Sample: DebateSettings['round1Sample']; tieBreak: DebateSettings['tieBreak']; seed: number }): Partial<DebateSettings> {
  return { miss: a.miss, responseModel: a.responseModel, rounds: a.rounds, agents: a.agents?.split(',').map((s) => s.trim()), round1Sample: a.round1Sample, tieBreak: a.tieBreak, seed: a.seed };
}

/** How policy math is computed (engine, threads, TF.js backend). */
export function computeOptions<T>(y: Argv<T>) {
  const d = defaultCompute();
  return y
    .option('engine', { choices: ENGINES, default: d.engine, describe: 'policy-math engine: onnx (ONNX Runtime, native CPU), tfjs (TF.js on --backend); auto: onnx when it loads' })
    .option('threads', { type: 'number', default: d.threads, describe: 'CPU threads of the onnx engine' })
    .option('backend', { choices: BACKENDS, default: d.backend, describe: 'TF.js backend of the tfjs engine' });
}
