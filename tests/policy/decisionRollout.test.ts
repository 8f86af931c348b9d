import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureEmbeddings, type Embeddings } from '../../src/cache/embeddings.ts';
import { cacheFromRecords } from '../../src/cache/load.ts';
import type { Cache } from '../../src/cache/types.ts';
import { bofEncoder } from '../../src/encoders/bof.ts';
import { startDebate } from '../../src/env/debate.ts';
import { makeEnvironment, type Environment } from '../../src/env/environment.ts';
import { zeroMoments, type PolicyEngine } from '../../src/policy/engine.ts';
import { decisionLayout } from '../../src/policy/decisionLayout.ts';
import { initWeights, KIND, type DecisionBatch, type PolicyShape } from '../../src/policy/model.ts';
import { decisionRates, madeDecisions, playGreedy, rollout } from '../../src/policy/rollout.ts';
import { loadBackend, tfjsEngine } from '../../src/policy/tfjsEngine.ts';
import { TINY } from '../fixtures/gradientCheck.ts';
import { tinyRecords } from '../fixtures/tinyWorld.ts';

const D = 32;
const shape: PolicyShape = { ...TINY, dim: D, hidden: 6, rounds: 2, decisions: 'edges+revise+stop' };
let cache: Cache, env: Environment, emb: Embeddings;
beforeAll(async () => {
  await loadBackend('cpu');
  cache = cacheFromRecords(tinyRecords(4));
  env = makeEnvironment(cache, { rounds: 2, miss: 'error' });
  emb = await ensureEmbeddings(mkdtempSync(join(tmpdir(), 'cpp-decide-')), cache, bofEncoder(D));
});

/** A policy whose logit is fixed by each row's kind (and, for revise and edges, its recipient). */
function fixed(logit: (kind: number, recipient: number, own: number) => number, seen: DecisionBatch[] = []): PolicyEngine {
  return {
    name: 'fixed',
    shape,
    keepLogits: async (b: DecisionBatch) => (seen.push(structuredClone(b)), Float32Array.from(b.kind!, (k, r) => logit(k, b.recipient[r], b.own[r]))),
  } as unknown as PolicyEngine;
}
const greedy = { mode: 'greedy' as const, debateSeed: '0', conditioning: true };
const roundOneCost = (q: number) => startDebate(env, q).cost;

describe('a rollout with stop and revise decisions (tiny world: a2 right, a1 and a3 wrong in round 1)', () => {
  it('a stop before round 2 makes no call: the debate costs round 1 alone, its only decision is the stop', async () => {
    const played = await rollout(
      fixed(() => 10),
      env,
      emb,
      [0, 1],
      greedy,
    );
    const layout = decisionLayout(3, 2, shape.decisions);
    played.results.forEach((d) => {
      expect(d.cost).toBe(roundOneCost(d.q));
      expect(d.stoppedAfter).toBe(1);
      expect(d.answers.at(-1)).toEqual(d.answers[0]);
    });
    const present = [...played.decisions!.present];
    expect(present.map((p, x) => (p ? layout.slot(x % layout.perDebate).kind : -1)).filter((k) => k >= 0)).toEqual([KIND.stop, KIND.stop]);
    expect(decisionRates(played)).toEqual({ keepRate: 0, reviseRate: 0, stopRate: 1 });
  });

  it('a recipient that keeps its answer makes no call and decides no edges; one that revises decides its edges and pays its call', async () => {
    const seen: DecisionBatch[] = [];
    // Go on; only a1 revises; it keeps every edge.
    const played = await rollout(
      fixed((k, i) => (k === KIND.stop ? -10 : k === KIND.revise ? (i === 0 ? 10 : -10) : 10), seen),
      env,
      emb,
      [0],
      greedy,
    );
    const [d] = played.results;
    expect(d.revises[0]).toEqual([true, false, false]);
    expect(d.answers[1].slice(1)).toEqual(d.answers[0].slice(1)); // a2, a3 keep their answers
    expect(d.correct[1][0]).toBe(false); // a1 read a2 (right) and a3: the tiny world fixes it only without a3
    const layout = decisionLayout(3, 2, shape.decisions);
    const { present } = played.decisions!;
    for (let i = 0; i < 3; i++) for (let j = 0; j < 3; j++) expect(present[layout.edge(2, i, j)], `edge ${i} ${j}`).toBe(i === 0 ? 1 : 0);
    expect([0, 1, 2].map((i) => present[layout.reviseAt(2, i)])).toEqual([1, 1, 1]);
    // Forward passes: the stop (one row), the revisions (three rows), then a1's three candidate positions.
    expect(seen.map((b) => b.n)).toEqual([1, 3, 1, 1, 1]);
    expect([...seen[1].kind!]).toEqual([KIND.revise, KIND.revise, KIND.revise]);
    // Agreement: every answer differs in round 1 (A, B, C): each holds a third of the team.
    seen[1].agree!.forEach((a) => expect(a).toBeCloseTo(1 / 3, 6));
    // a1's call in its own tokens: the prompt and its reply (prices 1 and 1 in the tiny world).
    expect(played.tokens[layout.reviseAt(2, 0)]).toBeGreaterThan(cache.questions[0].promptTokens);
    expect(played.tokens[layout.reviseAt(2, 1)]).toBe(0);
    // A step learns from the five decisions made.
    const made = madeDecisions(played, new Float32Array(played.batch.n).fill(1));
    expect(made.batch.n).toBe(1 + 3 + 3);
    expect(made.actions.length).toBe(7);
    expect([...made.batch.kind!]).toEqual([KIND.stop, KIND.revise, KIND.revise, KIND.revise, KIND.edge, KIND.edge, KIND.edge]);
  });

  it('revising everywhere and going on plays the debates the same edge decisions play (an edges policy with the same weights)', async () => {
    const edges: PolicyShape = { ...shape, decisions: 'edges' };
    const w = initWeights(shape, 'same');
    w.kindEmb.data.fill(0); // the edge rows read the candidate as the edges policy does
    w['reviseHead.b'].data[0] = 20;
    w['stopHead.b'].data[0] = -20;
    const state = (weights: typeof w) => ({ weights, step: 0, m: zeroMoments(weights), v: zeroMoments(weights) });
    const edgeWeights = Object.fromEntries(Object.entries(w).filter(([n]) => !n.startsWith('kind') && !n.includes('Head')));
    const opt = { lr: 1e-3, beta1: 0.9, beta2: 0.999, epsilon: 1e-8, entropyBonus: 0 };
    const [a, b] = [tfjsEngine(shape, state(w), opt), tfjsEngine(edges, state(edgeWeights), opt)];
    const questions = [0, 1, 2, 3];
    const [withDecisions, edgesOnly] = [await playGreedy(a, env, emb, questions), await playGreedy(b, env, emb, questions)];
    expect(withDecisions.map((d) => [d.keeps, d.cost, d.final])).toEqual(edgesOnly.map((d) => [d.keeps, d.cost, d.final]));
    expect(withDecisions.every((d) => d.revises[0].every(Boolean) && d.stoppedAfter === undefined)).toBe(true);
    a.dispose();
    b.dispose();
  });
});
