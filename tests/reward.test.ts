import { describe, expect, it } from 'vitest';
import type { DebateResult } from '../src/env/debate.ts';
import { actionReward, debateRewards, influenceWeights, returns, RewardSettings } from '../src/reward.ts';

const settings = (over: Partial<RewardSettings> = {}) => RewardSettings.parse(over);

describe('reward table (docs/method.md §5)', () => {
  it('kept edges: +-2 a_t for corrections and collapses, k a_t otherwise; pruned edges: 0', () => {
    for (const k of [1, 0, -1]) {
      const s = settings({ k });
      // round 2: a_t = 1; round 3: a_t = rho = 2
      expect(actionReward(s, 2, true, false, true)).toBe(2);
      expect(actionReward(s, 3, true, false, true)).toBe(4);
      expect(actionReward(s, 2, true, true, false)).toBe(-2);
      expect(actionReward(s, 3, true, true, false)).toBe(-4);
      expect(actionReward(s, 2, true, true, true)).toBe(k);
      expect(actionReward(s, 3, true, false, false)).toBe(2 * k);
      for (const [b, a] of [
        [false, true],
        [true, false],
        [true, true],
        [false, false],
      ])
        expect(actionReward(s, 3, false, b, a)).toBe(0);
    }
    expect(actionReward(settings({ a: 0.5, rho: 3 }), 3, true, false, true)).toBe(2 * 0.5 * 3);
  });

  it('the table itself is a setting', () => {
    const s = settings({
      table: {
        kept: { wrongToCorrect: 5, correctToWrong: -1, correctToCorrect: 0, wrongToWrong: 'k' },
        pruned: { wrongToCorrect: 0, correctToWrong: 1, correctToCorrect: 0, wrongToWrong: 0 },
      },
      k: -3,
    });
    expect(actionReward(s, 2, true, false, true)).toBe(5);
    expect(actionReward(s, 2, true, false, false)).toBe(-3);
    expect(actionReward(s, 2, false, true, false)).toBe(1);
  });

  it('debate rewards follow the recipient transitions, with the optional cost term on kept edges', () => {
    // 2 agents, 2 rounds: agent 0 goes wrong -> right, agent 1 right -> wrong.
    const d = {
      answers: [
        [0, 1],
        [1, 0],
      ],
      correct: [
        [false, true],
        [true, false],
      ],
      keeps: [
        [
          [true, false],
          [true, true],
        ],
      ],
    } as unknown as DebateResult;
    expect([...debateRewards(settings(), d, 100, () => 50)]).toEqual([2, 0, -2, -2]);
    expect([...debateRewards(settings({ lambda: 1 }), d, 100, () => 50)]).toEqual([1.5, 0, -2.5, -2.5]);
  });
});

describe('return with inter-round accumulation (docs/method.md §6), 3 agents x 3 rounds', () => {
  // Action index (t, r, j) -> (t-2)*9 + r*3 + j. Candidates: r0 [0,1,2], r1 [1,0,2], r2 [2,0,1].
  const id = (t: number, r: number, j: number) => (t - 2) * 9 + r * 3 + j;
  const rewards = new Float32Array(18);
  rewards[id(2, 0, 2)] = 1; // source 2 -> recipient 0
  rewards[id(3, 1, 1)] = 2; // source 0 -> recipient 1
  rewards[id(3, 2, 2)] = 4; // source 1 -> recipient 2
  rewards[id(3, 0, 0)] = 8; // own edge of recipient 0

  it('beta = 0.5, gamma = 0.9, worked by hand', () => {
    const G = returns(influenceWeights(3, 3, 0.5, 0.9), rewards);
    // (2,0,0): gamma^2 * 1 [same recipient, j=2] + beta * 8 [recipient 0] + beta * 2 [source 0]
    //          + beta * gamma * 4 [via (3,2,1), source 0, then j 1 -> 2]
    expect(G[id(2, 0, 0)]).toBeCloseTo(0.81 + 4 + 1 + 1.8, 5);
    // (2,1,0): beta * 2 [recipient 1] + beta * 4 [source 1]; (3,0,0) is out of reach
    expect(G[id(2, 1, 0)]).toBeCloseTo(1 + 2, 5);
    // (2,0,2): own reward 1, then as (2,0,0) in round 3
    expect(G[id(2, 0, 2)]).toBeCloseTo(1 + 4 + 1 + 1.8, 5);
    // (2,2,0): beta * 4 [recipient 2]; the source-2 edges of round 3, (3,0,2) and (3,1,2), come
    // after (3,0,0) and (3,1,1) in their recipients' order, so those two are out of reach
    expect(G[id(2, 2, 0)]).toBeCloseTo(0.5 * 4, 5);
    expect(G[id(3, 2, 1)]).toBeCloseTo(0.9 * 4, 5);
    expect(G[id(3, 1, 0)]).toBeCloseTo(0.9 * 2, 5);
    expect(G[id(3, 2, 2)]).toBeCloseTo(4, 5);
    expect(G[id(3, 0, 2)]).toBeCloseTo(0, 5); // last position, last round
  });

  it('beta = gamma = 0 gives the per-action reward alone', () => {
    expect([...returns(influenceWeights(3, 3, 0, 0), rewards)]).toEqual([...rewards]);
  });

  it('gamma alone accumulates within the round only', () => {
    const G = returns(influenceWeights(3, 3, 0, 0.5), rewards);
    expect(G[id(2, 0, 0)]).toBeCloseTo(0.25, 6);
    expect(G[id(2, 0, 1)]).toBeCloseTo(0.5, 6);
    expect(G[id(3, 1, 0)]).toBeCloseTo(1, 6);
    expect(G[id(2, 1, 0)]).toBe(0);
  });
});

// The return of docs/method.md §5-6 from a played debate, worked out by hand: the rewards from the recipients'
// transitions and the keeps, then the influence graph's weights.
describe('return of whole debates (docs/method.md §5-6), by hand', () => {
  const debate = (correct: boolean[][], keeps: boolean[][][]) =>
    ({ correct, keeps, answers: correct.map((row) => row.map(() => 0)) }) as unknown as DebateResult;
  const G = (d: DebateResult, s: RewardSettings, beta: number, gamma: number) => [
    ...returns(
      influenceWeights(d.correct[0].length, d.correct.length, beta, gamma),
      debateRewards(s, d, 1, () => 1),
    ),
  ];

  it('2 agents x 3 rounds, beta 0.5, gamma 0.9, k 0', () => {
    // Actions (t, r, j) in order 0..7: r0's candidates [a0, a1], r1's [a1, a0].
    // a0: wrong, right, right; a1: right, wrong, right.
    const d = debate(
      [
        [false, true],
        [true, false],
        [true, true],
      ],
      [
        [
          [true, true],
          [true, false],
        ], // round 2: r0 keeps both, r1 keeps only its own
        [
          [false, true],
          [true, true],
        ], // round 3: r0 keeps only a1, r1 keeps both
      ],
    );
    // Rewards (a_2 = 1, a_3 = 2): r0 W->C at round 2 kept twice: +2, +2; r1 C->W, own kept: -2,
    // pruned: 0; round 3: r0 C->C (k = 0): pruned 0, kept 0; r1 W->C kept twice: +4, +4.
    expect([...debateRewards(RewardSettings.parse({}), d, 1, () => 1)]).toEqual([2, 2, -2, 0, 0, 0, 4, 4]);
    // x0 = (2, r0, a0): gamma to x1; beta to round-3 actions into r0 (x4, x5) or from a0 (x7):
    //   2 + 0.9*2 + 0.5*(0 + 0 + 4) = 5.8
    // x1 = (2, r0, a1): beta to x4, x5, x7: 2 + 0.5*4 = 4
    // x2 = (2, r1, a1): gamma to x3; beta to actions into r1 (x6, x7) or from a1 (x5): -2 + 0 + 0.5*(4 + 4 + 0) = 2
    // x3 = (2, r1, a0): beta to x5, x6, x7: 0 + 0.5*8 = 4
    // x4 = (3, r0, a0): gamma to x5: 0; x5: 0; x6 = (3, r1, a1): 4 + 0.9*4 = 7.6; x7: 4
    const g = G(d, RewardSettings.parse({}), 0.5, 0.9);
    [5.8, 4, 2, 4, 0, 0, 7.6, 4].forEach((v, x) => expect(g[x]).toBeCloseTo(v, 5));
    expect(G(d, RewardSettings.parse({}), 0, 0)).toEqual([2, 2, -2, 0, 0, 0, 4, 4]);
  });

  it('3 agents x 2 rounds, beta 0.5, gamma 0.9, k 1: gamma alone links the actions of the last round', () => {
    // Candidates: r0 [a0, a1, a2], r1 [a1, a0, a2], r2 [a2, a0, a1].
    // a0 wrong -> right, a1 right -> right, a2 wrong -> wrong.
    const d = debate(
      [
        [false, true, false],
        [true, true, false],
      ],
      [
        [
          [true, true, false],
          [false, true, true],
          [true, false, true],
        ],
      ],
    );
    // Rewards: r0 W->C kept: 2, 2, pruned 0; r1 C->C (k = 1): pruned 0, kept 1, 1; r2 W->W: 1, 0, 1.
    expect([...debateRewards(RewardSettings.parse({ k: 1 }), d, 1, () => 1)]).toEqual([2, 2, 0, 0, 1, 1, 1, 0, 1]);
    // x0 = 2 + 0.9*2 + 0.81*0 = 3.8; x1 = 2 + 0.9*0 = 2; x2 = 0
    // x3 = 0 + 0.9*1 + 0.81*1 = 1.71; x4 = 1 + 0.9*1 = 1.9; x5 = 1
    // x6 = 1 + 0.9*0 + 0.81*1 = 1.81; x7 = 0 + 0.9*1 = 0.9; x8 = 1
    const g = G(d, RewardSettings.parse({ k: 1 }), 0.5, 0.9);
    [3.8, 2, 0, 1.71, 1.9, 1, 1.81, 0.9, 1].forEach((v, x) => expect(g[x]).toBeCloseTo(v, 5));
  });
});
