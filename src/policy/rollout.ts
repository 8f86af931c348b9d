// Playing debates with a policy, many in lockstep so the engine sees large batches: for each
// round, for each candidate position j, one forward pass decides position j for every
// (debate, recipient); kept candidates then enter the recipient's query state before position
// j + 1 is decided (conditional, progressive pruning, SPEC §4).
import type { Embeddings } from '../cache/embeddings.ts';
import { candidateOrder, finishDebate, startDebate, stepRound, type DebateResult, type Environment } from '../env/environment.ts';
import { shownTokens } from '../env/tokenLimit.ts';
import type { PolicyEngine } from './engine.ts';
import { sigmoid, type DecisionBatch } from './model.ts';

export interface Rollout {
  results: DebateResult[];
  /** Every decision, debate-major, then (round, recipient, candidate): the order of SPEC §6 returns. */
  batch: DecisionBatch;
  actions: Uint8Array;
  probs: Float32Array;
  /** Output tokens of each decision's candidate (for the reward's cost term). */
  tokens: Float32Array;
}

export function emptyBatch(n: number, dim: number): DecisionBatch {
  return {
    n,
    query: new Float32Array(n * dim),
    candidate: new Float32Array(n * dim),
    recipient: new Int32Array(n),
    own: new Int32Array(n),
    source: new Int32Array(n),
    round: new Int32Array(n),
  };
}

/** Write S / |S| into `out` at `offset`. */
export function normalizeInto(S: Float32Array, sOffset: number, dim: number, out: Float32Array, offset: number) {
  let norm = 0;
  for (let k = 0; k < dim; k++) norm += S[sOffset + k] ** 2;
  const inv = norm > 0 ? 1 / Math.sqrt(norm) : 0;
  for (let k = 0; k < dim; k++) out[offset + k] = S[sOffset + k] * inv;
}

export interface RolloutOptions {
  /** `sample` keeps with probability p_keep, drawn from `random` (training); `greedy` keeps iff p_keep >= 0.5 (evaluation). */
  mode: { sample: () => number } | 'greedy';
  /** Seed of the environment's own random choices (tier-3 draws, sample picks). */
  debateSeed: string;
  conditioning: boolean;
}

export async function rollout(engine: PolicyEngine, env: Environment, emb: Embeddings, questions: number[], o: RolloutOptions): Promise<Rollout> {
  const { cache } = env;
  const D = emb.dim;
  const A = env.team.length;
  const perDebate = (env.rounds - 1) * A * A;
  const B = questions.length;
  const all = emptyBatch(B * perDebate, D);
  const actions = new Uint8Array(all.n);
  const probs = new Float32Array(all.n);
  const tokens = new Float32Array(all.n);
  const debates = questions.map((q) => startDebate(env, q, o.debateSeed));
  // S: per (debate, recipient), the token-weighted sum of the question and every kept candidate.
  const S = new Float32Array(B * A * D);
  debates.forEach((d, b) => {
    const qe = emb.questions[d.q];
    const w = cache.questions[d.q].promptTokens;
    for (let i = 0; i < A; i++) for (let k = 0; k < D; k++) S[(b * A + i) * D + k] = qe[k] * w;
  });
  const step = emptyBatch(B * A, D);
  for (let t = 2; t <= env.rounds; t++) {
    const keep = debates.map(() => Array.from({ length: A }, () => new Array<boolean>(A).fill(false)));
    for (let j = 0; j < A; j++) {
      for (let b = 0; b < B; b++)
        for (let i = 0; i < A; i++) {
          const row = b * A + i;
          const source = candidateOrder(A, i)[j];
          const response = cache.responses[debates[b].current[source].source];
          if (o.conditioning) normalizeInto(S, row * D, D, step.query, row * D);
          else normalizeInto(emb.questions[debates[b].q], 0, D, step.query, row * D);
          step.candidate.set(emb.responses[response.index], row * D);
          step.recipient[row] = i;
          step.own[row] = j === 0 ? 1 : 0;
          step.source[row] = source;
          step.round[row] = t - 2;
        }
      const logits = await engine.keepLogits(step);
      for (let b = 0; b < B; b++)
        for (let i = 0; i < A; i++) {
          const row = b * A + i;
          const p = sigmoid(logits[row]);
          const kept = o.mode === 'greedy' ? p >= 0.5 : o.mode.sample() < p;
          keep[b][i][j] = kept;
          const x = b * perDebate + (t - 2) * A * A + i * A + j;
          all.query.set(step.query.subarray(row * D, (row + 1) * D), x * D);
          all.candidate.set(step.candidate.subarray(row * D, (row + 1) * D), x * D);
          all.recipient[x] = i;
          all.own[x] = step.own[row];
          all.source[x] = step.source[row];
          all.round[x] = t - 2;
          actions[x] = kept ? 1 : 0;
          probs[x] = p;
          const candidate = debates[b].current[step.source[row]];
          tokens[x] = shownTokens(env, candidate);
          if (kept && o.conditioning) {
            const e = emb.responses[candidate.source];
            for (let k = 0; k < D; k++) S[row * D + k] += e[k] * tokens[x];
          }
        }
    }
    debates.forEach((d, b) => stepRound(env, d, keep[b]));
    if (cache.responses.length > emb.responses.length)
      throw new Error(`the record tier added responses without embeddings under ${emb.encoder}: train with miss = model or signature, or embed the recorded responses first`);
  }
  return { results: debates.map((d) => finishDebate(env, d)), batch: all, actions, probs, tokens };
}
