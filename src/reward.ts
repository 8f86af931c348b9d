// Debate-tailored reward (docs/method.md §5) and the inter-round return (docs/method.md §6).
import { z } from 'zod';
import type { Cache } from './cache/types.ts';
import type { DebateResult } from './env/debate.ts';
import { decisionLayout, sourceOf, type DecisionLayout } from './policy/decisionLayout.ts';
import { KIND, type Decisions } from './policy/model.ts';

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

/** A debate's decisions beyond edges, in `layout` order: each action (1: keep, revise, stop) and whether it was made. */
export interface DebateDecisions {
  layout: DecisionLayout;
  actions: ArrayLike<number>;
  present: ArrayLike<number>;
}

/**
 * Rewards of every decision of a finished debate, in decision order (decisionLayout.ts; with edges
 * alone: round, recipient, candidate). `tokens(x)` gives what decision x's action 1 pays in tokens
 * (a kept candidate's output tokens; a revision's call: decisionLayout.ts), for the cost term.
 * An edge earns the table's cell of its recipient's transition (kept or pruned), as does a revise
 * decision (revised as kept, kept its answer as pruned); a stop decision earns nothing itself: its
 * return is what the rest of the debate earns (influenceWeights). An absent decision earns 0.
 */
export function debateRewards(
  s: RewardSettings,
  d: DebateResult,
  meanTokens: number,
  tokens: (x: number) => number,
  decisions?: DebateDecisions,
): Float32Array {
  const n = d.answers[0].length;
  const layout = decisions?.layout ?? decisionLayout(n, d.answers.length, 'edges');
  const out = new Float32Array(layout.perDebate);
  for (let x = 0; x < layout.perDebate; x++) {
    const { kind, t, i, j } = layout.slot(x);
    if (kind === KIND.stop || (decisions && !decisions.present[x]) || t > d.answers.length) continue;
    const on = decisions ? decisions.actions[x] === 1 : d.keeps[t - 2][i][j];
    out[x] = actionReward(s, t, on, d.correct[t - 2][i], d.correct[t - 1][i]) - (on && s.lambda ? (s.lambda * tokens(x)) / meanTokens : 0);
  }
  return out;
}

/**
 * Influence weights between the decisions of an A-agent, R-round debate (docs/method.md §6), as a dense
 * matrix W[x * N + y] (N decisions in decisionLayout order). Edges:
 * x = (t, r, j) -> (t, r, j') for j' > j at gamma^(j'-j), and x -> every round t+1 decision whose
 * recipient is r or whose source is r (an edge's candidate, a revise decision's own answer), at beta;
 * a revise decision of r links as an edge of r does to round t+1; a stop decision before round t
 * -> every later decision at 1 (going on earns what the rest of the debate earns). A path weighs the
 * product of its edges; W holds the largest over all paths (0 where x does not reach y), so G = r + W r.
 */
export function influenceWeights(agents: number, rounds: number, beta: number, gamma: number, decisions: Decisions = 'edges'): Float32Array {
  const layout = decisionLayout(agents, rounds, decisions);
  const N = layout.perDebate;
  const W = new Float32Array(N * N);
  // Decisions are numbered in topological order (edges only go forward), so one backward sweep
  // computes the best path weight from each x: best(x, y) = max over edges x->z of w(x,z) * best(z, y).
  for (let x = N - 1; x >= 0; x--) {
    const at = layout.slot(x);
    const { t, i: r, j } = at;
    const edges: [number, number][] = [];
    if (at.kind === KIND.stop) for (let y = x + 1; y < N; y++) edges.push([y, 1]);
    else {
      if (at.kind === KIND.edge) for (let j2 = j + 1; j2 < agents; j2++) edges.push([layout.edge(t, r, j2), gamma ** (j2 - j)]);
      if (t < rounds)
        for (let y = x + 1; y < N; y++) {
          const next = layout.slot(y);
          if (next.t === t + 1 && next.kind !== KIND.stop && (next.i === r || sourceOf(layout, next) === r)) edges.push([y, beta]);
        }
    }
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
