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
import type { JobDescription } from '../../train/plan.ts';

import { DEFAULT_CACHE } from '../sim/generate.ts';

export const cacheOption = <T>(y: Argv<T>) => y.option('cache', { type: 'string', default: DEFAULT_CACHE, describe: 'cache directory to read' });

export const splitOption = <T>(y: Argv<T>, describe = 'questions to evaluate on') => y.option('split', { choices: SPLITS, default: 'test' as Split, describe });

export const seedsOption = <T>(y: Argv<T>, describe: string, fallback = 3) => y.option('seeds', { type: 'number', default: fallback, describe: `${describe} (seeds 0..N-1)` });

export const workersOption = <T>(y: Argv<T>, describe: string) => y.option('workers', { type: 'number', default: 2, describe });

const DEBATE = 'Debate (SPEC §1, §3):';
const ENGINE = 'Policy engine:';
const PLAN = 'Before running:';

/** Debate settings of the replaying commands (SPEC §1, §3). */
export function debateOptions<T>(y: Argv<T>) {
  return y
    .option('miss', { choices: MISS_TIERS, default: 'model' as const, describe: 'deepest lookup tier on a cache miss: error | signature | model | record (record asks the live endpoint; simulator caches have one)', group: DEBATE })
    .option('response-model', { choices: RESPONSE_MODELS, default: DebateSettings.shape.responseModel.parse(undefined), describe: 'tier-3 response model: full (own response kept or pruned, agreeing / disagreeing peers, peer accuracy) or base (SPEC §3 base form)', group: DEBATE })
    .option('rounds', { type: 'number', default: 3, describe: 'debate rounds R (round 1 = independent answers)', group: DEBATE })
    .option('agents', { type: 'string', describe: 'team as comma-separated agent ids (default: every agent of the cache)', group: DEBATE })
    .option('round1-sample', { choices: ['first', 'random'] as const, default: 'first' as const, describe: 'round-1 sample a debate starts from', group: DEBATE })
    .option('tie-break', { choices: ['lowest-agent', 'random'] as const, default: 'lowest-agent' as const, describe: 'majority tie rule', group: DEBATE })
    .option('token-limit', { choices: ['none', 'q85', 'q95'] as const, default: 'none' as const, describe: "per-agent output-token limit (the agent's q85 / q95 recorded length); a longer reply is cut and loses its answer", group: DEBATE })
    .option('seed', { type: 'number', default: 0, describe: 'seed of every random choice in a replay', group: DEBATE });
}

export function debateSettings(a: { miss: DebateSettings['miss']; responseModel: DebateSettings['responseModel']; rounds: number; agents?: string; round1Sample: DebateSettings['round1Sample']; tieBreak: DebateSettings['tieBreak']; tokenLimit: DebateSettings['tokenLimit']; seed: number }): Partial<DebateSettings> {
  return { miss: a.miss, responseModel: a.responseModel, rounds: a.rounds, agents: a.agents?.split(',').map((s) => s.trim()), round1Sample: a.round1Sample, tieBreak: a.tieBreak, tokenLimit: a.tokenLimit, seed: a.seed };
}

/** The record tier's endpoints (`train` and `active` take the same flag from their `endpoints` setting). */
export const endpointsOption = <T>(y: Argv<T>) =>
  y.option('endpoints', {
    type: 'string',
    describe: "team file: the OpenAI-compatible endpoint of each agent, asked by the record tier (miss = record); default: a simulated cache's simulator (README: Live endpoints)",
  });

/** How policy math is computed (engine, threads, TF.js backend). */
export function computeOptions<T>(y: Argv<T>) {
  const d = defaultCompute();
  return y
    .option('engine', { choices: ENGINES, default: d.engine, describe: 'policy-math engine: onnx (ONNX Runtime, native CPU), tfjs (TF.js on --backend); auto: onnx when it loads', group: ENGINE })
    .option('threads', { type: 'number', default: d.threads, describe: 'CPU threads of the onnx engine', group: ENGINE })
    .option('backend', { choices: BACKENDS, default: d.backend, describe: 'TF.js backend of the tfjs engine', group: ENGINE });
}

/** `--print-config` and `--dry-run`, on every command that trains or evaluates. */
export const planOptions = <T>(y: Argv<T>) =>
  y
    .option('print-config', { type: 'boolean', describe: 'print the resolved settings, as the run would use them, as JSON and exit', group: PLAN })
    .option('dry-run', { type: 'boolean', describe: 'print what would run (runs started, reused or resumed; what is evaluated and written) and exit, writing nothing', group: PLAN })
    .conflicts('print-config', 'dry-run');

/** Print the job's settings or plan when asked to, else run it. */
export async function runOrPlan(a: { printConfig?: boolean; dryRun?: boolean }, describe: () => JobDescription | Promise<JobDescription>, run: () => Promise<void>) {
  if (a.printConfig) console.log(JSON.stringify((await describe()).settings, null, 2));
  else if (a.dryRun) console.log((await (await describe()).plan()).join('\n'));
  else await run();
}
