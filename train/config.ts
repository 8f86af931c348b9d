// Every training setting, with its default and its meaning (docs/method.md §3–7). The CLI builds one flag
// per setting from this schema; a JSON config file may set any of them; the resolved config is
// saved with each run. The defaults of the optimizer, the advantages and the return are the main
// job's measured settings, which train a policy that prunes (docs/results.md, "What training achieves
// on the default world"); the method's own, which collapse there, are the preset `paper` (presets.ts).
import { z } from 'zod';
import { ENCODERS } from '../src/encoders/index.ts';
import { readJsonFile } from '../src/io/jsonFile.ts';
import { kebab, parseSettings } from '../src/io/problems.ts';
import { DebateSettings } from '../src/env/settings.ts';
import { ComputeSettings } from '../src/policy/backends.ts';
import { PolicyArchitecture, SEAT_INPUTS, seatInputsOf, TRAINABLE, type PolicyShape } from '../src/policy/model.ts';
import { RecordingSettings } from '../src/recording.ts';
import { RewardSettings } from '../src/reward.ts';
import { BASELINES } from './advantage.ts';
import { CREDIT_OUTCOMES, CREDIT_SCALES, CREDITS, creditProblem } from './counterfactual.ts';
import { InputError, SettingsError } from '../src/io/errors.ts';

const P = PolicyArchitecture.shape;
const R = RewardSettings.shape;
const D = DebateSettings.shape;

export const TrainConfig = z.strictObject({
  cache: z.string().default('cache/default').describe('cache directory to train on'),
  out: z.string().default('checkpoints/run').describe('run directory: config, logs, checkpoints'),
  encoder: z.enum(ENCODERS).default('bof').describe('text encoder: bof (hashed bag of features) or use (Universal Sentence Encoder lite)'),
  ...ComputeSettings.shape,
  seed: D.seed,
  epochs: z.number().int().positive().default(3).describe('passes over the train split'),
  batchSize: z.number().int().positive().default(16).describe('debates per REINFORCE step'),
  lr: z.number().positive().default(3e-4).describe('Adam learning rate'),
  beta1: z.number().min(0).lt(1).default(0.9).describe('Adam first-moment decay'),
  beta2: z.number().min(0).lt(1).default(0.999).describe('Adam second-moment decay'),
  epsilon: z.number().positive().default(1e-8).describe('Adam epsilon'),
  entropyBonus: z.number().min(0).default(1).describe('weight of the entropy bonus subtracted from the loss'),
  rewardTable: R.table.describe('reward per recipient transition for kept and pruned edges (config file only)'),
  a: R.a.describe('reward scale a in a_t = a * rho^(t-2)'),
  rho: R.rho.describe('round growth rho in a_t = a * rho^(t-2)'),
  k: R.k.describe('keep pressure of the C->C and W->W cells: 1 keep, 0 neutral, -1 prune'),
  lambda: R.lambda.describe('cost term weight: -lambda * kept tokens / mean response tokens'),
  k1: z.number().default(1).describe('k of stage 1 in two-stage training'),
  stage1Epochs: z.number().int().min(0).default(0).describe('epochs of stage 1 (k = k1) before stage 2 (k); 0 = one stage'),
  beta: z.number().min(0).default(0).describe('return: weight of influence on the next round'),
  gamma: z.number().min(0).default(0).describe('return: weight of influence on later candidates of the same recipient and round'),
  credit: z
    .enum(CREDITS)
    .default('return')
    .describe(
      "a decision's credit: return (its return G less the baseline, docs/method.md §6-7) or counterfactual (its debate's outcome " +
        'against a replay with that decision flipped and the same random draws elsewhere: train/counterfactual.ts)',
    ),
  creditOutcome: z
    .enum(CREDIT_OUTCOMES)
    .default('reward')
    .describe('counterfactual credit: the outcome compared, reward (summed over the debate) or correct (final majority right: 1, else 0)'),
  creditScale: z
    .enum(CREDIT_SCALES)
    .default('policy')
    .describe(
      "counterfactual credit: a decision's logit gradient, policy (p(1 - p) x the difference: the policy gradient) " +
        'or logit (the difference itself: a saturated decision still moves)',
    ),
  creditFlips: z
    .number()
    .int()
    .positive()
    .nullable()
    .default(null)
    .describe('counterfactual credit: decisions flipped per debate, a uniform sample of its decisions (null: every one)'),
  creditMaxBranches: z
    .number()
    .int()
    .positive()
    .nullable()
    .default(null)
    .describe("counterfactual credit: at most this many branch replays a step, spread evenly over the step's debates (null: no bound)"),
  rollouts: z
    .number()
    .int()
    .positive()
    .default(4)
    .describe('rollouts of each question per step (K): a step plays batchSize questions K times each, with independently sampled decisions'),
  baseline: z
    .enum(BASELINES)
    .default('rloo')
    .describe(
      'return baseline: running (docs/method.md §7: running mean per round and position), rloo (leave-one-out mean of the same decision slot ' +
        'over the other K - 1 rollouts; needs rollouts >= 2), context (running mean per decision slot, recipient right before, candidate right)',
    ),
  baselineMomentum: z.number().min(0).lt(1).default(0.9).describe('momentum of the running and context baselines'),
  normalizeAdvantages: z.boolean().default(true).describe('divide the advantages by their batch sd after subtracting their batch mean'),
  costWeight: z
    .number()
    .min(0)
    .default(0)
    .describe(
      "budget cost term: each kept edge pays costWeight x (its tokens x the recipient's input price) " +
        "/ (Full-Debate's cost of the question); with targetCost, the multiplier's starting value",
    ),
  targetCost: z
    .number()
    .gt(0)
    .max(1)
    .nullable()
    .default(null)
    .describe("target cost as a fraction of Full-Debate's: the cost multiplier follows dual ascent each step (null: fixed at costWeight)"),
  targetOn: z
    .enum(['greedy', 'sampled'])
    .default('greedy')
    .describe(
      'the batch cost dual ascent compares with targetCost: of the greedy policy (keep iff p >= 0.5, what ' +
        "evaluation runs; one extra forward-only replay of the step's questions) or of the sampled training decisions",
    ),
  dualLr: z.number().positive().default(20).describe('dual-ascent step of the cost multiplier per unit of (batch cost / Full-Debate cost - targetCost)'),
  hidden: P.hidden.describe('FuseGLU hidden width'),
  behavior: P.behavior.describe("behavior embedding init: mean (of the recipient's validation responses), random, none (zero, frozen)"),
  initSamples: P.initSamples.describe('validation questions whose responses initialize the behavior embedding (null: all)'),
  conditioning: P.conditioning.describe('query accumulates kept candidates (false: question only)'),
  ownFeature: P.ownFeature.describe('learned "is the recipient\'s own response" feature'),
  sourceFeature: P.sourceFeature.describe('learned source-agent feature'),
  roundFeature: P.roundFeature.describe('learned round feature'),
  currentFeature: P.currentFeature.describe('learned "candidate shown from the current round" feature (the recorded protocol, src/env/protocol.ts)'),
  turnFeature: P.turnFeature.describe("learned feature of the recipient's speaking position in its round (the recorded protocol)"),
  behaviorRows: P.behaviorRows.describe(
    "behavior rows of the candidate's source and the recipient (their validation statistics, src/policy/behaviorRows.ts) through a learned projection: the rows' version, or 0 (off)",
  ),
  decisions: P.decisions.describe(
    'what the policy decides: edges (the method), edges+revise (each recipient of a round >= 2 also revises or keeps its answer ' +
      'without a call), edges+revise+stop (the debate also stops before a round); docs/training.md',
  ),
  miss: D.miss,
  protocol: D.protocol,
  endpoints: RecordingSettings.shape.endpoints,
  responseModel: D.responseModel,
  rounds: D.rounds,
  allowUnrecordedRounds: D.allowUnrecordedRounds,
  agents: D.agents,
  round1Sample: D.round1Sample,
  tieBreak: D.tieBreak,
  tokenLimit: D.tokenLimit,
  teams: z
    .array(z.string())
    .default([])
    .describe(
      "caches of other teams on the same questions (e.g. cache gen --replace brisk=family-3): each step plays the run's team or one of these, " +
        'drawn by the seed; validation stays on cache (training across teams: train/teams.ts; every per-seat input off, or named in seatInputs)',
    ),
  seatInputs: z
    .array(z.enum(SEAT_INPUTS))
    .default([])
    .describe(
      'per-seat inputs (behavior, sourceFeature, turnFeature: src/policy/model.ts) a run across teams keeps, each named as an ablation; ' +
        'without it, training across teams refuses every one that is on',
    ),
  evalEvery: z.number().int().positive().default(1).describe('validation evaluation every N epochs; the best checkpoint is kept'),
  from: z
    .string()
    .nullable()
    .default(null)
    .describe('fine-tune: start from the weights of this policy (checkpoint or policy.json; the same team, encoder and architecture) (null: fresh)'),
  trainable: z.enum(TRAINABLE).default('all').describe('parameters the optimizer updates: all, or behavior (the behavior embedding alone)'),
  steps: z
    .number()
    .int()
    .positive()
    .nullable()
    .default(null)
    .describe('stop after this many steps in all, the last epoch cut short there (null: run every epoch)'),
  traceEvery: z
    .number()
    .int()
    .positive()
    .nullable()
    .default(null)
    .describe('evaluate the greedy policy on the test split at the start and every N steps, into log.jsonl: measured, never used to choose (null: never)'),
});
export type TrainConfig = z.infer<typeof TrainConfig>;

/**
 * Read a JSON config file; problems name the file and the field. Only the settings the file names
 * (zod fills in every default), so that what a flag overrides, and what the file sets, can be told.
 */
export function readConfigFile(file: string): Partial<TrainConfig> {
  const parsed: Record<string, unknown> = readJsonFile(file, TrainConfig.partial());
  const named = Object.keys(readJsonFile(file, z.looseObject({})));
  const settings = Object.fromEntries(named.map((k) => [k, parsed[k]])) as Partial<TrainConfig>;
  // Both set by the file: its own contradiction, named by it (a flag may yet set rollouts otherwise).
  if (settings.baseline !== undefined && settings.rollouts !== undefined) {
    const problem = rlooProblem(settings as TrainConfig);
    if (problem) throw new InputError(`${file}: ${problem}`);
  }
  return settings;
}

/** RLOO's baseline is the other rollouts of a question: with fewer than two there is none. */
const rlooProblem = (c: Pick<TrainConfig, 'baseline' | 'rollouts'>) =>
  c.baseline === 'rloo' && c.rollouts < 2
    ? `baseline: rloo needs rollouts >= 2 (found ${c.rollouts}): the other rollouts of a question are its baseline`
    : undefined;

/** Decisions beyond edges are credited by their return against the other rollouts' (the running and context baselines, and counterfactual flips, are kept per edge slot). */
const decisionsProblem = (c: Pick<TrainConfig, 'decisions' | 'baseline' | 'credit'>) =>
  c.decisions === 'edges'
    ? undefined
    : c.baseline !== 'rloo'
      ? `decisions: ${c.decisions} needs baseline rloo (found ${c.baseline}: its state is kept per edge slot)`
      : c.credit !== 'return'
        ? `decisions: ${c.decisions} needs credit return (found ${c.credit}: counterfactual credit flips edges only)`
        : undefined;

export function resolveConfig(...layers: Partial<TrainConfig>[]): TrainConfig {
  const merged = Object.assign({}, ...layers.map((l) => Object.fromEntries(Object.entries(l).filter(([, v]) => v !== undefined))));
  const config = parseSettings(TrainConfig, merged, (path) => `setting ${path}`);
  const problem = rlooProblem(config) ?? creditProblem(config) ?? seatInputsProblem(config) ?? decisionsProblem(config);
  if (problem) throw new SettingsError(`setting ${problem}`);
  if (config.trainable === 'behavior' && config.behavior === 'none')
    throw new SettingsError('setting trainable: behavior trains the behavior embedding alone, and behavior: none has none (zero, frozen): nothing would train');
  return config;
}

/** How each per-seat input is turned off. */
const SEAT_INPUT_OFF: Record<(typeof SEAT_INPUTS)[number], string> = {
  behavior: 'behavior: none (--behavior none)',
  sourceFeature: 'sourceFeature: false (--no-source-feature)',
  turnFeature: 'turnFeature: false (--no-turn-feature)',
};

/**
 * Training across teams reads no per-seat input that an ablation does not name: each describes a seat,
 * not the agent in it, so across teams it would describe every team's agents of a seat alike (and
 * a policy that reads one is not team-general). `seatInputs` names only inputs that are on, and only
 * across teams, where it means something.
 */
export function seatInputsProblem(c: Pick<TrainConfig, 'teams' | 'seatInputs' | (typeof SEAT_INPUTS)[number]>): string | undefined {
  const on = seatInputsOf(c);
  if (c.teams.length === 0)
    return c.seatInputs.length ? `seatInputs: names ${c.seatInputs.join(', ')}, kept across teams, and teams is empty: nothing to keep` : undefined;
  const off = c.seatInputs.filter((k) => !on.includes(k));
  if (off.length) return `seatInputs: names ${off.join(', ')}, which ${off.length > 1 ? 'are' : 'is'} off: nothing to keep`;
  const unnamed = on.filter((k) => !c.seatInputs.includes(k));
  if (unnamed.length === 0) return undefined;
  return (
    `teams: training across teams reads agents by their behavior rows, and ${unnamed.join(', ')} ${unnamed.length > 1 ? 'describe' : 'describes'} ` +
    `a seat, not the agent in it: set ${unnamed.map((k) => SEAT_INPUT_OFF[k]).join(', ')}, or name ${unnamed.length > 1 ? 'them' : 'it'} in seatInputs ` +
    `(--seat-inputs ${unnamed.join(',')}) to keep ${unnamed.length > 1 ? 'them' : 'it'} as an ablation`
  );
}

/** A run of `c` has trained all it will once it has done every epoch, or `steps` steps. */
export const runDone = (c: Pick<TrainConfig, 'epochs' | 'steps'>, at: { epoch: number; step: number }) =>
  at.epoch >= c.epochs || (c.steps !== null && at.step >= c.steps);

export const debateSettingsOf = (c: TrainConfig, split: 'train' | 'eval'): Partial<DebateSettings> => ({
  miss: c.miss,
  protocol: c.protocol,
  responseModel: c.responseModel,
  rounds: c.rounds,
  allowUnrecordedRounds: c.allowUnrecordedRounds,
  agents: c.agents,
  round1Sample: split === 'train' ? c.round1Sample : 'first',
  tieBreak: c.tieBreak,
  tokenLimit: c.tokenLimit,
  seed: c.seed,
});

export const rewardSettingsOf = (c: TrainConfig, k: number): RewardSettings => ({ table: c.rewardTable, a: c.a, rho: c.rho, k, lambda: c.lambda });

export const architectureOf = (c: TrainConfig): PolicyArchitecture & Pick<PolicyShape, 'trainable'> => ({
  trainable: c.trainable,
  hidden: c.hidden,
  behavior: c.behavior,
  initSamples: c.initSamples,
  conditioning: c.conditioning,
  ownFeature: c.ownFeature,
  sourceFeature: c.sourceFeature,
  roundFeature: c.roundFeature,
  currentFeature: c.currentFeature,
  turnFeature: c.turnFeature,
  behaviorRows: c.behaviorRows,
  decisions: c.decisions,
});

/** Each setting a flag gives another value than the config file `name` does: the flag wins, and these lines say so. */
export function overrideNotes(file: Partial<TrainConfig>, flags: Partial<TrainConfig>, name: string | undefined): string[] {
  const f = file as Record<string, unknown>;
  return Object.entries(flags)
    .filter(([k, v]) => f[k] !== undefined && JSON.stringify(f[k]) !== JSON.stringify(v))
    .map(([k, v]) => `--${kebab(k)} ${JSON.stringify(v)} overrides ${k} ${JSON.stringify(f[k])} of ${name}`);
}
