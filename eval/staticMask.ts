// Static learned mask (docs/method.md §8; GPTSwarm/AgentPrune style): one keep logit per edge position
// (round, recipient, candidate), blind to content, trained with the same REINFORCE, reward, return,
// baseline and budget as the FuseGLU policy (train/advantage.ts) and the same Adam (adam.ts),
// evaluated deterministically (keep iff logit >= 0).
import { shuffle } from '../src/shuffle.ts';
import seedrandom from 'seedrandom';
import type { Question } from '../src/cache/types.ts';
import { actionIndex, actionsPerDebate, candidateOrder } from '../src/env/actions.ts';
import { edgesOnly, keepAll, playDebates, type DebateResult, type DecisionRule } from '../src/env/debate.ts';
import type { Environment } from '../src/env/environment.ts';
import { shownTokens } from '../src/env/tokenLimit.ts';
import { adamStep } from '../src/policy/adam.ts';
import { letSignalsIn } from '../src/io/interrupt.ts';
import { sigmoid } from '../src/policy/model.ts';
import { influenceWeights, meanResponseTokens, type RewardSettings } from '../src/reward.ts';
import { advantagesOf, baselineSize, dualStep } from '../train/advantage.ts';
import type { TrainConfig } from '../train/config.ts';
import type { MethodResult } from '../src/env/tally.ts';
import { runRule } from './baselines.ts';

/** The training settings the mask reads, with its own learning rate. */
export type MaskSettings = Pick<
  TrainConfig,
  | 'epochs'
  | 'batchSize'
  | 'entropyBonus'
  | 'beta'
  | 'gamma'
  | 'seed'
  | 'beta1'
  | 'beta2'
  | 'epsilon'
  | 'rollouts'
  | 'baseline'
  | 'baselineMomentum'
  | 'normalizeAdvantages'
  | 'costWeight'
  | 'targetCost'
  | 'targetOn'
  | 'dualLr'
> & { lr: number };

/** A mask trainStaticMask made, its logits as numbers (to cross between processes: the main job's comparison). */
export interface TrainedMask {
  theta: number[];
  skipped: number;
}

/**
 * Train the mask on `train`; returns one logit per action position, and the training debates left
 * out because they could not be replayed (miss = signature).
 */
export async function trainStaticMask(
  env: Environment,
  train: Question[],
  reward: RewardSettings,
  s: MaskSettings,
): Promise<{ theta: Float64Array; skipped: number }> {
  const A = env.team.length;
  const N = actionsPerDebate(A, env.rounds);
  const theta = new Float64Array(N);
  const m = new Float64Array(N),
    v = new Float64Array(N);
  const W = influenceWeights(A, env.rounds, s.beta, s.gamma);
  const meanTokens = meanResponseTokens(env.cache);
  const priceIn = env.team.map((a) => env.cache.agents[a].priceIn);
  const fullCost = new Map(
    (
      await playDebates(
        env,
        train.map((q) => q.index),
        keepAll,
      )
    ).map((d) => [d.q, d.cost]),
  );
  const random = seedrandom(`${s.seed}|static-mask`);
  let state = new Array<number>(baselineSize(s.baseline, A, env.rounds)).fill(0);
  let multiplier = s.costWeight;
  let step = 0;
  let skipped = 0;
  for (let epoch = 1; epoch <= s.epochs; epoch++) {
    const order = shuffle([...train], random);
    for (let b = 0; b < order.length; b += s.batchSize) {
      const questions = order.slice(b, b + s.batchSize);
      // Each question `rollouts` times in a row (the grouping the rloo baseline reads).
      const batch = questions.flatMap((q) => new Array<number>(s.rollouts).fill(q.index));
      const actions = new Uint8Array(batch.length * N);
      const tokens = new Float32Array(batch.length * N); // each candidate's output tokens as shown, for the cost terms
      const debateOf = new Map<object, number>(); // debate -> its position in the batch
      let next = 0;
      const rule = edgesOnly((deb, n) => {
        let k = debateOf.get(deb);
        if (k === undefined) debateOf.set(deb, (k = next++));
        return Array.from({ length: n }, (_, i) =>
          candidateOrder(n, i).map((c, j) => {
            const x = k * N + actionIndex(n, deb.round + 1, i, j);
            tokens[x] = shownTokens(env, deb.current[c]);
            actions[x] = random() < sigmoid(theta[x % N]) ? 1 : 0;
            return actions[x] === 1;
          }),
        );
      });
      await letSignalsIn(); // a stop (Ctrl-C, the main job's) lands within a step, as in the policy's training
      const played = await playDebates(env, batch, rule, `${s.seed}|${epoch}`);
      skipped += played.filter((d) => d.missed).length;
      // A question some rollout could not replay leaves the batch whole (its rollouts are a group).
      const keep = played.map((_, k) => !played.slice(k - (k % s.rollouts), k - (k % s.rollouts) + s.rollouts).some((d) => d.missed));
      const results: DebateResult[] = played.filter((_, k) => keep[k]);
      if (results.length === 0) continue;
      const kept = (arr: Uint8Array | Float32Array) => Float32Array.from(played.flatMap((_, k) => (keep[k] ? [...arr.subarray(k * N, (k + 1) * N)] : [])));
      const acts = kept(actions);
      const a = advantagesOf(
        { results, tokens: kept(tokens) },
        {
          reward,
          W,
          meanTokens,
          agents: A,
          baseline: s.baseline,
          rollouts: s.rollouts,
          normalize: s.normalizeAdvantages,
          state,
          momentum: s.baselineMomentum,
          step,
          budget: { multiplier, priceIn, fullCost: (q) => fullCost.get(q)! },
        },
      );
      state = a.state;
      // d/dtheta of the engines' loss -(advantage * log pi(a)) - entropyBonus * H(p), per position
      // (averaged over the batch's debates): log pi' = a - p, H' = -theta p (1 - p).
      const grad = new Float64Array(N);
      for (let x = 0; x < N; x++) {
        const p = sigmoid(theta[x]);
        for (let k = 0; k < results.length; k++) grad[x] -= (a.advantages[k * N + x] * (acts[k * N + x] - p)) / results.length;
        grad[x] += s.entropyBonus * theta[x] * p * (1 - p);
      }
      adamStep(theta, grad, m, v, ++step, s);
      if (s.targetCost !== null) {
        // As in the trainer: the deterministic mask's cost on these questions, or the sampled decisions'.
        const held =
          s.targetOn === 'sampled'
            ? results
            : (
                await playDebates(
                  env,
                  questions.map((q) => q.index),
                  maskRule(theta),
                  `${s.seed}|${epoch}`,
                )
              ).filter((d) => !d.missed);
        multiplier = dualStep(multiplier, held.reduce((t, d) => t + d.cost, 0) / held.reduce((t, d) => t + fullCost.get(d.q)!, 0), s.targetCost, s.dualLr);
      }
    }
  }
  return { theta, skipped };
}

/** The evaluated mask: keep iff the position's logit >= 0. */
const maskRule = (theta: Float64Array): DecisionRule =>
  edgesOnly((d, n) => Array.from({ length: n }, (_, i) => Array.from({ length: n }, (_, j) => theta[actionIndex(n, d.round + 1, i, j)] >= 0)));

export function staticMask(env: Environment, questions: Question[], theta: Float64Array): Promise<MethodResult> {
  const kept = [...theta].filter((t) => t >= 0).length;
  return runRule(env, questions, `Static learned mask (${kept}/${theta.length} positions kept)`, maskRule(theta));
}
