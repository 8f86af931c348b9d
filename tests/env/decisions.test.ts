// A round's decisions beyond the edges (src/env/debate.ts, RoundDecision): a member that does not
// revise makes no call, costs nothing and keeps its response; a stopped debate costs what its
// played rounds cost; neither is ever asked of an endpoint; under the recorded protocol a later
// speaker reads what a skipped member last said.
import { describe, expect, it } from 'vitest';
import { candidateOrder } from '../../src/env/actions.ts';
import { importDu } from '../../src/cache/importDu.ts';
import { cacheFromRecords, loadCache } from '../../src/cache/load.ts';
import { keepAll, keepOwn, playDebates, replay, type DecisionRule } from '../../src/env/debate.ts';
import type { Endpoint, EndpointRequest } from '../../src/env/endpoint.ts';
import { makeEnvironment, splitQuestions } from '../../src/env/environment.ts';
import { newRecording } from '../../src/env/record.ts';
import { tally } from '../../src/env/tally.ts';
import { simulatorEndpoint } from '../../src/sim/simulator.ts';
import { dylanMathFiles } from '../fixtures/dylanMath.ts';
import { mathImport } from '../fixtures/duLayout.ts';
import { handRecords } from '../fixtures/handCache.ts';
import { sparseWorld } from '../fixtures/sparseWorld.ts';

const hand = () => cacheFromRecords(handRecords(), 'hand.jsonl');
/** keepAll's edges, with who revises and whether the debate stops. */
const decide =
  (revise?: boolean[], stop?: (round: number) => boolean): DecisionRule =>
  (d, n) => ({ ...keepAll(d, n), ...(revise && { revise }), ...(stop && { stop: stop(d.round + 1) }) });

describe('revise or keep', () => {
  it('a member that does not revise makes no call, costs nothing, looks nothing up and keeps its answer', () => {
    const cache = hand();
    const env = makeEnvironment(cache, { rounds: 2, miss: 'error' });
    const full = replay(env, 0, keepAll);
    const r = replay(env, 0, decide([true, false, true]));
    // q1 Full-Debate: a2's round-2 call (q1f2) reads every round-1 answer: in 10 + 5 + 3 + 2, out 3, at price 1.
    expect(full.cost - r.cost).toBe(10 + 5 + 3 + 2 + 3);
    expect(r.answers[1][1]).toBe(r.answers[0][1]);
    expect(r.tiers).toEqual({ exact: 2, signature: 0, model: 0, record: 0, skipped: 1 });
    expect([r.calls, full.calls]).toEqual([5, 6]);
    expect(r.revises).toEqual([[true, false, true]]);
    // Its edges are moot: none counted kept, none in the keeps the reward reads.
    expect([r.keptEdges, full.keptEdges]).toEqual([6, 9]);
    expect(r.keeps[0][1]).toEqual([false, false, false]);
    // The others' lookups read what a2 showed in round 1 as before: their revisions are the recorded ones.
    expect(r.answers[1][0]).toBe(full.answers[1][0]);
    const t = tally(env, [cache.questions[0]], 'sparse', [r]);
    expect([t.tiers.skipped, t.cost]).toEqual([1, r.cost]);
  });

  it('with a live endpoint, a call not made is never asked', async () => {
    const dir = sparseWorld(8);
    const cache = loadCache(dir, () => {});
    const sim = simulatorEndpoint(loadCache(dir, () => {}));
    const asked: EndpointRequest[] = [];
    const endpoint: Endpoint = { name: 'watching simulator', respond: (r) => (asked.push(r), sim.respond(r)) };
    const env = makeEnvironment(cache, { miss: 'record' }, newRecording(endpoint));
    const qs = splitQuestions(env, 'test').questions.map((q) => q.index);
    // a2 never revises; the others keep only their own answer and a2's: contexts the world did not record.
    const rule: DecisionRule = (_d, n) => ({
      keep: Array.from({ length: n }, (_, i) => candidateOrder(n, i).map((c, j) => j === 0 || c === 1)),
      revise: Array.from({ length: n }, (_, i) => i !== 1),
    });
    const results = await playDebates(env, qs, rule);
    expect(asked.length).toBeGreaterThan(0);
    expect(asked.filter((r) => r.round > 1 && r.agent.id === cache.agents[env.team[1]].id)).toEqual([]);
    const revisions = (env.rounds - 1) * qs.length;
    expect(results.reduce((s, d) => s + d.tiers.skipped, 0)).toBe(revisions);
    // Stopped before round 2: no revision is asked at all.
    asked.length = 0;
    const stopped = await playDebates(
      env,
      qs,
      decide(undefined, () => true),
      'other seed',
    );
    expect(asked.filter((r) => r.round > 1)).toEqual([]);
    expect(stopped.every((d) => d.stoppedAfter === 1 && d.calls === env.team.length)).toBe(true);
  });
});

describe('stop', () => {
  it("a stopped debate's cost equals the cost of the rounds it played, and its answers stay those of its last played round", () => {
    const dir = sparseWorld(8);
    const env = makeEnvironment(
      loadCache(dir, () => {}),
      { miss: 'model' },
    );
    expect(env.rounds).toBe(3);
    for (const q of splitQuestions(env, 'test').questions) {
      const two = makeEnvironment(env.cache, { miss: 'model', rounds: 2 });
      const played = replay(two, q.index, keepAll, 5);
      const r = replay(
        env,
        q.index,
        decide(undefined, (t) => t === 3),
        5,
      );
      expect(r.cost, q.id).toBeCloseTo(played.cost, 9);
      expect(r.answers, q.id).toEqual([...played.answers, played.answers[1]]);
      expect(r.final, q.id).toBe(played.final);
      expect([r.stoppedAfter, r.calls, r.tiers.skipped, r.revises[1]]).toEqual([2, played.calls, 3, [false, false, false]]);
      // Stopped before round 2: the round-1 answers alone.
      const first = replay(
        env,
        q.index,
        decide(undefined, () => true),
        5,
      );
      expect([first.cost, first.stoppedAfter, first.answers.length]).toEqual([replay(two, q.index, decide([false, false, false]), 5).cost, 1, 3]);
    }
  });

  it('a stop is for good: a later decision to go on is not asked', () => {
    const env = makeEnvironment(
      loadCache(sparseWorld(4), () => {}),
      { miss: 'model' },
    );
    let asked = 0;
    const r = replay(env, 0, (d, n) => (asked++, { ...keepAll(d, n), stop: d.round === 1 }));
    expect([asked, r.stoppedAfter, r.tiers.skipped]).toEqual([1, 1, 6]);
  });
});

describe('under the recorded protocol (DyLAN MATH fixtures)', () => {
  const cache = cacheFromRecords(importDu(dylanMathFiles(), mathImport).records, 'dylan-math');
  // prealgebra 88: in round 2 a2 spoke first, and a1 read a2's round-2 answer.
  const q = cache.questionIndex.get('prealgebra_7_631_4_3/88')!;
  const id = (index: number) => cache.responses[index].id;
  const recordedOf = (a: number, t: number) => cache.responses.find((r) => r.q === q && r.a === a && r.round === t && r.sample === 0)!;

  it('a later speaker reads what a skipped member last said, and the skipped turn is neither looked up nor priced', () => {
    const env = makeEnvironment(cache, { agents: ['a1', 'a2'], rounds: 3, protocol: 'recorded', miss: 'model' });
    const read: string[][] = [];
    env.onExactMiss = (d, agent, _own, kept) => d.round === 1 && read.push([cache.agents[agent].id, ...kept.map((k) => id(k.source))]);
    const full = replay(env, q, keepAll);
    const r = replay(env, q, (d, n) => ({ ...keepAll(d, n), revise: [true, d.round !== 1] }));
    expect(r.answers[1][1]).toBe(r.answers[0][1]);
    // a1's recorded round-2 context read a2's round-2 answer; skipped, a2's round-1 answer stands in its place.
    const a1 = recordedOf(0, 2);
    expect(a1.ctx.map(id)).toContain(recordedOf(1, 2).id);
    expect(read).toEqual([['a1', ...a1.ctx.map((c) => (c === recordedOf(1, 2).index ? recordedOf(1, 1).id : id(c)))]]);
    expect(r.tiers.skipped).toBe(1);
    expect(r.calls).toBe(full.calls - 1);
    expect(r.cost).toBeLessThan(full.cost);
  });

  it('with a live endpoint, a skipped turn is never asked and a later speaker is asked with the skipped member last answer', async () => {
    const fresh = cacheFromRecords(importDu(dylanMathFiles(), mathImport).records, 'dylan-math');
    const asked: string[][] = [];
    const endpoint: Endpoint = {
      name: 'test',
      respond: async ({ agent, round, context }) => (
        asked.push([agent.id, String(round), ...context.map((c) => c.id)]), { text: 'The answer is 7.', answer: '7', inTokens: 1, outTokens: 1 }
      ),
    };
    const env = makeEnvironment(fresh, { agents: ['a1', 'a2'], rounds: 3, protocol: 'recorded', miss: 'record' }, newRecording(endpoint));
    const [r] = await playDebates(env, [q], (d, n) => ({ ...keepAll(d, n), revise: [true, d.round !== 1] }));
    const a1 = recordedOf(0, 2);
    expect(asked[0]).toEqual(['a1', '2', ...a1.context.map((c) => (c === recordedOf(1, 2).id ? recordedOf(1, 1).id : c))]);
    expect(asked.filter(([agent, round]) => agent === 'a2' && round === '2')).toEqual([]);
    expect(r.tiers.skipped).toBe(1);
    // Stopped at once: nothing is asked.
    asked.length = 0;
    await playDebates(env, [q], (d, n) => ({ ...keepOwn(d, n), stop: true }));
    expect(asked).toEqual([]);
  });
});
