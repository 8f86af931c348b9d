// From a batch of played debates to the advantage of every decision, once, for every trainer (the
// FuseGLU trainer and the static learned mask): reward every action (docs/method.md §5) plus the budget cost
// term, accumulate returns G over the influence graph (docs/method.md §6), subtract a baseline, and
// optionally normalize over the batch. Engines receive these advantages and do forward, backward
// and the optimizer step only, so a new baseline or return is one change here.
//
// Baselines (setting `baseline`):
//   running  docs/method.md §7: a running mean of G per (round, candidate position), over every recipient.
//   rloo     leave-one-out over the K rollouts of the same question (setting `rollouts` >= 2): a
//            decision's baseline is the mean G of the same decision slot (round, recipient,
//            candidate position) in the other K - 1 rollouts. No state; removes question difficulty.
//   context  a running mean of G per decision slot and context: whether the recipient was right
//            before the round and whether the candidate is right. Both are fixed before any decision
//            of the round, so the baseline does not depend on the action it is subtracted from.
// A baseline that does not depend on the action leaves the gradient unbiased; normalization
// (`normalizeAdvantages`: subtract the batch mean, divide by the batch sd) rescales it per batch.
import { actionOf, actionsPerDebate, candidateOrder } from '../src/env/actions.ts';
import type { DebateResult } from '../src/env/debate.ts';
import { debateRewards, returns, type DebateDecisions, type RewardSettings } from '../src/reward.ts';
import type { DecisionLayout } from '../src/policy/decisionLayout.ts';
import { KIND } from '../src/policy/model.ts';
import { SettingsError } from '../src/io/errors.ts';

export const BASELINES = ['running', 'rloo', 'context'] as const;
export type BaselineKind = (typeof BASELINES)[number];

/** What a batch of played debates leaves for the advantages (a Rollout is one). */
export interface Played {
  /** Debates in batch order; the K rollouts of a question are consecutive. */
  results: DebateResult[];
  /** Per decision (debate-major, then round, recipient, candidate): the candidate's output tokens as shown (decisions beyond edges: what each decision's action 1 pays, src/policy/decisionLayout.ts). */
  tokens: Float32Array;
  /** With decisions beyond edges: their layout, and per decision its action and whether it was made (an absent one has no reward and no advantage). */
  decisions?: { layout: DecisionLayout; actions: Uint8Array; present: Uint8Array };
}

/** Debate k's decisions (a view into the batch's), for the reward. */
const debateDecisions = (p: Played, k: number, N: number): DebateDecisions | undefined =>
  p.decisions && {
    layout: p.decisions.layout,
    actions: p.decisions.actions.subarray(k * N, (k + 1) * N),
    present: p.decisions.present.subarray(k * N, (k + 1) * N),
  };

/** The budget cost term: each kept edge pays what it adds to its recipient's call, in units of Full-Debate's cost of the question. */
export interface Budget {
  /** The cost multiplier (cost weight, or the dual variable of a target budget). */
  multiplier: number;
  /** Input price of each team member (by team position). */
  priceIn: number[];
  /** Full-Debate's cost of a question (by question index). */
  fullCost: (q: number) => number;
}

export interface AdvantageSettings {
  reward: RewardSettings;
  /** Influence weights of the return (reward.ts influenceWeights). */
  W: Float32Array;
  /** Unit of the reward's docs/method.md §5 cost term (lambda). */
  meanTokens: number;
  agents: number;
  baseline: BaselineKind;
  /** Rollouts of each question in the batch (K). */
  rollouts: number;
  normalize: boolean;
  /** State of the running and context baselines (see baselineSize). */
  state: number[];
  momentum: number;
  /** Optimizer steps taken before this batch. */
  step: number;
  budget?: Budget;
}

export interface Advantages {
  advantages: Float32Array;
  /** The baseline state after this batch. */
  state: number[];
  rewardSum: number;
  returnSum: number;
  /** Credit assignment: per decision slot, the correlation over the batch of G with the action's own reward, averaged over slots. */
  ownRewardCorrelation: number;
  /** Credit assignment: share of the returns' absolute terms that comes from other recipients' actions. */
  otherRecipientShare: number;
}

/** Length of a baseline's state for A agents and R rounds. */
export function baselineSize(kind: BaselineKind, agents: number, rounds: number): number {
  return kind === 'running' ? (rounds - 1) * agents : kind === 'context' ? 2 * 4 * actionsPerDebate(agents, rounds) : 0;
}

/** Rewards of every action of every debate, with the budget term, in decision order. */
export function batchRewards(p: Played, s: Pick<AdvantageSettings, 'reward' | 'meanTokens' | 'agents' | 'budget'>): Float32Array {
  const perDebate = p.results.length ? p.tokens.length / p.results.length : 0;
  const budget = budgetTerms(p, s);
  const out = new Float32Array(p.tokens.length);
  p.results.forEach((d, k) => {
    const rw = debateRewards(s.reward, d, s.meanTokens, (x) => p.tokens[k * perDebate + x], debateDecisions(p, k, perDebate));
    rw.forEach((r, x) => (out[k * perDebate + x] = r + budget[k * perDebate + x]));
  });
  return out;
}

/** The budget term of every decision (minus what a kept edge, or a revision's call, pays; 0 without a budget), in decision order. */
export function budgetTerms(p: Played, s: Pick<AdvantageSettings, 'agents' | 'budget'>): Float64Array {
  const out = new Float64Array(p.tokens.length);
  if (!s.budget?.multiplier) return out;
  const { multiplier, priceIn, fullCost } = s.budget;
  const perDebate = p.results.length ? p.tokens.length / p.results.length : 0;
  p.results.forEach((d, k) => {
    const unit = fullCost(d.q);
    for (let x = 0; x < perDebate; x++) {
      const at = k * perDebate + x;
      const { kind, t, i, j } = p.decisions ? p.decisions.layout.slot(x) : { kind: KIND.edge, ...actionOf(s.agents, x) };
      const paid = p.decisions ? p.decisions.present[at] && p.decisions.actions[at] && kind !== KIND.stop : d.keeps[t - 2][i][j];
      if (paid) out[at] = -(multiplier * p.tokens[at] * priceIn[i]) / unit;
    }
  });
  return out;
}

/** Advantages of every decision of a batch; see the header for the baselines. */
export function advantagesOf(p: Played, s: AdvantageSettings): Advantages {
  const A = s.agents;
  const D = p.results.length;
  const N = D ? p.tokens.length / D : 0;
  const rewards = batchRewards(p, s);
  const G = new Float32Array(rewards.length);
  for (let k = 0; k < D; k++) G.set(returns(s.W, rewards.subarray(k * N, (k + 1) * N)), k * N);
  const baseline = new Float32Array(G.length);
  let state = s.state;
  if (s.baseline === 'running') {
    // Slot (round, position); the running mean includes this batch (weight max(1 - momentum,
    // 1/steps), so the first batch is centered too).
    const slotOf = (x: number) => {
      const { t, j } = actionOf(A, x);
      return (t - 2) * A + j;
    };
    const sums = new Float64Array(s.state.length);
    G.forEach((g, x) => (sums[slotOf(x % N)] += g));
    const weight = Math.max(1 - s.momentum, 1 / (s.step + 1));
    state = s.state.map((v, slot) => v + weight * (sums[slot] / (D * A) - v));
    G.forEach((_, x) => (baseline[x] = state[slotOf(x % N)]));
  } else if (s.baseline === 'rloo') {
    const present = p.decisions?.present;
    const K = s.rollouts;
    if (K < 2) throw new SettingsError('baseline rloo needs rollouts >= 2 (the other rollouts of the same question are the baseline)');
    for (let g = 0; g < D; g += K) {
      for (let k = g; k < g + K; k++)
        if (p.results[k].q !== p.results[g].q) throw new Error(`rloo: debates ${g}..${g + K - 1} of the batch are not rollouts of one question`);
      // Over the other rollouts that made the decision (with edges alone: all of them).
      for (let x = 0; x < N; x++) {
        let sum = 0,
          made = 0;
        for (let k = g; k < g + K; k++) if (!present || present[k * N + x]) (sum += G[k * N + x]), made++;
        for (let k = g; k < g + K; k++) {
          const own = !present || present[k * N + x] ? 1 : 0;
          baseline[k * N + x] = made - own > 0 ? (sum - own * G[k * N + x]) / (made - own) : 0;
        }
      }
    }
  } else {
    // Slot (decision, recipient right before, candidate right); state: means, then update counts.
    const S = state.length / 2;
    const slotOf = (d: DebateResult, x: number) => {
      const { t, i, j } = actionOf(A, x);
      const source = candidateOrder(A, i)[j];
      return x * 4 + (d.correct[t - 2][i] ? 2 : 0) + (d.correct[t - 2][source] ? 1 : 0);
    };
    const sums = new Float64Array(S),
      counts = new Float64Array(S);
    const slots = new Int32Array(G.length);
    G.forEach((g, x) => {
      slots[x] = slotOf(p.results[Math.floor(x / N)], x % N);
      sums[slots[x]] += g;
      counts[slots[x]]++;
    });
    state = [...s.state];
    for (let c = 0; c < S; c++) {
      if (!counts[c]) continue;
      const weight = Math.max(1 - s.momentum, 1 / (state[S + c] + 1));
      state[c] += weight * (sums[c] / counts[c] - state[c]);
      state[S + c]++;
    }
    slots.forEach((c, x) => (baseline[x] = state[c]));
  }
  // Decisions not made have no advantage, and are left out of the normalization.
  const made = (x: number) => !p.decisions || p.decisions.present[x] === 1;
  const advantages = G.map((g, x) => (made(x) ? g - baseline[x] : 0));
  const count = p.decisions ? p.decisions.present.reduce((a, x) => a + x, 0) : advantages.length;
  if (s.normalize && count) {
    const mean = advantages.reduce((a, x) => a + x, 0) / count;
    const sd = Math.sqrt(advantages.reduce((a, x, i) => a + (made(i) ? (x - mean) ** 2 : 0), 0) / count);
    advantages.forEach((x, i) => (advantages[i] = sd > 0 && made(i) ? (x - mean) / sd : 0));
  }
  return {
    advantages,
    state,
    rewardSum: rewards.reduce((a, r) => a + r, 0),
    returnSum: G.reduce((a, g) => a + g, 0),
    ...creditAssignment(rewards, G, s.W, A, N, p.decisions?.layout),
  };
}

/** How much of each return is the action's own reward (see Advantages). */
export function creditAssignment(rewards: Float32Array, G: Float32Array, W: Float32Array, A: number, N: number, layout?: DecisionLayout) {
  const recipient = (x: number) => (layout ? layout.slot(x).i : actionOf(A, x).i);
  const D = N ? G.length / N : 0;
  let corrSum = 0,
    corrSlots = 0,
    other = 0,
    total = 0;
  for (let x = 0; x < N; x++) {
    let sr = 0,
      sg = 0,
      srr = 0,
      sgg = 0,
      srg = 0;
    for (let k = 0; k < D; k++) {
      const r = rewards[k * N + x],
        g = G[k * N + x];
      (sr += r), (sg += g), (srr += r * r), (sgg += g * g), (srg += r * g);
      total += Math.abs(r);
      for (let y = x + 1; y < N; y++) {
        const term = Math.abs(W[x * N + y] * rewards[k * N + y]);
        total += term;
        if (recipient(y) !== recipient(x)) other += term;
      }
    }
    const vr = srr - (sr * sr) / D,
      vg = sgg - (sg * sg) / D;
    if (vr > 1e-9 && vg > 1e-9) {
      corrSum += (srg - (sr * sg) / D) / Math.sqrt(vr * vg);
      corrSlots++;
    }
  }
  return { ownRewardCorrelation: corrSlots ? corrSum / corrSlots : NaN, otherRecipientShare: total ? other / total : 0 };
}

/**
 * Dual ascent on the cost multiplier of a target budget: raise it while the batch costs more than
 * the target (cost ratios as fractions of Full-Debate's cost), lower it (never below 0) while less.
 */
export const dualStep = (multiplier: number, costRatio: number, target: number, lr: number) => Math.max(0, multiplier + lr * (costRatio - target));
