// Playing debates with a policy, many in lockstep so the engine sees large batches: for each
// round, for each candidate position j, one forward pass decides position j for every
// (debate, recipient); kept candidates then enter the recipient's query state before position
// j + 1 is decided (conditional, progressive pruning, docs/method.md §4).
import { embedArrivals, type Embeddings } from '../cache/embeddings.ts';
import { actionIndex, actionsPerDebate, candidateOrder } from '../env/actions.ts';
import { finishDebate, startDebates, stepDebates, type DebateResult } from '../env/debate.ts';
import type { Environment } from '../env/environment.ts';
import { protocolInputs } from '../env/protocol.ts';
import { shownTokens } from '../env/tokenLimit.ts';
import type { PolicyEngine } from './engine.ts';
import { ROW_WIDTH, teamRows } from './behaviorRows.ts';
import { sigmoid, type DecisionBatch } from './model.ts';

export interface Rollout {
  results: DebateResult[];
  /** Every decision, debate-major, then (round, recipient, candidate): the order of docs/method.md §6 returns. */
  batch: DecisionBatch;
  actions: Uint8Array;
  probs: Float32Array;
  /** Output tokens of each decision's candidate (for the reward's cost term). */
  tokens: Float32Array;
}

function emptyBatch(n: number, dim: number, rows: boolean): DecisionBatch {
  return {
    ...(rows && { rows: new Float32Array(n * 2 * ROW_WIDTH) }),
    n,
    query: new Float32Array(n * dim),
    candidate: new Float32Array(n * dim),
    recipient: new Int32Array(n),
    own: new Int32Array(n),
    source: new Int32Array(n),
    round: new Int32Array(n),
    current: new Int32Array(n),
    turn: new Int32Array(n),
  };
}

/** Write S / |S| into `out` at `offset`. */
export function normalizeInto(S: Float32Array, sOffset: number, dim: number, out: Float32Array, offset: number) {
  let norm = 0;
  for (let k = 0; k < dim; k++) {
    const x = S[sOffset + k];
    norm += x * x;
  }
  const inv = norm > 0 ? 1 / Math.sqrt(norm) : 0;
  for (let k = 0; k < dim; k++) out[offset + k] = S[sOffset + k] * inv;
}

interface RolloutOptions {
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
  const perDebate = actionsPerDebate(A, env.rounds);
  const B = questions.length;
  // With behavior rows, each decision reads its source's row and its recipient's (the team's, from this cache).
  const rows = engine.shape.behaviorRows ? teamRows(cache, env.team) : undefined;
  const all = emptyBatch(B * perDebate, D, !!rows);
  const actions = new Uint8Array(all.n);
  const probs = new Float32Array(all.n);
  const tokens = new Float32Array(all.n);
  const debates = await startDebates(env, questions, o.debateSeed);
  await embedArrivals(emb, cache); // round-1 answers the record tier added
  // S: per (debate, recipient), the token-weighted sum of the question and every kept candidate.
  const S = new Float32Array(B * A * D);
  debates.forEach((d, b) => {
    const qe = emb.questions[d.q];
    const w = cache.questions[d.q].promptTokens;
    for (let i = 0; i < A; i++) for (let k = 0; k < D; k++) S[(b * A + i) * D + k] = qe[k] * w;
  });
  const step = emptyBatch(B * A, D, !!rows);
  const F = ROW_WIDTH;
  const orders = Array.from({ length: A }, (_, i) => candidateOrder(A, i));
  // Row b * A + i of step.query is the query of (debate b, recipient i) at every position: it is
  // normalized again only after its state S changed (a kept candidate, with conditioning).
  const stale = new Uint8Array(B * A).fill(1);
  for (let t = 2; t <= env.rounds; t++) {
    const keep = debates.map(() => Array.from({ length: A }, () => new Array<boolean>(A).fill(false)));
    const protocol = debates.map((d) => protocolInputs(cache, env.turns, env.team, d.q, t));
    for (let j = 0; j < A; j++) {
      for (let b = 0; b < B; b++)
        for (let i = 0; i < A; i++) {
          const row = b * A + i;
          const source = orders[i][j];
          const response = cache.responses[debates[b].current[source].source];
          if (stale[row]) {
            if (o.conditioning) normalizeInto(S, row * D, D, step.query, row * D);
            else normalizeInto(emb.questions[debates[b].q], 0, D, step.query, row * D);
            stale[row] = 0;
          }
          step.candidate.set(emb.responses[response.index], row * D);
          step.recipient[row] = i;
          step.own[row] = j === 0 ? 1 : 0;
          step.source[row] = source;
          step.round[row] = t - 2;
          step.current[row] = protocol[b].current[i][j] ? 1 : 0;
          step.turn[row] = protocol[b].turn[i];
          if (rows) {
            step.rows!.set(rows.subarray(source * F, (source + 1) * F), row * 2 * F);
            step.rows!.set(rows.subarray(i * F, (i + 1) * F), (row * 2 + 1) * F);
          }
        }
      const logits = await engine.keepLogits(step);
      for (let b = 0; b < B; b++)
        for (let i = 0; i < A; i++) {
          const row = b * A + i;
          const p = sigmoid(logits[row]);
          const kept = o.mode === 'greedy' ? p >= 0.5 : o.mode.sample() < p;
          keep[b][i][j] = kept;
          const x = b * perDebate + actionIndex(A, t, i, j);
          all.query.set(step.query.subarray(row * D, (row + 1) * D), x * D);
          all.candidate.set(step.candidate.subarray(row * D, (row + 1) * D), x * D);
          all.recipient[x] = i;
          all.own[x] = step.own[row];
          all.source[x] = step.source[row];
          all.round[x] = t - 2;
          all.current[x] = step.current[row];
          all.turn[x] = step.turn[row];
          if (rows) all.rows!.set(step.rows!.subarray(row * 2 * F, (row + 1) * 2 * F), x * 2 * F);
          actions[x] = kept ? 1 : 0;
          probs[x] = p;
          const candidate = debates[b].current[step.source[row]];
          tokens[x] = shownTokens(env, candidate); // its length as shown (cut at a token limit)
          if (kept && o.conditioning) {
            const e = emb.responses[candidate.source];
            for (let k = 0; k < D; k++) S[row * D + k] += e[k] * tokens[x];
            stale[row] = 1;
          }
        }
    }
    await stepDebates(
      env,
      debates,
      keep.map((k) => ({ keep: k })),
    );
    await embedArrivals(emb, cache);
  }
  return { results: debates.map((d) => finishDebate(env, d)), batch: all, actions, probs, tokens };
}

/**
 * The debates of `questions` under the trained policy's decisions (keep iff p_keep >= 0.5,
 * docs/method.md §7), `batch` debates at a time (the engine's `evalBatch`: the GPU engine's is large).
 */
export async function playGreedy(
  engine: PolicyEngine,
  env: Environment,
  emb: Embeddings,
  questions: number[],
  batch = engine.evalBatch ?? 256,
): Promise<DebateResult[]> {
  const results: DebateResult[] = [];
  for (let i = 0; i < questions.length; i += batch)
    results.push(
      ...(
        await rollout(engine, env, emb, questions.slice(i, i + batch), {
          mode: 'greedy',
          debateSeed: String(env.settings.seed),
          conditioning: engine.shape.conditioning,
        })
      ).results,
    );
  return results;
}
