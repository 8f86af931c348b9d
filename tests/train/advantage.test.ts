import { describe, expect, it } from 'vitest';
import type { DebateResult } from '../../src/env/debate.ts';
import { influenceWeights, RewardSettings } from '../../src/reward.ts';
import { advantagesOf, baselineSize, batchRewards, creditAssignment, dualStep, type AdvantageSettings, type Played } from '../../train/advantage.ts';

// 2 agents x 2 rounds: four decisions per debate, (r0: own, a1), (r1: own, a0).
// Round 1: a0 wrong, a1 right, in every debate below.
const debate = (q: number, keeps: boolean[][], after: boolean[]): DebateResult =>
  ({
    q,
    correct: [[false, true], after],
    keeps: [keeps],
    answers: [
      [0, 1],
      [0, 1],
    ],
  }) as unknown as DebateResult;
const played = (results: DebateResult[]): Played => ({ results, tokens: new Float32Array(results.length * 4).fill(10) });
const settings = (over: Partial<AdvantageSettings> = {}): AdvantageSettings => ({
  reward: RewardSettings.parse({}),
  W: influenceWeights(2, 2, 0, 0),
  meanTokens: 10,
  agents: 2,
  baseline: 'running',
  rollouts: 1,
  normalize: false,
  state: new Array(baselineSize('running', 2, 2)).fill(0),
  momentum: 0.9,
  step: 0,
  ...over,
});
const close = (a: ArrayLike<number>, b: number[]) => b.forEach((v, i) => expect(a[i]).toBeCloseTo(v, 5));

// Three rollouts of question 7. Rewards (k = 0, a_2 = 1), decisions in order (r0 own, r0 <- a1, r1 own, r1 <- a0):
const rollouts = [
  debate(
    7,
    [
      [true, true],
      [true, true],
    ],
    [true, true],
  ), // a0 W->C: 2, 2; a1 C->C: 0, 0
  debate(
    7,
    [
      [true, false],
      [false, true],
    ],
    [false, false],
  ), // a0 W->W: 0, 0 (pruned); a1 C->W: 0 (pruned), -2
  debate(
    7,
    [
      [false, true],
      [true, false],
    ],
    [true, true],
  ), // a0 W->C: 0 (pruned), 2; a1 C->C: 0, 0
];

describe('advantages (train/advantage.ts)', () => {
  it('rloo: each decision against the mean of the same slot in the other rollouts of its question', () => {
    const a = advantagesOf(played(rollouts), settings({ baseline: 'rloo', rollouts: 3, state: [] }));
    // slot 0 returns 2, 0, 0: 2 - 0, 0 - 1, 0 - 1; slot 1: 2, 0, 2 -> 1, -2, 1; slot 2: all 0; slot 3: 0, -2, 0 -> 1, -2, 1
    close(a.advantages, [2, 1, 0, 1, -1, -2, 0, -2, -1, 1, 0, 1]);
    expect(a.state).toEqual([]);
    const mixed = played([
      rollouts[0],
      debate(
        8,
        [
          [true, true],
          [true, true],
        ],
        [true, true],
      ),
      rollouts[2],
    ]);
    expect(() => advantagesOf(mixed, settings({ baseline: 'rloo', rollouts: 3, state: [] }))).toThrow(/not rollouts of one question/);
  });

  it('running (docs/method.md §7): a running mean per (round, position), centered on the first batch', () => {
    const first = advantagesOf(played(rollouts), settings());
    // Position 0 over both recipients and three debates: (2 + 0 + 0 + 0 + 0 + 0) / 6; position 1: (2 + 0 + 0 - 2 + 2 + 0) / 6
    close(first.state, [1 / 3, 1 / 3]);
    close(first.advantages.subarray(0, 4), [2 - 1 / 3, 2 - 1 / 3, -1 / 3, -1 / 3]);
    // Second step on rollout 0 alone (slot means (2 + 0) / 2 = 1 for both): weight max(1 - 0.9, 1/2) = 1/2
    const second = advantagesOf(played([rollouts[0]]), settings({ state: first.state, step: 1 }));
    close(second.state, [2 / 3, 2 / 3]);
  });

  it('context: a running mean per decision slot, recipient right before, candidate right', () => {
    const a = advantagesOf(played(rollouts), settings({ baseline: 'context', state: new Array(baselineSize('context', 2, 2)).fill(0) }));
    const S = baselineSize('context', 2, 2) / 2;
    expect(S).toBe(4 * 4);
    // Decision 1 (r0 <- a1): recipient a0 wrong, candidate a1 right: context 1; returns 2, 0, 2 -> mean 4/3
    expect(a.state[1 * 4 + 1]).toBeCloseTo(4 / 3, 5);
    expect(a.state[S + 1 * 4 + 1]).toBe(1); // one update
    // Decision 3 (r1 <- a0): recipient a1 right, candidate a0 wrong: context 2; returns 0, -2, 0
    expect(a.state[3 * 4 + 2]).toBeCloseTo(-2 / 3, 5);
    close([a.advantages[1], a.advantages[5], a.advantages[7]], [2 - 4 / 3, -4 / 3, -2 + 2 / 3]);
    // Contexts never seen keep their state and count.
    expect(a.state[0 * 4 + 3]).toBe(0);
    expect(a.state[S + 0 * 4 + 3]).toBe(0);
  });

  it('normalization: zero mean and unit sd over the batch', () => {
    const a = advantagesOf(played(rollouts), settings({ baseline: 'rloo', rollouts: 3, state: [], normalize: true }));
    const mean = a.advantages.reduce((s, x) => s + x, 0) / a.advantages.length;
    const sd = Math.sqrt(a.advantages.reduce((s, x) => s + (x - mean) ** 2, 0) / a.advantages.length);
    expect(mean).toBeCloseTo(0, 5);
    expect(sd).toBeCloseTo(1, 5);
    // Same order as the raw advantages: 2 was the largest.
    expect(Math.max(...a.advantages)).toBe(a.advantages[0]);
  });

  it("the budget term charges each kept edge its input cost as a share of Full-Debate's cost, times the multiplier", () => {
    const budget = { multiplier: 5, priceIn: [2, 3], fullCost: (q: number) => (q === 7 ? 1000 : NaN) };
    const p = played([rollouts[1]]); // keeps (r0 own), (r1 <- a0); 10 tokens each
    p.tokens.set([10, 20, 30, 40]);
    // kept (r0 own): 5 * 10 tokens * price 2 / 1000 = 0.1; kept (r1 <- a0): 5 * 40 * 3 / 1000 = 0.6; a1 C->W kept: -2
    close(batchRewards(p, settings({ budget })), [-0.1, 0, 0, -2.6]);
    close(batchRewards(p, settings({ budget: { ...budget, multiplier: 0 } })), [0, 0, 0, -2]);
  });

  it('dual ascent raises the multiplier over budget, lowers it under, never below 0', () => {
    expect(dualStep(1, 0.9, 0.8, 10)).toBeCloseTo(2, 9);
    expect(dualStep(1, 0.75, 0.8, 10)).toBeCloseTo(0.5, 9);
    expect(dualStep(0.1, 0.5, 0.8, 10)).toBe(0);
  });

  it('credit assignment: the share of returns from other recipients, and the correlation with the own reward', () => {
    // Two debates of 2 agents x 2 rounds: one round of decisions, so only gamma links them, within a recipient.
    const rewards = Float32Array.from([1, 0, 0, 2, /**/ 0, 1, 2, 0]);
    const W = influenceWeights(2, 2, 0.5, 0.5);
    const G = Float32Array.from([1, 0, 1, 2, 0.5, 1, 2, 0]); // r + 0.5 * next of the same recipient
    const c = creditAssignment(rewards, G, W, 2, 4);
    expect(c.otherRecipientShare).toBe(0);
    // slot 0: r = (1, 0), G = (1, 0.5): correlation 1; slot 1: (0, 1) vs (0, 1): 1; slot 2: (0, 2) vs (1, 2): 1; slot 3: (2, 0) vs (2, 0): 1
    expect(c.ownRewardCorrelation).toBeCloseTo(1, 6);
    // Three rounds: x0 = (2, r0, own) reaches round-3 actions of the other recipient through beta.
    const W3 = influenceWeights(2, 3, 0.5, 0);
    const r3 = new Float32Array(8);
    r3[0] = 1;
    r3[7] = 2; // (3, r1, a0): source a0 = x0's recipient
    const G3 = Float32Array.from([2, 1, 1, 1, 0, 0, 0, 2]);
    // |terms| of x0: own 1, 0.5 * 2 from another recipient; x1, x2, x3 also reach x7 at 0.5: 1 each (x2 and x3 are r1's own: not other)
    const c3 = creditAssignment(r3, G3, W3, 2, 8);
    expect(c3.otherRecipientShare).toBeCloseTo((1 + 1) / (1 + 1 + 1 + 1 + 1 + 2), 6);
  });
});
