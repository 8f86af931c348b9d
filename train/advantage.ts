// From a batch of played debates to the advantage of every decision (SPEC §5-7): reward every
// action, accumulate returns G over the influence graph, subtract the baseline.
import { actionIndex, actionOf } from '../src/env/actions.ts';
import type { Rollout } from '../src/policy/rollout.ts';
import { debateRewards, returns, type RewardSettings } from '../src/reward.ts';

interface AdvantageSettings {
  reward: RewardSettings;
  /** Influence weights of the return (reward.ts influenceWeights). */
  W: Float32Array;
  /** Unit of the reward's cost term. */
  meanTokens: number;
  agents: number;
  /** Running mean of G per (round, candidate position): (R-1) * A slots. */
  baseline: number[];
  momentum: number;
  /** Optimizer steps taken before this batch. */
  step: number;
}

interface Advantages {
  advantages: Float32Array;
  /** The baseline after this batch. */
  baseline: number[];
  rewardSum: number;
  returnSum: number;
}

/**
 * Returns of every action, then the running mean per (round, position), which includes this
 * batch (weight max(1 - momentum, 1/steps), so the first batch is centered too), then advantages.
 */
export function advantagesOf(r: Rollout, s: AdvantageSettings): Advantages {
  const A = s.agents;
  const perDebate = r.results.length ? r.batch.n / r.results.length : 0;
  const G = new Float32Array(r.batch.n);
  const sums = new Float64Array(s.baseline.length);
  const slotOf = (x: number) => {
    const { t, j } = actionOf(A, x);
    return (t - 2) * A + j;
  };
  let rewardSum = 0;
  r.results.forEach((d, k) => {
    const rw = debateRewards(s.reward, d, s.meanTokens, (t, i, j) => r.tokens[k * perDebate + actionIndex(A, t, i, j)]);
    G.set(returns(s.W, rw), k * perDebate);
    rw.forEach((x) => (rewardSum += x));
  });
  G.forEach((g, x) => (sums[slotOf(x % perDebate)] += g));
  const weight = Math.max(1 - s.momentum, 1 / (s.step + 1));
  const baseline = s.baseline.map((v, slot) => v + weight * (sums[slot] / (r.results.length * A) - v));
  const advantages = G.map((g, x) => g - baseline[slotOf(x % perDebate)]);
  return { advantages, baseline, rewardSum, returnSum: G.reduce((a, g) => a + g, 0) };
}
