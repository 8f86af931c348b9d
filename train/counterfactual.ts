// Counterfactual credit (setting `credit = counterfactual`; docs/training.md "Counterfactual credit"): a
// sampled decision is credited with what it changed, measured by replaying its debate with that one
// decision flipped. A branch is a replay like any other: its lookups go through the same tiers (with
// miss = record, a context the cache lacks is asked and recorded), and offline it costs microseconds.
//
// Common random numbers. A branch shares with its factual debate
//   - the round-1 samples and every round before its flipped decision's: it starts from its factual
//     debate's state at the start of that round (replaying the earlier rounds would give them again);
//   - every decision but the flipped one, in every round: the factual's sampled keep/prune, fixed
//     (the policy is not asked again);
//   - each lookup's draws: the reply of agent a in round t (the exact or signature tier's pick among
//     samples, the tier-3 model's answer) takes the uniform the factual's lookup of (t, a) drew, and
//     the tie-break of the vote the factual's vote's (Debate.drawsOf). A lookup that draws where the
//     factual's did not draws from a stream of its own (debate seed, question, round, agent).
// Draws are shared per lookup, not by position in the debate's one stream: there, a lookup that draws
// where the factual's did not (a tier-3 answer against an exact hit with one sample) would shift every
// later draw, and a flip that changes no reply would still change the debate.
// Why later decisions are held fixed rather than sampled again with the same uniforms: the difference
// is then the flip's own effect with every other decision where it was (the difference reward of
// multi-agent credit assignment), a branch needs no policy pass, and decisions sampled anew would add
// their own noise to it. What it gives up: later decisions do not adapt to the flip as the policy would
// where the flip changed a reply they read (their probabilities would move, the decisions rarely).
// The factual debates are replayed once per step to keep their draws and states (a check that they
// replay to the same answers guards the whole scheme).
//
// The advantage of decision x, sampled action a with probability p = pi(a):
//   p · (outcome(factual) - outcome(branch)) · (decisions per debate / decisions flipped in it).
// The pair estimates Q(a) - Q(not a); weighted by p, the gradient of x is grad p_keep · (Q(keep) -
// Q(prune)) whichever action was sampled (the all-action estimator: no noise from x's own draw); the
// last factor keeps a sampled subset's gradient on the scale of flipping every decision. Decisions not
// flipped get no policy gradient (advantage 0, left out of the normalization). The outcome
// (`creditOutcome`): `reward`, the debate-tailored reward (docs/method.md §5, with lambda) summed over
// the debate's decisions; `correct`, 1 if the final majority is right, else 0. Both pay the budget term
// (advantage.ts) of every kept edge. Under `reward` a flip that changes no reply still differs by the
// flipped edge's own reward (the kept against the pruned cell of the table); under `correct` it is 0.
import seedrandom from 'seedrandom';
import { actionIndex, actionOf, actionsPerDebate, candidateOrder } from '../src/env/actions.ts';
import { finishDebate, startDebates, stepDebates, type Debate, type DebateResult } from '../src/env/debate.ts';
import type { Environment } from '../src/env/environment.ts';
import { addTiers, emptyTiers, type TierCounts } from '../src/env/tiers.ts';
import { shownTokens } from '../src/env/tokenLimit.ts';
import { SettingsError } from '../src/io/errors.ts';
import { advantagesOf, batchRewards, budgetTerms, type AdvantageSettings, type Advantages, type Played } from './advantage.ts';
import type { TrainConfig } from './config.ts';
import { round4, tierShares, type LogLine } from './runFolder.ts';

export const CREDITS = ['return', 'counterfactual'] as const;
export const CREDIT_OUTCOMES = ['reward', 'correct'] as const;
export const CREDIT_SCALES = ['policy', 'logit'] as const;

type CreditSettings = Pick<TrainConfig, 'credit' | 'creditOutcome' | 'creditScale' | 'creditFlips' | 'creditMaxBranches'>;

/** The counterfactual settings mean nothing to the return's credit: set there, they are an error. */
export function creditProblem(c: CreditSettings): string | undefined {
  if (c.credit === 'counterfactual') return undefined;
  const set = [
    c.creditOutcome !== 'reward' && `creditOutcome ${c.creditOutcome}`,
    c.creditScale !== 'policy' && `creditScale ${c.creditScale}`,
    c.creditFlips !== null && `creditFlips ${c.creditFlips}`,
    c.creditMaxBranches !== null && `creditMaxBranches ${c.creditMaxBranches}`,
  ].filter(Boolean);
  return set.length ? `${set.join(', ')}: counterfactual settings, but credit is return (set credit: counterfactual)` : undefined;
}

/** Branches of each of `debates` debates: `flips` each (null: all `perDebate`), spread evenly under the step's bound. */
export function flipCounts(debates: number, perDebate: number, flips: number | null, maxBranches: number | null): number[] {
  const each = Math.min(perDebate, flips ?? perDebate);
  if (maxBranches === null || each * debates <= maxBranches) return new Array<number>(debates).fill(each);
  return Array.from({ length: debates }, (_, k) => Math.min(each, Math.floor(maxBranches / debates) + (k < maxBranches % debates ? 1 : 0)));
}

/** `count` of the decisions 0..n-1, drawn without replacement, in increasing order. */
function chooseFlips(n: number, count: number, random: () => number): number[] {
  const all = Array.from({ length: n }, (_, x) => x);
  if (count >= n) return all;
  for (let k = 0; k < count; k++) {
    const j = k + Math.floor(random() * (n - k));
    [all[k], all[j]] = [all[j], all[k]];
  }
  return all.slice(0, count).sort((a, b) => a - b);
}

/** Each lookup's draws of one debate, by `round|agent` (agent -1: the vote). */
type Tape = Map<string, number[]>;

/** Draw in turn from the debate's own stream, as without common random numbers, and keep each lookup's draws. */
function recordDraws(d: Debate, tape: Tape): void {
  d.drawsOf = (round, agent) => () => {
    const u = d.random();
    const key = `${round}|${agent}`;
    tape.set(key, [...(tape.get(key) ?? []), u]);
    return u;
  };
}

/** Each lookup takes the factual's draws of the same lookup first, then a stream of its own. */
function replayDraws(d: Debate, tape: Tape, seed: string): void {
  d.drawsOf = (round, agent) => {
    const taped = tape.get(`${round}|${agent}`) ?? [];
    let used = 0;
    let own: (() => number) | undefined;
    return () => (used < taped.length ? taped[used++] : (own ??= seedrandom(`${seed}|${d.q}|branch|${round}|${agent}`))());
  };
}

/** A debate as it stands, to go on from apart: stepping the copy leaves the original as it is. */
const copyOf = (d: Debate): Debate => ({
  ...d,
  current: [...d.current],
  history: [...d.history],
  answers: [...d.answers],
  keeps: [...d.keeps],
  revises: [...d.revises],
  tiers: { ...d.tiers },
});

/**
 * Step `debates` to the last round in lockstep (the record tier asks each round's missing contexts
 * together), each from the round it stands at, under `keeps[k]`; `tokens` gets each decision's
 * candidate tokens from there on, and `atRound(d, k)` is called before each round a debate plays.
 */
async function stepKept(
  env: Environment,
  debates: Debate[],
  keeps: boolean[][][][],
  tokens: Float32Array,
  atRound: (d: Debate, k: number) => void = () => {},
): Promise<DebateResult[]> {
  const A = env.team.length;
  const N = actionsPerDebate(A, env.rounds);
  for (let t = 2; t <= env.rounds; t++) {
    const playing = debates.flatMap((d, k) => (d.round === t - 1 ? [k] : []));
    for (const k of playing) {
      atRound(debates[k], k);
      for (let i = 0; i < A; i++) candidateOrder(A, i).forEach((c, j) => (tokens[k * N + actionIndex(A, t, i, j)] = shownTokens(env, debates[k].current[c])));
    }
    await stepDebates(
      env,
      playing.map((k) => debates[k]),
      playing.map((k) => ({ keep: keeps[k][t - 2] })),
    );
  }
  return debates.map((d) => finishDebate(env, d));
}

/** A batch of played debates with the decisions sampled in them (a Rollout is one). */
export interface Sampled extends Played {
  actions: Uint8Array;
  probs: Float32Array;
}

export interface BranchStats {
  branches: number;
  /** Branches whose outcome differs from their factual debate's. */
  changed: number;
  /** Record-tier calls the branches asked. */
  calls: number;
  /** Lookups of the branches by tier (from the flipped decision's round on). */
  tiers: TierCounts;
}

/** Per debate: its outcome (see the header). */
export function outcomes(
  p: Played,
  s: Pick<AdvantageSettings, 'reward' | 'meanTokens' | 'agents' | 'budget'>,
  outcome: TrainConfig['creditOutcome'],
): number[] {
  const N = p.results.length ? p.tokens.length / p.results.length : 0;
  const per: ArrayLike<number> = outcome === 'reward' ? batchRewards(p, s) : budgetTerms(p, s);
  return p.results.map((d, k) => {
    let sum = outcome === 'correct' && d.finalCorrect ? 1 : 0;
    for (let x = k * N; x < (k + 1) * N; x++) sum += per[x];
    return sum;
  });
}

/** A branch that could not be replayed (a miss under miss = signature) leaves its decision without credit: refused. */
function checkReplayed(env: Environment, results: DebateResult[]): void {
  const missed = results.find((d) => d.missed);
  if (missed)
    throw new SettingsError(
      `setting credit: counterfactual: a branch of question '${env.cache.questions[missed.q].id}' cannot be replayed: ${missed.missed} ` +
        '(branches visit contexts the cache lacks: miss = model or record answers them)',
    );
}

/** A branch: decision `x` of debate `k` of the batch flipped. */
export interface Branch {
  k: number;
  x: number;
}

/**
 * Replay `branches` of the batch `r` (played with `debateSeed`) with the draws of their factual
 * debates (see the header); `calls`: the record-tier calls they asked.
 */
export async function playBranches(env: Environment, r: Played, branches: Branch[], debateSeed: string): Promise<Played & { calls: number }> {
  const A = env.team.length;
  const N = actionsPerDebate(A, env.rounds);
  const calls = () => env.recording?.spent.calls ?? 0;
  const before = calls();
  // The factual debates again, keeping each lookup's draws and the state before each round: the same
  // debates, draw for draw; a branch starts where its flipped decision is made.
  const tapes = r.results.map((): Tape => new Map());
  const snapshots = r.results.map((): Debate[] => []);
  const factual = await startDebates(
    env,
    r.results.map((d) => d.q),
    debateSeed,
  );
  factual.forEach((d, k) => recordDraws(d, tapes[k]));
  const again = await stepKept(
    env,
    factual,
    r.results.map((d) => d.keeps),
    new Float32Array(r.tokens.length),
    (d, k) => (snapshots[k][d.round + 1] = copyOf(d)),
  );
  again.forEach((d, k) => {
    if (JSON.stringify(d.answers) !== JSON.stringify(r.results[k].answers) || d.final !== r.results[k].final)
      throw new Error(`counterfactual credit: debate ${k} of the batch (question ${d.q}) replayed to other answers than it was played`);
  });
  const tokens = new Float32Array(branches.length * N);
  const debates = branches.map(({ k, x }, b) => {
    tokens.set(r.tokens.subarray(k * N, (k + 1) * N), b * N); // the rounds before the flip, as played
    const d = { ...copyOf(snapshots[k][actionOf(A, x).t]), tiers: emptyTiers() };
    replayDraws(d, tapes[k], debateSeed);
    return d;
  });
  const results = await stepKept(
    env,
    debates,
    branches.map(({ k, x }) => {
      const keeps = structuredClone(r.results[k].keeps);
      const { t, i, j } = actionOf(A, x);
      keeps[t - 2][i][j] = !keeps[t - 2][i][j];
      return keeps;
    }),
    tokens,
  );
  checkReplayed(env, results);
  return { results, tokens, calls: calls() - before };
}

/** Advantages of a batch by counterfactual credit (see the header); `random` chooses the flips of a sample. */
export async function counterfactualAdvantages(
  r: Sampled,
  s: AdvantageSettings,
  c: CreditSettings,
  o: { env: Environment; debateSeed: string; random: () => number },
): Promise<Advantages & { stats: BranchStats }> {
  const D = r.results.length;
  const N = actionsPerDebate(s.agents, o.env.rounds);
  const flips = flipCounts(D, N, c.creditFlips, c.creditMaxBranches).map((count) => chooseFlips(N, count, o.random));
  const branches = flips.flatMap((xs, k) => xs.map((x) => ({ k, x })));
  const played = await playBranches(o.env, r, branches, o.debateSeed);
  const factual = outcomes(r, s, c.creditOutcome);
  const flipped = outcomes(played, s, c.creditOutcome);
  const advantages = new Float32Array(D * N);
  const credited: number[] = [];
  let changed = 0,
    returnSum = 0;
  branches.forEach(({ k, x }, b) => {
    const at = k * N + x;
    const delta = factual[k] - flipped[b];
    if (delta !== 0) changed++;
    const scale = N / flips[k].length;
    returnSum += delta * scale;
    // policy: p(a) x delta; logit: first the estimate of Q(keep) - Q(prune), the logit's own gradient.
    advantages[at] = (c.creditScale === 'logit' ? (r.actions[at] ? 1 : -1) : r.actions[at] ? r.probs[at] : 1 - r.probs[at]) * delta * scale;
    credited.push(at);
  });
  if (s.normalize && credited.length) {
    // A constant subtracted from every logit's gradient is no baseline (it would push every logit one way): logit credit is only scaled.
    const mean = c.creditScale === 'logit' ? 0 : credited.reduce((a, x) => a + advantages[x], 0) / credited.length;
    const sd = Math.sqrt(credited.reduce((a, x) => a + (advantages[x] - mean) ** 2, 0) / credited.length);
    for (const x of credited) advantages[x] = sd > 0 ? (advantages[x] - mean) / sd : 0;
  }
  // The engine multiplies an advantage by d log pi(a) / d logit = a - p: dividing by it leaves the logit's gradient the estimate itself.
  if (c.creditScale === 'logit')
    for (const x of credited) advantages[x] /= Math.max(1e-6, r.actions[x] ? 1 - r.probs[x] : r.probs[x]) * (r.actions[x] ? 1 : -1);
  const tiers = emptyTiers();
  played.results.forEach((d) => addTiers(tiers, d.tiers));
  return {
    advantages,
    state: s.state,
    rewardSum: batchRewards(r, s).reduce((a, x) => a + x, 0),
    returnSum,
    ownRewardCorrelation: NaN,
    otherRecipientShare: NaN,
    stats: { branches: branches.length, changed, calls: played.calls, tiers },
  };
}

/**
 * The credit of a training run, step by step: the return's (advantage.ts) or the counterfactual's,
 * with what it says at the start (settings it does not use), in each step's log line and at the end.
 */
export function creditOf(config: TrainConfig, env: Environment) {
  const N = actionsPerDebate(env.team.length, env.rounds);
  const total: BranchStats = { branches: 0, changed: 0, calls: 0, tiers: emptyTiers() };
  let steps = 0;
  let random: { epoch: number; next: () => number } | undefined;
  return {
    /** What this credit leaves unused, said at the start of training. */
    note(): string | undefined {
      if (config.credit === 'return') return undefined;
      const debates = config.batchSize * config.rollouts;
      const each = flipCounts(debates, N, config.creditFlips, config.creditMaxBranches);
      const unused = [
        `baseline ${config.baseline}`,
        `baselineMomentum ${config.baselineMomentum}`,
        `beta ${config.beta}`,
        `gamma ${config.gamma}`,
        // The outcome `correct` reads no reward: neither the table nor its scale, keep pressure or cost term.
        ...(config.creditOutcome === 'correct'
          ? [
              'rewardTable',
              `a ${config.a}`,
              `rho ${config.rho}`,
              `k ${config.k}`,
              `k1 ${config.k1}`,
              `stage1Epochs ${config.stage1Epochs}`,
              `lambda ${config.lambda}`,
            ]
          : []),
      ];
      const branches = each.reduce((a, x) => a + x, 0);
      return (
        `credit counterfactual (outcome ${config.creditOutcome}): ${branches} branches a step of ${debates} debates ` +
        `(${each[0] === N ? 'every decision' : `${Math.min(...each)}-${each[0]} of each debate's ${N} decisions`}); ` +
        `a decision's advantage is p(its action) x (outcome - outcome with it flipped); not used: ${unused.join(', ')}`
      );
    },
    async advantages(r: Sampled, s: AdvantageSettings, at: { epoch: number; debateSeed: string }): Promise<Advantages & { log: Partial<LogLine> }> {
      if (config.credit === 'return') return { ...advantagesOf(r, s), log: {} };
      // A stream per epoch, as every stream of a run: a resumed run flips what the uninterrupted one did.
      if (random?.epoch !== at.epoch) random = { epoch: at.epoch, next: seedrandom(`${config.seed}|flips|${at.epoch}`) };
      const a = await counterfactualAdvantages(r, s, config, { env, debateSeed: at.debateSeed, random: random.next });
      steps++;
      total.branches += a.stats.branches;
      total.changed += a.stats.changed;
      total.calls += a.stats.calls;
      addTiers(total.tiers, a.stats.tiers);
      const shares = Object.entries(tierShares(a.stats.tiers)).map(([k, v]) => [`branch_${k}`, v]);
      return {
        ...a,
        log: {
          branches: a.stats.branches,
          branchesChanged: round4(a.stats.changed / Math.max(1, a.stats.branches)),
          ...(env.recording && { branchCalls: a.stats.calls }),
          ...Object.fromEntries(shares),
        },
      };
    },
    /** The run's counterfactual branches, said at the end. */
    summary(): string | undefined {
      if (config.credit === 'return') return undefined;
      const lookups = Object.values(total.tiers).reduce((a, x) => a + x, 0) || 1;
      const tiers = Object.entries(total.tiers)
        .filter(([, n]) => n > 0)
        .map(([k, n]) => `${k} ${((100 * n) / lookups).toFixed(0)}%`);
      return (
        `counterfactual credit: ${total.branches.toLocaleString('en-US')} branches in ${steps} steps, ` +
        `${((100 * total.changed) / Math.max(1, total.branches)).toFixed(1)}% changed their outcome; branch lookups ${tiers.join(', ')}` +
        (env.recording ? `; the record tier's calls for branches: ${total.calls}` : '')
      );
    },
  };
}
