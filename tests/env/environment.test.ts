import { describe, expect, it } from 'vitest';
import type { Cache } from '../../src/cache/types.ts';
import { cacheFromRecords } from '../../src/cache/load.ts';
import type { CacheLine } from '../../src/cache/format.ts';
import { CacheMissError } from '../../src/env/tiers.ts';
import { candidateOrder } from '../../src/env/actions.ts';
import { edgesOnly, keepAll, keepOwn, majority, playDebates, replay, startDebate, stepRound } from '../../src/env/debate.ts';
import type { Endpoint } from '../../src/env/endpoint.ts';
import { makeEnvironment, splitQuestions } from '../../src/env/environment.ts';
import { newRecording } from '../../src/env/record.ts';
import { fullDebate, noCommunication, singleAgent } from '../../eval/baselines.ts';
import { handRecords, response } from '../fixtures/handCache.ts';

const hand = () => cacheFromRecords(handRecords(), 'hand.jsonl');
const key = (c: Cache, s: string) => c.answerIndex.get(s)!;
const letters = (c: Cache, rows: number[][]) => rows.map((r) => r.map((a) => (a < 0 ? '-' : c.answerKeys[a])).join(''));

describe('replay of the hand-built cache (2 rounds)', () => {
  it('Full-Debate on q1: answers, wrong majority, cost worked out by hand', () => {
    const cache = hand();
    const env = makeEnvironment(cache, { rounds: 2, miss: 'error' });
    const r = replay(env, 0, keepAll);
    expect(letters(cache, r.answers)).toEqual(['ABB', 'BBA']);
    expect(cache.answerKeys[r.final]).toBe('B');
    expect(r.finalCorrect).toBe(false);
    // round 1: a1 10*1+5*2=20, a2 10+3=13, a3 (10+2)*0.5=6; round 2 (in = 10+5+3+2 = 20): a1 20+4*2=28, a2 20+3=23, a3 (20+2)*0.5=11
    expect(r.cost).toBe(20 + 13 + 6 + 28 + 23 + 11);
    expect(r.keptEdges).toBe(9);
    expect(r.tiers).toEqual({ exact: 3, signature: 0, model: 0, record: 0, skipped: 0 });
  });

  it('No-communication on q1 corrects the majority at lower cost', () => {
    const cache = hand();
    const env = makeEnvironment(cache, { rounds: 2, miss: 'error' });
    const r = replay(env, 0, keepOwn);
    expect(letters(cache, r.answers)).toEqual(['ABB', 'AAB']);
    expect(r.finalCorrect).toBe(true);
    // round 2: a1 in 15 -> 15+10=25, a2 in 13 -> 13+3=16, a3 in 12 -> 7
    expect(r.cost).toBe(39 + 25 + 16 + 7);
    expect(r.keptEdges).toBe(3);
  });

  it('a three-way tie on q2 goes to the lowest-numbered agent, or a seeded random one', () => {
    const cache = hand();
    const r = replay(makeEnvironment(cache, { rounds: 2, miss: 'error' }), 1, keepAll);
    expect(letters(cache, r.answers)).toEqual(['CDE', 'CDB']);
    expect(cache.answerKeys[r.final]).toBe('C');
    expect(r.finalCorrect).toBe(true); // gold "(C)" normalizes to C
    // round 1: (20+8) + (20+4) + (20+2)*0.5 = 63; round 2 in = 30: (30+8) + (30+4) + (30+2)*0.5 = 88
    expect(r.cost).toBe(63 + 88);
    const seen = new Set<string>();
    for (let seed = 0; seed < 40; seed++)
      seen.add(cache.answerKeys[replay(makeEnvironment(cache, { rounds: 2, miss: 'error', tieBreak: 'random' }), 1, keepAll, seed).final]);
    expect(seen).toEqual(new Set(['C', 'D', 'B']));
  });

  it('majority drops unparsed answers and is invalid without any', () => {
    expect(majority([3, -1, 5, 5], 'lowest-agent', Math.random)).toBe(5);
    expect(majority([-1, 4, 2], 'lowest-agent', Math.random)).toBe(4);
    expect(majority([-1, -1, -1], 'lowest-agent', Math.random)).toBe(-1);
  });

  it('methods over both questions: accuracy and cost % against Full-Debate', async () => {
    const cache = hand();
    const env = makeEnvironment(cache, { rounds: 2, miss: 'error' });
    const full = await fullDebate(env, cache.questions);
    expect(full.correct).toBe(1); // q1 wrong, q2 right by the tie rule
    expect(full.cost).toBe(101 + 151);
    const a1 = await singleAgent(env, cache.questions, 0);
    expect(a1.correct).toBe(2);
    expect((100 * a1.cost) / full.cost).toBeCloseTo((100 * (20 + 28)) / 252, 10);
    const none = await noCommunication(env, [cache.questions[0]]);
    expect((100 * none.cost) / (await fullDebate(env, [cache.questions[0]])).cost).toBeCloseTo((100 * 87) / 101, 10);
  });
});

describe('lookup tiers', () => {
  // Every recipient keeps its own response and a2's.
  const keepOwnAndA2 = edgesOnly((_d, n) => Array.from({ length: n }, (_, i) => candidateOrder(n, i).map((c, j) => j === 0 || c === 1)));

  it('miss = error names question, agent, round and context of a miss', () => {
    const env = makeEnvironment(hand(), { rounds: 2, miss: 'error' });
    expect(() => replay(env, 0, keepOwnAndA2)).toThrow(CacheMissError);
    expect(() => replay(env, 0, keepOwnAndA2)).toThrow(
      /agent 'a1' to question 'q1' at round 2 with context \[q1a1, q1a2\] \(miss = error; the tier-3 model would answer it: miss = model/,
    );
  });

  it('signature serves a context with the same (source, answer) multiset, and only then', () => {
    const cache = hand();
    // Find a seed whose random round-1 pick for a2 is its second sample (same answer B, other id).
    const settings = { rounds: 2, miss: 'signature' as const, round1Sample: 'random' as const };
    const env = makeEnvironment(cache, settings);
    const seed = [...Array(50).keys()].find((s) => cache.responses[startDebate(env, 0, s).current[1].source].id === 'q1a2s1');
    expect(seed).toBeDefined();
    const r = replay(env, 0, keepAll, seed);
    expect(r.tiers).toEqual({ exact: 0, signature: 3, model: 0, record: 0, skipped: 0 });
    expect(letters(cache, r.answers)).toEqual(['ABB', 'BBA']);
    // With sample 0 the same contexts are exact hits; a context never seen is a miss at this depth.
    expect(
      replay(
        env,
        0,
        keepAll,
        [...Array(50).keys()].find((s) => s !== seed && cache.responses[startDebate(env, 0, s).current[1].source].id === 'q1a2'),
      ).tiers.exact,
    ).toBe(3);
    expect(() => replay(env, 0, keepOwnAndA2, seed)).toThrow(/signature a1:A, a2:B\] \(miss = signature; the tier-3 model would answer it/);
  });

  it('model tier answers unseen contexts from the fitted response model, with cached text of that answer', () => {
    const cache = hand();
    const env = makeEnvironment(cache, { rounds: 2, miss: 'model' });
    const r = replay(env, 0, keepOwnAndA2);
    expect(r.tiers).toEqual({ exact: 1, signature: 0, model: 2, record: 0, skipped: 0 }); // a2 kept only itself: exact
    const d = startDebate(env, 0);
    stepRound(env, d, keepOwnAndA2(d, 3));
    for (const i of [0, 2]) {
      const answer = d.current[i];
      expect(answer.cached).toBe(false);
      expect(cache.responses[answer.source].ans).toBe(answer.ans); // text states the drawn answer
      expect(['A', 'B']).toContain(cache.answerKeys[answer.ans]);
    }
    expect(env.tiers.model).toBe(4);
  });

  it('record tier calls the endpoint only on a miss, stores the reply, and serves it exactly afterwards', async () => {
    const cache = hand();
    const calls: string[] = [];
    const endpoint: Endpoint = {
      name: 'test',
      respond: async ({ question, agent, round, context, idempotencyKey }) => {
        calls.push(`${question.id}/${agent.id}/${round}/${context.map((c) => c.id).join('+')}`);
        expect(idempotencyKey).toMatch(/^[0-9a-f]{64}$/);
        return { text: 'The answer is (A).', answer: 'A', inTokens: 0, outTokens: 9 };
      },
    };
    const env = makeEnvironment(cache, { rounds: 2, miss: 'record' }, newRecording(endpoint));
    const before = cache.responses.length;
    await playDebates(env, [0], keepAll);
    expect(calls).toEqual([]);
    const [r] = await playDebates(env, [0], keepOwnAndA2);
    expect(calls).toEqual(['q1/a1/2/q1a1+q1a2', 'q1/a3/2/q1a3+q1a2']);
    expect(r.tiers).toEqual({ exact: 1, signature: 0, model: 0, record: 2, skipped: 0 });
    expect(cache.responses.length).toBe(before + 2);
    expect(env.recording!.recorded.map((x) => x.agent)).toEqual(['a1', 'a3']);
    expect((await playDebates(env, [0], keepOwnAndA2))[0].tiers).toEqual({ exact: 3, signature: 0, model: 0, record: 0, skipped: 0 });
    expect(replay(env, 0, keepOwnAndA2).tiers.exact).toBe(3); // the synchronous replay serves them too
    expect(calls.length).toBe(2);
    // Round 1 of a member with no cached answer is recorded too; the synchronous replay cannot ask.
    const records = handRecords().filter((x) => !(x.type === 'response' && (x.id === 'q2a3' || x.id.startsWith('q2f'))));
    const sparse = makeEnvironment(cacheFromRecords(records), { rounds: 2, miss: 'record' }, newRecording(endpoint));
    expect(() => replay(sparse, 1, keepAll)).toThrow(/a3' to question 'q2' at round 1 .*miss = record/);
    expect((await playDebates(sparse, [1], keepAll))[0].tiers.record).toBe(3);
    expect(calls[2]).toBe('q2/a3/1/'); // then round 2 of all three, each shown the recorded answer
    expect(calls.slice(3).every((c) => c.startsWith('q2/') && c.includes(sparse.recording!.recorded[0].id))).toBe(true);
    expect(calls.length).toBe(6);
  });

  it('record needs an endpoint, and a missing round-1 answer is a miss that names the setting and the tier that would answer it', () => {
    expect(() => makeEnvironment(hand(), { miss: 'record' })).toThrow(/needs a live endpoint/);
    const records = handRecords().filter((r) => !(r.type === 'response' && (r.id === 'q2a3' || r.id.startsWith('q2f'))));
    const env = makeEnvironment(cacheFromRecords(records), { rounds: 2, miss: 'model' });
    expect(() => replay(env, 1, keepAll)).toThrow(
      /agent 'a3' to question 'q2' at round 1 .*\(miss = model; only a live endpoint answers a missing round-1 response: miss = record\)/,
    );
  });

  it('same seed, same replay; the model tier follows the seed', () => {
    const cache = hand();
    const run = (seed: number) => JSON.stringify(replay(makeEnvironment(cache, { rounds: 2 }), 0, keepOwnAndA2, seed));
    expect(run(3)).toBe(run(3));
    const outcomes = new Set([...Array(30).keys()].map(run));
    expect(outcomes.size).toBeGreaterThan(1);
  });
});

describe('team and settings', () => {
  it('a team subset replays with only its members', () => {
    const cache = hand();
    const env = makeEnvironment(cache, { rounds: 2, agents: ['a2', 'a1'], miss: 'model' });
    const r = replay(env, 0, keepAll);
    expect(letters(cache, r.answers)[0]).toBe('BA');
    expect(cache.answerKeys[majority(r.answers[0], 'lowest-agent', Math.random)]).toBe('B'); // tie: a2 is the lowest-numbered member of this team
    expect(() => makeEnvironment(cache, { agents: ['zz'] })).toThrow(/unknown agent 'zz'/);
  });

  it('a recorded response with an extra sample and its own context is indexed', () => {
    const records = [...handRecords(), response('q1x', 'q1', 'a1', 2, 'B', 1, ['q1a2'], 'q1a1')];
    const env = makeEnvironment(cacheFromRecords(records), { rounds: 2, miss: 'error' });
    const d = startDebate(env, 0);
    stepRound(env, d, {
      keep: [
        [false, true, false],
        [true, false, false],
        [true, false, false],
      ],
    });
    expect(d.tiers.exact).toBe(3);
    expect(key(env.cache, 'B')).toBe(d.current[0].ans);
  });

  it('a question some team member never answered is left out of the split, and counted', () => {
    const records = handRecords()
      .filter((r) => !(r.type === 'response' && r.question === 'q2' && r.agent === 'a3'))
      .map((r) => (r.type === 'response' ? { ...r, context: r.context.filter((c) => c !== 'q2a3') } : r));
    const env = makeEnvironment(cacheFromRecords(records), { rounds: 2 });
    const { questions, skipped } = splitQuestions(env, 'test');
    expect([questions.map((q) => q.id), skipped]).toEqual([['q1'], 1]);
    expect(splitQuestions(makeEnvironment(env.cache, { rounds: 2, agents: ['a1', 'a2'] }), 'test').skipped).toBe(0);
  });

  it('a context with an external solution or a same-round response is never an exact hit; its signature counts the external source', () => {
    const records: CacheLine[] = [
      ...handRecords(),
      { type: 'external', id: 'q1ext', question: 'q1', text: 'A dropped agent says B.', answer: 'B', tokens: 6 },
      // a1 was shown a2 and a3 plus a dropped agent's B; a2 was shown a1's round-2 response.
      response('q1e1', 'q1', 'a1', 2, 'B', 1, ['q1a1', 'q1a2', 'q1a3', 'q1ext'], 'q1a1'),
      response('q1s2', 'q1', 'a2', 2, 'A', 1, ['q1a2', 'q1f1'], 'q1a2'),
    ];
    const cache = cacheFromRecords(records);
    expect(cache.responses[cache.responseIndex.get('q1e1')!].ext).toEqual([0]);
    const env = makeEnvironment(cache, { rounds: 2, miss: 'signature' });
    const d = startDebate(env, 0);
    stepRound(env, d, keepAll(d, 3));
    // Full-Debate context: the recorded full1 responses, never q1e1 (its context had one more).
    expect(d.current.map((r) => cache.responses[r.source].id)).toEqual(['q1f1', 'q1f2', 'q1f3']);
    expect(d.tiers.exact).toBe(3);
  });
});

describe('exact tier: the same shown responses after another previous response are another request', () => {
  it('a response answers after its own recorded previous response only; one whose record names none answers after any', async () => {
    const { exactHits } = await import('../../src/env/lookupIndex.ts');
    const records = handRecords();
    records.push(
      // a1 in round 3, shown only a2's round-2 reply, after two different round-2 answers of its own.
      response('q1t1', 'q1', 'a1', 3, 'B', 4, ['q1f2'], 'q1f1'),
      response('q1t2', 'q1', 'a1', 3, 'A', 4, ['q1f2'], 'q1o1'),
      // a3 in round 3 with no previous response on record.
      response('q1t3', 'q1', 'a3', 3, 'A', 2, ['q1f2']),
    );
    const cache = cacheFromRecords(records, 'hand3.jsonl');
    const env = makeEnvironment(cache, { rounds: 3, miss: 'error' });
    const idx = (id: string) => cache.responseIndex.get(id)!;
    const held = (id: string) => ({ cached: true, source: idx(id) });
    const ids = (hits: number[] | undefined) => (hits ?? []).map((i) => cache.responses[i].id);
    const [a1, a3] = [cache.agentIndex.get('a1')!, cache.agentIndex.get('a3')!];
    expect(ids(exactHits(env, 0, a1, 3, held('q1f1'), [held('q1f2')]))).toEqual(['q1t1']);
    expect(ids(exactHits(env, 0, a1, 3, held('q1o1'), [held('q1f2')]))).toEqual(['q1t2']);
    expect(ids(exactHits(env, 0, a1, 3, held('q1a1'), [held('q1f2')]))).toEqual([]); // another history: no exact answer
    expect(ids(exactHits(env, 0, a3, 3, held('q1f3'), [held('q1f2')]))).toEqual(['q1t3']);
    expect(ids(exactHits(env, 0, a3, 3, held('q1o3'), [held('q1f2')]))).toEqual(['q1t3']);
  });
});
