// Static learned mask (SPEC §8; GPTSwarm/AgentPrune style): one keep logit per edge position
// (round, recipient, candidate), blind to content, trained with the same REINFORCE, reward and
// return as the FuseGLU policy, evaluated deterministically (keep iff logit >= 0).
import { shuffle } from '../src/shuffle.ts';
import seedrandom from 'seedrandom';
import type { Question } from '../src/cache/load.ts';
import { actionIndex, actionsPerDebate, candidateOrder } from '../src/env/actions.ts';
import { playDebates, type KeepRule } from '../src/env/debate.ts';
import type { Environment } from '../src/env/environment.ts';
import { sigmoid } from '../src/policy/model.ts';
import { debateRewards, influenceWeights, meanResponseTokens, returns, type RewardSettings } from '../src/reward.ts';
import { runRule, type MethodResult } from './baselines.ts';

interface MaskSettings {
  epochs: number;
  batchSize: number;
  lr: number;
  entropyBonus: number;
  beta: number;
  gamma: number;
  seed: number;
}

/**
 * Train the mask on `train`; returns one logit per action position, and the training debates left
 * out because they could not be replayed (miss = signature).
 */
export async function trainStaticMask(env: Environment, train: Question[], reward: RewardSettings, s: MaskSettings): Promise<{ theta: Float64Array; skipped: number }> {
  const A = env.team.length;
  const N = actionsPerDebate(A, env.rounds);
  const theta = new Float64Array(N);
  const m = new Float64Array(N), v = new Float64Array(N);
  const W = influenceWeights(A, env.rounds, s.beta, s.gamma);
  const meanTokens = meanResponseTokens(env.cache);
  const random = seedrandom(`${s.seed}|static-mask`);
  let step = 0;
  let skipped = 0;
  for (let epoch = 1; epoch <= s.epochs; epoch++) {
    const order = shuffle([...train], random);
    for (let b = 0; b < order.length; b += s.batchSize) {
      const batch = order.slice(b, b + s.batchSize);
      const G: Float32Array[] = [];
      const acts: Uint8Array[] = [];
      // Per question: its actions, and each candidate's output tokens (for the cost term).
      const played = new Map(batch.map((q) => [q.index, { a: new Uint8Array(N), tokens: new Float32Array(N) }]));
      const rule: KeepRule = (deb, n) => {
        const { a, tokens } = played.get(deb.q)!;
        return Array.from({ length: n }, (_, i) => candidateOrder(n, i).map((c, j) => {
          const x = actionIndex(n, deb.round + 1, i, j);
          tokens[x] = env.cache.responses[deb.current[c].source].outTokens;
          a[x] = random() < sigmoid(theta[x]) ? 1 : 0;
          return a[x] === 1;
        }));
      };
      for (const d of await playDebates(env, batch.map((q) => q.index), rule, `${s.seed}|${epoch}`)) {
        if (d.missed) {
          skipped++;
          continue;
        }
        const { a, tokens } = played.get(d.q)!;
        acts.push(a);
        G.push(returns(W, debateRewards(reward, d, meanTokens, (t, i, j) => tokens[actionIndex(A, t, i, j)])));
      }
      if (G.length === 0) continue;
      step++;
      for (let x = 0; x < N; x++) {
        const p = sigmoid(theta[x]);
        const baseline = G.reduce((t, g) => t + g[x], 0) / G.length;
        // d/dtheta of -(G - b) log pi(a) - entropyBonus * H(p)
        let grad = 0;
        G.forEach((g, k) => (grad -= (g[x] - baseline) * (acts[k][x] - p)));
        grad = grad / G.length + s.entropyBonus * theta[x] * p * (1 - p);
        m[x] = 0.9 * m[x] + 0.1 * grad;
        v[x] = 0.999 * v[x] + 0.001 * grad * grad;
        theta[x] -= (s.lr * (m[x] / (1 - 0.9 ** step))) / (Math.sqrt(v[x] / (1 - 0.999 ** step)) + 1e-8);
      }
    }
  }
  return { theta, skipped };
}

export function staticMask(env: Environment, questions: Question[], theta: Float64Array): Promise<MethodResult> {
  const kept = [...theta].filter((t) => t >= 0).length;
  return runRule(env, questions, `Static learned mask (${kept}/${theta.length} positions kept)`, (d, n) =>
    Array.from({ length: n }, (_, i) => Array.from({ length: n }, (_, j) => theta[actionIndex(n, d.round + 1, i, j)] >= 0)),
  );
}
