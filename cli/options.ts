// Options shared by several commands. Each flag has one meaning in every command that takes it
// (docs/cli.md's flag table lists them):
//   --cache DIR    the cache a command reads          --out DIR     the folder a command writes
//   --config FILE  a training-settings file           --split S     the questions it replays
//   --seed N       the one seed of what it does       --seeds N     seeded runs 0..N-1
import type { Argv } from 'yargs';
import { z } from 'zod';
import { parseSettings } from '../src/io/problems.ts';
import { RecordingSettings, type RecordingOptions } from '../src/recording.ts';
import { SPLITS, type Split } from '../src/cache/format.ts';
import { keepNoHashes } from '../src/cache/hash.ts';
import { parseDebateSettings } from '../src/env/environment.ts';
import { DebateSettings } from '../src/env/settings.ts';
import { COMPUTE_SETTINGS, ComputeSettings } from '../src/policy/backends.ts';
import { kebab, settingFlags } from './flags.ts';
import type { JobDescription } from '../train/plan.ts';

import { DEFAULT_CACHE } from '../src/sim/generate.ts';
import { given } from './given.ts';

export { given, refuseUnused } from './given.ts';

export const cacheOption = <T>(y: Argv<T>) => y.option('cache', { type: 'string', default: DEFAULT_CACHE, describe: 'cache directory to read' });

export const splitOption = <T>(y: Argv<T>, describe = 'questions to evaluate on') => y.option('split', { choices: SPLITS, default: 'test' as Split, describe });

/** A count of work (seeds, workers): at least 1, since none would do nothing and report an empty table as if it were a result. */
const count =
  (flag: string, what: string) =>
  (v: number): number =>
    v === undefined ? v : parseSettings(z.number({ error: 'must be a number' }).int().min(1, `must be at least 1 (${what})`), v, () => `--${flag}`);

export const seedsOption = <T>(y: Argv<T>, describe: string, fallback = 3) =>
  y.option('seeds', { type: 'number', default: fallback, describe: `${describe} (seeds 0..N-1)`, coerce: count('seeds', 'with no seed nothing is run') });

/** A keep rate (random pruning): a probability, 0 to 1. */
export const keepRateCoerce = (v: number): number =>
  v === undefined
    ? v
    : parseSettings(
        z
          .number({ error: 'must be a number' })
          .min(0, 'must be at least 0 (a probability: 0 keeps no edge)')
          .max(1, 'must be at most 1 (a probability: 1 keeps every edge)'),
        v,
        () => '--keep-rate',
      );

/** The recording flags (--concurrency, --max-calls, --budget-usd), checked by their schema before anything is written. */
export function recordingFlags(a: { concurrency: number; maxCalls?: number; budgetUsd?: number }): Pick<RecordingOptions, 'concurrency' | 'limits'> {
  const s = parseSettings(RecordingSettings, { concurrency: a.concurrency, maxCalls: a.maxCalls, budgetUsd: a.budgetUsd }, (path) => `--${kebab(path)}`);
  return { concurrency: s.concurrency, limits: { maxCalls: s.maxCalls, budget: s.budgetUsd } };
}

export const workersOption = <T>(y: Argv<T>, describe: string) =>
  y.option('workers', { type: 'number', default: 2, describe, coerce: count('workers', 'with no worker nothing is trained') });

const DEBATE = 'Debate (docs/method.md §1, §3):';
const ENGINE = 'Policy engine:';
const PLAN = 'Before running:';

/** The debate settings a replaying command takes as flags (not priorSmoothing: a config file's). */
const DEBATE_FLAGS = [
  'miss',
  'protocol',
  'responseModel',
  'rounds',
  'allowUnrecordedRounds',
  'agents',
  'round1Sample',
  'tieBreak',
  'tokenLimit',
  'seed',
] as const;
type DebateFlags = Partial<Pick<DebateSettings, (typeof DEBATE_FLAGS)[number]>>;

/** Debate settings of the replaying commands (docs/method.md §1, §3). A policy or a training config may set the rounds. */
export const debateOptions = <T>(y: Argv<T>) =>
  settingFlags(y, DebateSettings.shape, DEBATE_FLAGS, {
    group: DEBATE,
    defaulted: true,
    elsewhere: { rounds: 'or the rounds of the policy or training config' },
  });

/**
 * The debate settings the user gave (a job fills in the rest: defaults, or a policy's or config's
 * rounds), checked at once so that a bad one (e.g. --rounds 1) fails before anything loads.
 */
export function debateSettings(a: DebateFlags): Partial<DebateSettings> {
  const out: Partial<DebateSettings> = Object.fromEntries(DEBATE_FLAGS.filter((k) => given(a, kebab(k))).map((k) => [k, a[k]]));
  parseDebateSettings(out);
  return out;
}

/** The compute flags a run would not use: --threads drive the ONNX engines only, --backend the TF.js engine only. */
export const computeRules = (a: ComputeSettings, policyMath = true, why = ''): [string, boolean, string][] => [
  ['engine', !policyMath, why],
  [
    'threads',
    !policyMath || a.engine === 'tfjs' || a.engine === 'webgpu',
    policyMath ? `sets the CPU threads of the onnx engines, not of --engine ${a.engine}` : why,
  ],
  [
    'backend',
    !policyMath || a.engine === 'onnx' || a.engine === 'onnx-cuda' || a.engine === 'webgpu',
    policyMath ? `sets the TF.js backend of --engine tfjs, not of --engine ${a.engine}` : why,
  ],
];

/** The record tier's endpoints (`train` and `active` take the same flag from their `endpoints` setting). */
export const endpointsOption = <T>(y: Argv<T>) => settingFlags(y, RecordingSettings.shape, ['endpoints'], { defaulted: true });

/** How policy math is computed (engine, threads, TF.js backend). */
export const computeOptions = <T>(y: Argv<T>) => settingFlags(y, ComputeSettings.shape, COMPUTE_SETTINGS, { group: ENGINE, defaulted: true });

/** `--print-config` and `--dry-run`, on every command that trains or evaluates. */
export const planOptions = <T>(y: Argv<T>) =>
  y
    .option('print-config', { type: 'boolean', describe: 'print the resolved settings, as the run would use them, as JSON and exit', group: PLAN })
    .option('dry-run', {
      type: 'boolean',
      describe: 'print what would run (runs started, reused or resumed; what is evaluated and written) and exit, writing nothing',
      group: PLAN,
    })
    .conflicts('print-config', 'dry-run');

/** Print the job's settings or plan when asked to, else run it. */
export async function runOrPlan(
  a: { printConfig?: boolean; dryRun?: boolean },
  describe: () => JobDescription | Promise<JobDescription>,
  run: () => Promise<void>,
) {
  if (a.printConfig || a.dryRun) keepNoHashes(); // planning writes nothing
  if (a.printConfig) console.log(JSON.stringify((await describe()).settings, null, 2));
  else if (a.dryRun) console.log((await (await describe()).plan()).join('\n'));
  else await run();
}
