// Playing debates with a policy, many in lockstep so the engine sees large batches: for each
// round, one forward pass for the stop decisions of every debate and one for the revise decisions of
// every recipient (when the policy makes them), then for each candidate position j one forward pass
// decides position j for every (debate, recipient that revises); kept candidates then enter the
// recipient's query state before position j + 1 is decided (conditional, progressive pruning,
// docs/method.md §4).
import { embedArrivals, type Embeddings } from '../cache/embeddings.ts';
import { candidateOrder } from '../env/actions.ts';
import { finishDebate, majority, startDebates, stepDebates, type Debate, type DebateResult } from '../env/debate.ts';
import type { Environment } from '../env/environment.ts';
import { protocolInputs } from '../env/protocol.ts';
import { shownTokens } from '../env/tokenLimit.ts';
import type { PolicyEngine } from './engine.ts';
import { ROW_WIDTH, teamRows } from './behaviorRows.ts';
import { KIND, sigmoid, type DecisionBatch } from './model.ts';
import { copyRow, emptyBatch, firstRows, keptRows, normalizeInto } from './decisionBatch.ts';
import { decisionLayout, type DecisionLayout } from './decisionLayout.ts';

export interface Rollout {
  results: DebateResult[];
  /** Every decision slot, debate-major, then in decisionLayout order (with edges alone: round, recipient, candidate, the order of docs/method.md §6 returns). */
  batch: DecisionBatch;
  actions: Uint8Array;
  probs: Float32Array;
  /** What each decision's action 1 pays, in tokens (for the reward's cost term; decisionLayout.ts). */
  tokens: Float32Array;
  /** With decisions beyond edges: their layout, the actions again, and which slots hold a decision made (others are zero rows). */
  decisions?: { layout: DecisionLayout; actions: Uint8Array; present: Uint8Array };
}

interface RolloutOptions {
  /** `sample` takes action 1 with probability p, drawn from `random` (training); `greedy` iff p >= 0.5 (evaluation). */
  mode: { sample: () => number } | 'greedy';
  /** Seed of the environment's own random choices (tier-3 draws, sample picks). */
  debateSeed: string;
  conditioning: boolean;
}

/** The team position holding the current majority answer (ties: the lowest position; none parsed: 0). */
const majorityHolder = (answers: number[]): number => Math.max(0, answers.indexOf(majority(answers, 'lowest-agent', () => 0)));

/**
 * Play `questions` with the policy's decisions. In each round t >= 2: with stop, one decision per
 * debate (the question as its query, the answer of the member holding the current majority as its
 * candidate); with revise, one per recipient (its own answer as the candidate); then, for the
 * recipients that revise, the edges. Each reads its candidate's agreement (the share of the team
 * whose current answer is the candidate's).
 */
export async function rollout(engine: PolicyEngine, env: Environment, emb: Embeddings, questions: number[], o: RolloutOptions): Promise<Rollout> {
  const { cache } = env;
  const D = emb.dim;
  const A = env.team.length;
  const shape = engine.shape;
  const layout = decisionLayout(A, env.rounds, shape.decisions);
  const perDebate = layout.perDebate;
  const B = questions.length;
  // With behavior rows, each decision reads its source's row and its recipient's (the team's, from this cache).
  const rows = shape.behaviorRows ? teamRows(cache, env.team) : undefined;
  const all = emptyBatch(B * perDebate, D, shape);
  const actions = new Uint8Array(all.n);
  const probs = new Float32Array(all.n);
  const tokens = new Float32Array(all.n);
  const present = new Uint8Array(all.n);
  const debates = await startDebates(env, questions, o.debateSeed);
  await embedArrivals(emb, cache); // round-1 answers the record tier added
  // S: per (debate, recipient), the token-weighted sum of the question and every kept candidate.
  const S = new Float32Array(B * A * D);
  debates.forEach((d, b) => {
    const qe = emb.question(d.q);
    const w = cache.questions[d.q].promptTokens;
    for (let i = 0; i < A; i++) for (let k = 0; k < D; k++) S[(b * A + i) * D + k] = qe[k] * w;
  });
  const step = emptyBatch(B * A, D, shape);
  const F = ROW_WIDTH;
  const orders = Array.from({ length: A }, (_, i) => candidateOrder(A, i));
  // Q: the normalized query of each (debate b, recipient i), normalized again only after its state S
  // changed (a kept candidate, with conditioning).
  const Q = new Float32Array(B * A * D);
  const stale = new Uint8Array(B * A).fill(1);
  const stopped = new Uint8Array(B);
  let protocol: ReturnType<typeof protocolInputs>[] = [];
  /** Row r of `step`: recipient i of debate b deciding about `source`'s answer, at candidate position j (revise, stop: its own, 0). */
  const fill = (r: number, b: number, i: number, source: number, j: number, t: number, kind: number) => {
    const row = b * A + i;
    if (stale[row]) {
      if (o.conditioning) normalizeInto(S, row * D, D, Q, row * D);
      else normalizeInto(emb.question(debates[b].q), 0, D, Q, row * D);
      stale[row] = 0;
    }
    // A stop decision is the debate's: it reads the question alone (no recipient's kept responses).
    if (kind === KIND.stop) normalizeInto(emb.question(debates[b].q), 0, D, step.query, r * D);
    else step.query.set(Q.subarray(row * D, (row + 1) * D), r * D);
    const current = debates[b].current;
    // A member absent from the log (recorded protocol) shows nothing: a zero embedding.
    if (current[source].source < 0) step.candidate.fill(0, r * D, (r + 1) * D);
    else step.candidate.set(emb.response(cache.responses[current[source].source].index), r * D);
    step.recipient[r] = i;
    step.own[r] = j === 0 ? 1 : 0;
    step.source[r] = source;
    step.round[r] = t - 2;
    step.current[r] = kind === KIND.edge && protocol[b].current[i][j] ? 1 : 0;
    step.turn[r] = protocol[b].turn[i];
    if (step.kind) {
      step.kind[r] = kind;
      const ans = current[source].ans;
      step.agree![r] = ans < 0 ? 0 : current.filter((c) => c.ans === ans).length / A;
    }
    if (rows) {
      step.rows!.set(rows.subarray(source * F, (source + 1) * F), r * 2 * F);
      step.rows!.set(rows.subarray(i * F, (i + 1) * F), (r * 2 + 1) * F);
    }
  };
  /** Decide rows 0..slots.length - 1 of `step`, row r being slot slots[r] of all; returns the actions. */
  const decide = async (slots: number[]): Promise<boolean[]> => {
    const logits = slots.length ? await engine.keepLogits(firstRows(step, slots.length, D)) : new Float32Array(0);
    return slots.map((x, r) => {
      const p = sigmoid(logits[r]);
      const on = o.mode === 'greedy' ? p >= 0.5 : o.mode.sample() < p;
      copyRow(step, r, all, x, D);
      actions[x] = on ? 1 : 0;
      probs[x] = p;
      present[x] = 1;
      return on;
    });
  };
  for (let t = 2; t <= env.rounds; t++) {
    protocol = debates.map((d) => protocolInputs(cache, env.turns, env.team, d.q, t));
    const going = debates.map((_, b) => b).filter((b) => !stopped[b]);
    const stopNow = new Uint8Array(B);
    if (layout.stop) {
      going.forEach((b, r) => {
        const m = majorityHolder(debates[b].current.map((c) => c.ans));
        fill(r, b, m, m, 0, t, KIND.stop);
      });
      (await decide(going.map((b) => b * perDebate + layout.stopAt(t)))).forEach((on, r) => on && (stopNow[going[r]] = stopped[going[r]] = 1));
    }
    const revise = debates.map(() => new Array<boolean>(A).fill(!layout.revise));
    const asked = going.filter((b) => !stopNow[b]);
    if (layout.revise) {
      const at = asked.flatMap((b) => Array.from({ length: A }, (_, i) => [b, i] as const));
      at.forEach(([b, i], r) => fill(r, b, i, i, 0, t, KIND.revise));
      (await decide(at.map(([b, i]) => b * perDebate + layout.reviseAt(t, i)))).forEach((on, r) => (revise[at[r][0]][at[r][1]] = on));
    }
    const keep = debates.map(() => Array.from({ length: A }, () => new Array<boolean>(A).fill(false)));
    const readers = asked.flatMap((b) => Array.from({ length: A }, (_, i) => [b, i] as const).filter(([, i]) => revise[b][i]));
    for (let j = 0; j < A; j++) {
      readers.forEach(([b, i], r) => fill(r, b, i, orders[i][j], j, t, KIND.edge));
      const slots = readers.map(([b, i]) => b * perDebate + layout.edge(t, i, j));
      (await decide(slots)).forEach((kept, r) => {
        const [b, i] = readers[r];
        const x = slots[r];
        keep[b][i][j] = kept;
        const candidate = debates[b].current[orders[i][j]];
        tokens[x] = shownTokens(env, candidate); // its length as shown (cut at a token limit)
        if (kept && o.conditioning && candidate.source >= 0) {
          const row = b * A + i;
          const e = emb.response(candidate.source);
          for (let k = 0; k < D; k++) S[row * D + k] += e[k] * tokens[x];
          stale[row] = 1;
        }
      });
    }
    await stepDebates(
      env,
      debates,
      debates.map((_, b) => ({ keep: keep[b], ...(layout.revise && { revise: revise[b] }), ...(stopNow[b] && { stop: true }) })),
    );
    await embedArrivals(emb, cache);
    // A revision pays its call: its prompt and its reply, in the recipient's input tokens.
    if (layout.revise)
      for (const b of asked) for (let i = 0; i < A; i++) if (revise[b][i]) tokens[b * perDebate + layout.reviseAt(t, i)] = callTokens(env, debates[b], i);
  }
  return {
    results: debates.map((d) => finishDebate(env, d)),
    batch: all,
    actions,
    probs,
    tokens,
    ...(layout.revise && { decisions: { layout, actions, present } }),
  };
}

/** The call recipient i made in its debate's last round, without what its edges added: prompt tokens, and its reply priced in input tokens. */
function callTokens(env: Environment, d: Debate, i: number): number {
  const agent = env.cache.agents[env.team[i]];
  const out = shownTokens(env, d.current[i]);
  return env.cache.questions[d.q].promptTokens + (agent.priceIn > 0 ? (out * agent.priceOut) / agent.priceIn : out);
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

/** What a training step learns from: the decisions made (a rollout's absent slots left out), their actions and advantages. */
export function madeDecisions(r: Rollout, advantages: Float32Array): { batch: DecisionBatch; actions: Uint8Array; advantages: Float32Array } {
  if (!r.decisions) return { batch: r.batch, actions: r.actions, advantages };
  const { present } = r.decisions;
  const made = (a: Uint8Array | Float32Array) => a.filter((_, x) => present[x] === 1);
  return {
    batch: keptRows(r.batch, present, r.batch.query.length / r.batch.n),
    actions: made(r.actions) as Uint8Array,
    advantages: made(advantages) as Float32Array,
  };
}

/** The share of a rollout's edge decisions that kept the edge; with more decisions, of revise decisions that revised and of stop decisions that stopped. */
export function decisionRates(r: Rollout): { keepRate: number; reviseRate?: number; stopRate?: number } {
  if (!r.decisions) return { keepRate: r.actions.reduce((s, x) => s + x, 0) / r.batch.n };
  const { layout, present } = r.decisions;
  const rate = (kind: number) => {
    let made = 0,
      on = 0;
    present.forEach((p, x) => p && layout.slot(x % layout.perDebate).kind === kind && (made++, (on += r.actions[x])));
    return made ? on / made : 0;
  };
  return { keepRate: rate(KIND.edge), reviseRate: rate(KIND.revise), ...(layout.stop && { stopRate: rate(KIND.stop) }) };
}
