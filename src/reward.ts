// Debate-tailored reward (docs/method.md §5) and the inter-round return (docs/method.md §6).
import { z } from 'zod';
import type { Cache } from './cache/types.ts';
import type { DebateResult } from './env/debate.ts';
import { actionIndex, actionOf, actionsPerDebate, candidateOrder } from './env/actions.ts';

/** A cell of the reward table: a number, or "k" for the keep-pressure setting. */
const Cell = z.union([z.number(), z.literal('k')]);
const Row = z.strictObject({ wrongToCorrect: Cell, correctToWrong: Cell, correctToCorrect: Cell, wrongToWrong: Cell });

export const RewardSettings = z.strictObject({
  /** Reward per transition of the recipient, for a kept and a pruned edge; scaled by a_t. */
  table: z.strictObject({ kept: Row, pruned: Row }).default({
    kept: { wrongToCorrect: 2, correctToWrong: -2, correctToCorrect: 'k', wrongToWrong: 'k' },
    pruned: { wrongToCorrect: 0, correctToWrong: 0, correctToCorrect: 0, wrongToWrong: 0 },
  }),
  /** Scale a_t = a * rho^(t-2): later rounds weigh more. */
  a: z.number().default(1),
  rho: z.number().default(2),
  /** Keep pressure: +1 pushes to keep, -1 to prune. */
  k: z.number().default(0),
  /** Cost term -lambda * (kept response tokens / mean response tokens), per kept edge. */
  lambda: z.number().nonnegative().default(0),
});
export type RewardSettings = z.infer<typeof RewardSettings>;

const transitionName = (before: boolean, after: boolean) =>
  before ? (after ? 'correctToCorrect' : 'correctToWrong') : after ? 'wrongToCorrect' : 'wrongToWrong';

/** The reward of one keep/prune action of recipient r at round t (the cost term aside). */
export function actionReward(s: RewardSettings, round: number, kept: boolean, before: boolean, after: boolean): number {
  const cell = s.table[kept ? 'kept' : 'pruned'][transitionName(before, after)];
  return (cell === 'k' ? s.k : cell) * s.a * s.rho ** (round - 2);
}

/** Mean output tokens of the cache's responses: the unit of the reward's cost term. */
export const meanResponseTokens = (cache: Cache) => cache.responses.reduce((a, r) => a + r.outTokens, 0) / cache.responses.length;

/**
 * Rewards of every action of a finished debate, in action order (round, recipient, candidate).
 * `tokens(t, i, j)` gives the kept candidate's output tokens, for the cost term.
 */
export function debateRewards(s: RewardSettings, d: DebateResult, meanTokens: number, tokens: (t: number, i: number, j: number) => number): Float32Array {
  const n = d.answers[0].length;
  const out = new Float32Array(actionsPerDebate(n, d.answers.length));
  for (let t = 2; t <= d.answers.length; t++)
    for (let i = 0; i < n; i++)
      for (let j = 0; j < n; j++) {
        const kept = d.keeps[t - 2][i][j];
        out[actionIndex(n, t, i, j)] =
          actionReward(s, t, kept, d.correct[t - 2][i], d.correct[t - 1][i]) - (kept && s.lambda ? (s.lambda * tokens(t, i, j)) / meanTokens : 0);
      }
  return out;
}

/**
 * Influence weights between the actions of an A-agent, R-round debate (docs/method.md §6), as a dense
 * matrix W[x * N + y] (N = (R-1)*A*A actions in (round, recipient, candidate) order). Edges:
 * x = (t, r, j) -> (t, r, j') for j' > j at gamma^(j'-j), and x -> every round t+1 action whose
 * recipient is r or whose source is r, at beta. A path weighs the product of its edges; W holds
 * the largest over all paths (0 where x does not reach y), so G = r + W r.
 */
export function influenceWeights(agents: number, rounds: number, beta: number, gamma: number): Float32Array {
  const N = actionsPerDebate(agents, rounds);
  const id = (t: number, r: number, j: number) => actionIndex(agents, t, r, j);
  const source = (r: number, j: number) => candidateOrder(agents, r)[j];
  const W = new Float32Array(N * N);
  // Actions are numbered in topological order (edges only go forward), so one backward sweep
  // computes the best path weight from each x: best(x, y) = max over edges x->z of w(x,z) * best(z, y).
  for (let x = N - 1; x >= 0; x--) {
    const { t, i: r, j } = actionOf(agents, x);
    const edges: [number, number][] = [];
    for (let j2 = j + 1; j2 < agents; j2++) edges.push([id(t, r, j2), gamma ** (j2 - j)]);
    if (t < rounds)
      for (let r2 = 0; r2 < agents; r2++) for (let j2 = 0; j2 < agents; j2++) if (r2 === r || source(r2, j2) === r) edges.push([id(t + 1, r2, j2), beta]);
    for (const [z, w] of edges) {
      if (w === 0) continue;
      if (w > W[x * N + z]) W[x * N + z] = w;
      for (let y = z + 1; y < N; y++) {
        const via = w * W[z * N + y];
        if (via > W[x * N + y]) W[x * N + y] = via;
      }
    }
  }
  return W;
}

/** G = r + W r for one debate's rewards. */
export function returns(W: Float32Array, rewards: Float32Array): Float32Array {
  const N = rewards.length;
  const G = Float32Array.from(rewards);
  for (let x = 0; x < N; x++) for (let y = x + 1; y < N; y++) G[x] += W[x * N + y] * rewards[y];
  return G;
}
