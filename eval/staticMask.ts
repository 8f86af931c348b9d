// Static learned mask (SPEC §8; GPTSwarm/AgentPrune style): one keep logit per edge position
// (round, recipient, candidate), blind to content, trained with the same REINFORCE, reward, return,
// baseline and budget as the FuseGLU policy (train/advantage.ts) and the same Adam (adam.ts),
// evaluated deterministically (keep iff logit >= 0).
import { shuffle } from '../src/shuffle.ts';
import seedrandom from 'seedrandom';
import type { Question } from '../src/cache/load.ts';
import { candidateOrder, keepAll, replay, type DebateResult, type Environment, type KeepRule } from '../src/env/environment.ts';
import { shownTokens } from '../src/env/tokenLimit.ts';
import { adamStep } from '../src/policy/adam.ts';
import { sigmoid } from '../src/policy/model.ts';
import { influenceWeights, meanResponseTokens, type RewardSettings } from '../src/reward.ts';
import { advantagesOf, baselineSize, dualStep } from '../train/advantage.ts';
import type { TrainConfig } from '../train/config.ts';
import { runRule, type MethodResult } from './baselines.ts';

/** The training settings the mask reads, with its own learning rate. */
export type MaskSettings = Pick<TrainConfig,
  'epochs' | 'batchSize' | 'entropyBonus' | 'beta' | 'gamma' | 'seed' | 'beta1' | 'beta2' | 'epsilon' | 'rollouts' | 'baseline' |
  'baselineMomentum' | 'normalizeAdvantages' | 'costWeight' | 'targetCost' | 'targetOn' | 'dualLr'> & { lr: number };

/** Train the mask on `train`; returns one logit per action position. */
export function trainStaticMask(env: Environment, train: Question[], reward: RewardSettings, s: MaskSettings): Float64Array {
  const A = env.team.length;
  const N = (env.rounds - 1) * A * A;
  const theta = new Float64Array(N);
  const m = new Float64Array(N), v = new Float64Array(N);
  const W = influenceWeights(A, env.rounds, s.beta, s.gamma);
  const meanTokens = meanResponseTokens(env.cache);
  const priceIn = env.team.map((a) => env.cache.agents[a].priceIn);
  const fullCost = new Map(train.map((q) => [q.index, replay(env, q.index, keepAll).cost]));
  const random = seedrandom(`${s.seed}|static-mask`);
  let state = new Array<number>(baselineSize(s.baseline, A, env.rounds)).fill(0);
  let multiplier = s.costWeight;
  let step = 0;
  for (let epoch = 1; epoch <= s.epochs; epoch++) {
    const order = shuffle([...train], random);
    for (let b = 0; b < order.length; b += s.batchSize) {
      const questions = order.slice(b, b + s.batchSize);
      const batch = questions.flatMap((q) => new Array<Question>(s.rollouts).fill(q));
      const actions = new Uint8Array(batch.length * N);
      const tokens = new Float32Array(batch.length * N); // each candidate's output tokens, for the cost terms
      const results: DebateResult[] = batch.map((q, k) =>
        replay(env, q.index, (deb, n) => Array.from({ length: n }, (_, i) => candidateOrder(n, i).map((c, j) => {
          const x = k * N + (deb.round - 1) * n * n + i * n + j;
          tokens[x] = shownTokens(env, deb.current[c]);
          actions[x] = random() < sigmoid(theta[x % N]) ? 1 : 0;
          return actions[x] === 1;
        })), `${s.seed}|${epoch}`),
      );
      const a = advantagesOf({ results, tokens }, {
        reward, W, meanTokens, agents: A, baseline: s.baseline, rollouts: s.rollouts, normalize: s.normalizeAdvantages,
        state, momentum: s.baselineMomentum, step, budget: { multiplier, priceIn, fullCost: (q) => fullCost.get(q)! },
      });
      state = a.state;
      // d/dtheta of the engines' loss -(advantage * log pi(a)) - entropyBonus * H(p), per position
      // (averaged over the batch's debates): log pi' = a - p, H' = -theta p (1 - p).
      const grad = new Float64Array(N);
      for (let x = 0; x < N; x++) {
        const p = sigmoid(theta[x]);
        for (let k = 0; k < batch.length; k++) grad[x] -= (a.advantages[k * N + x] * (actions[k * N + x] - p)) / batch.length;
        grad[x] += s.entropyBonus * theta[x] * p * (1 - p);
      }
      adamStep(theta, grad, m, v, ++step, s);
      if (s.targetCost !== null) {
        // As in the trainer: the deterministic mask's cost on these questions, or the sampled decisions'.
        const held = s.targetOn === 'sampled' ? results : questions.map((q) => replay(env, q.index, maskRule(theta), `${s.seed}|${epoch}`));
        multiplier = dualStep(multiplier, held.reduce((t, d) => t + d.cost, 0) / held.reduce((t, d) => t + fullCost.get(d.q)!, 0), s.targetCost, s.dualLr);
      }
    }
  }
  return theta;
}

/** The evaluated mask: keep iff the position's logit >= 0. */
const maskRule = (theta: Float64Array): KeepRule => (d, n) =>
  Array.from({ length: n }, (_, i) => Array.from({ length: n }, (_, j) => theta[(d.round - 1) * n * n + i * n + j] >= 0));

export function staticMask(env: Environment, questions: Question[], theta: Float64Array): MethodResult {
  const kept = [...theta].filter((t) => t >= 0).length;
  return runRule(env, questions, `Static learned mask (${kept}/${theta.length} positions kept)`, maskRule(theta));
}
