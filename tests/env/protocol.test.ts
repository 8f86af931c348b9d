// The recorded protocol (debate setting `protocol: recorded`, src/env/protocol.ts): a replay of an
// imported log follows the log's own turns, so that Full-Debate reproduces the recorded debates.
import { describe, expect, it } from 'vitest';
import { importReport } from '../../eval/importReport.ts';
import { importDu } from '../../src/cache/importDu.ts';
import { cacheFromRecords } from '../../src/cache/load.ts';
import type { Cache } from '../../src/cache/types.ts';
import { keepAll, keepOwn, majority, replay, type DebateResponse, type DecisionRule } from '../../src/env/debate.ts';
import type { Endpoint } from '../../src/env/endpoint.ts';
import { makeEnvironment, splitQuestions } from '../../src/env/environment.ts';
import { newRecording } from '../../src/env/record.ts';
import { tally } from '../../src/env/tally.ts';
import { protocolInputs, unrebuilt } from '../../src/env/protocol.ts';
import { handRecords } from '../fixtures/handCache.ts';
import { dylanMathFiles } from '../fixtures/dylanMath.ts';
import { mathImport } from '../fixtures/duLayout.ts';

/** The log's own answers of `team` on question q: rows[t-1][i], a member without a turn keeping its last answer. */
function recordedRows(cache: Cache, team: number[], q: number, rounds: number): number[][] {
  const byRound = (a: number, t: number) => cache.responses.find((r) => r.q === q && r.a === a && r.round === t && r.sample === 0);
  const rows: number[][] = [];
  for (let t = 1; t <= rounds; t++) rows.push(team.map((a, i) => byRound(a, t)?.ans ?? rows[t - 2][i]));
  return rows;
}

describe('the recorded protocol on the DyLAN MATH fixtures (700 debates)', () => {
  const cache = cacheFromRecords(importDu(dylanMathFiles(), mathImport).records, 'dylan-math');
  const A = cache.agents.length;

  it('the import records every response its turn, and leaves no revision that a replay of the log cannot rebuild', () => {
    expect(cache.responses.every((r) => r.turn !== undefined)).toBe(true);
    expect([...unrebuilt(cache, 'recorded').values()]).toEqual([]);
    // Synchronous rounds rebuild almost none of them: the log's agents read their own round's answers, and dropped agents' texts.
    const sync = [...unrebuilt(cache, 'synchronous').values()];
    expect(sync.length).toBeGreaterThan(1500);
    expect(sync).toContain("reads an answer of its own round (the log's agents answered one after another)");
    expect(sync).toContain('shows a text of no recorded response (external entry)');
  });

  it('the import report counts, per protocol, the revisions a Full-Debate replay reads exactly and why the others miss', () => {
    const report = importReport(cache);
    expect(report).toContain('| recorded    | 100.0% (1665/1665) | -');
    expect(report).toMatch(
      /\| synchronous \| 6\.7% \(111\/1665\) +\| 925 shows a text of no recorded response \(external entry\); 478 reads an answer of its own round/,
    );
  });

  for (const [team, rounds] of [
    [['a1', 'a2', 'a3'], 2],
    [['a1', 'a2', 'a3', 'a4'], 2],
    [['a1', 'a2'], 3],
  ] as const)
    it(`Full-Debate of team ${team.join(',')} over ${rounds} rounds replays every recorded revision from the exact tier, with the log's answers, accuracy and majority`, () => {
      const env = makeEnvironment(cache, { agents: [...team], rounds, protocol: 'recorded' });
      const qs = cache.questions.filter((q) => env.team.every((a) => env.round1.has(q.index * A + a)));
      let revisions = 0;
      let correct = 0;
      let recordedCorrect = 0;
      const results = [];
      for (const q of qs) {
        const r = replay(env, q.index, keepAll);
        results.push(r);
        const rows = recordedRows(cache, env.team, q.index, rounds);
        expect(r.answers, q.id).toEqual(rows);
        const final = majority(rows[rows.length - 1], 'lowest-agent', () => 0);
        expect(r.final, q.id).toBe(final);
        correct += r.finalCorrect ? 1 : 0;
        recordedCorrect += final === q.goldKey ? 1 : 0;
        revisions += cache.responses.filter((x) => x.q === q.index && x.round > 1 && x.round <= rounds && env.team.includes(x.a)).length;
      }
      expect(qs.length).toBeGreaterThan(100);
      expect(env.tiers).toEqual({ exact: revisions, signature: 0, model: 0, record: 0, skipped: 0 });
      expect(correct).toBe(recordedCorrect);
      // Every edge the log showed was kept: 100% of the edges (not of the n x n pairs of synchronous rounds).
      const tallied = tally(env, qs, 'Full-Debate', results);
      expect(tallied.keptEdges).toBe(tallied.maxEdges);
      expect(tallied.maxEdges).toBeLessThan(qs.length * (rounds - 1) * team.length ** 2);
      // Synchronous rounds do not reproduce it: most revisions come from the tier-3 model.
      const sync = makeEnvironment(cache, { agents: [...team], rounds });
      for (const q of qs) replay(sync, q.index, keepAll);
      expect(sync.tiers.model).toBeGreaterThan(sync.tiers.exact);
    });

  it('a pruned edge removes that answer from the recorded context; external texts stay shown; the lookup goes on to the signature and model tiers', () => {
    const env = makeEnvironment(cache, { agents: ['a1', 'a2', 'a3'], rounds: 2, protocol: 'recorded' });
    // A (3 agents, 2 rounds) debate: a4 of the log stopped after round 1 (consensus), its answer an external text.
    const q = cache.questions.find(
      (x) => env.round1.has(x.index * A + 0) && cache.responses.some((r) => r.q === x.index && r.round === 2 && r.a === 2 && r.ext.length === 1),
    )!;
    const seen: { agent: number; kept: DebateResponse[] }[] = [];
    env.onExactMiss = (_d, agent, _own, kept) => seen.push({ agent, kept });
    // a3 (candidates: own, a1, a2) prunes a1's answer; the others keep everything.
    const rule: DecisionRule = (_d, n) => ({ keep: Array.from({ length: n }, (_, i) => Array.from({ length: n }, (_, j) => !(i === 2 && j === 1))) });
    const r = replay(env, q.index, rule);
    expect(seen.map((s) => s.agent)).toEqual([2]);
    const recorded = cache.responses.find((x) => x.q === q.index && x.a === 2 && x.round === 2)!;
    expect(seen[0].kept.map((k) => cache.responses[k.source].id)).toEqual(
      recorded.ctx.filter((c) => cache.responses[c].a !== 0).map((c) => cache.responses[c].id),
    );
    expect(r.tiers.exact).toBe(2);
    expect(r.tiers.signature + r.tiers.model).toBe(1);
    // Two edges of a1 and a2 each, one pruned of a3's three (its own answer, a1's, a2's).
    expect(r.keptEdges).toBe(3 + 3 + 2);
  });

  it('No-communication under it replays every debate: external texts whose answer no response states are not shown to the tier-3 model', () => {
    const env = makeEnvironment(cache, { agents: ['a1', 'a2', 'a3'], rounds: 2, protocol: 'recorded' });
    // What the tier-3 model is shown of the external texts: those whose answer some recorded response to the question states.
    const stated = (q: number, ans: number) => cache.responses.some((r) => r.q === q && r.ans === ans);
    let hidden = 0;
    let shown = 0;
    const wrong: string[] = [];
    env.onModelAnswer = (d, _own, _kept, context, ext) => {
      const expected = ext.map((e) => cache.externals[e].ans).filter((ans) => stated(d.q, ans));
      const seen = context.peers.filter((p) => p.agent === A).map((p) => p.ans);
      if (JSON.stringify(seen) !== JSON.stringify(expected)) wrong.push(`${cache.questions[d.q].id}: shown ${seen}, expected ${expected}`);
      shown += expected.length;
      hidden += ext.length - expected.length;
    };
    let debates = 0;
    for (const q of cache.questions)
      if (env.team.every((a) => env.round1.has(q.index * A + a))) {
        replay(env, q.index, keepOwn);
        debates++;
      }
    expect(debates).toBeGreaterThan(100);
    expect(env.tiers.model).toBeGreaterThan(0);
    expect(wrong).toEqual([]);
    // Both kinds occur: texts the model is shown, and texts it is not.
    expect(shown).toBeGreaterThan(0);
    expect(hidden).toBeGreaterThan(0);
  });

  it("the policy's protocol inputs: each member's speaking position, and which candidates the log shows from the current round", () => {
    const env = makeEnvironment(cache, { agents: ['a1', 'a2'], rounds: 3, protocol: 'recorded' });
    // prealgebra 88: in round 2 a2 spoke first (a1 read its round-2 answer), in round 3 a1 did (a2 read its round-3 answer).
    const q = cache.questionIndex.get('prealgebra_7_631_4_3/88')!;
    expect(protocolInputs(cache, env.turns, env.team, q, 2)).toEqual({
      turn: [1, 0],
      current: [
        [false, true],
        [false, false],
      ],
    });
    expect(protocolInputs(cache, env.turns, env.team, q, 3)).toEqual({
      turn: [0, 1],
      current: [
        [false, false],
        [false, true],
      ],
    });
    // Synchronous rounds: team positions, nothing from the current round.
    expect(protocolInputs(cache, undefined, env.team, q, 2)).toEqual({
      turn: [0, 1],
      current: [
        [false, false],
        [false, false],
      ],
    });
  });

  it('refuses what the recording cannot honour: rounds past the log (a live endpoint too), an unrecorded round drawn by the model', () => {
    expect(() => makeEnvironment(cache, { agents: ['a1', 'a2', 'a3'], rounds: 3, protocol: 'recorded' })).toThrow(
      'setting rounds: 3, but cache dylan-math records debates of team a1,a2,a3 of at most 2 rounds',
    );
    // The record tier answers what the log's turns ask, and there is no turn past the log, nor for a member the log lacks.
    const endpoint: Endpoint = { name: 'unused', respond: () => Promise.reject(new Error('not asked')) };
    expect(() => makeEnvironment(cache, { agents: ['a1', 'a2', 'a3'], rounds: 3, protocol: 'recorded', miss: 'record' }, newRecording(endpoint))).toThrow(
      /setting rounds: 3, but cache dylan-math records debates of team a1,a2,a3 of at most 2 rounds .*the recorded protocol has no turns past the rounds the log recorded/,
    );
    const live = makeEnvironment(cache, { agents: ['a1', 'a2', 'a3'], rounds: 2, protocol: 'recorded', miss: 'record' }, newRecording(endpoint));
    const { questions, skipped } = splitQuestions(live, 'test');
    expect(questions.every((q) => live.team.every((a) => live.round1.has(q.index * A + a)))).toBe(true);
    expect([questions.length, skipped]).toEqual([106, 34]);
    expect(() => makeEnvironment(cache, { agents: ['a1', 'a2', 'a3'], rounds: 3, protocol: 'recorded', allowUnrecordedRounds: true })).toThrow(
      'setting allowUnrecordedRounds: the recorded protocol has no turns past the rounds the log recorded',
    );
  });
});

describe('a cache that does not record its protocol', () => {
  it('refuses the recorded protocol, naming a response without its turn', () => {
    const cache = cacheFromRecords(handRecords(), 'hand.jsonl');
    expect(() => makeEnvironment(cache, { protocol: 'recorded', rounds: 2 })).toThrow(
      "setting protocol: recorded, but cache hand.jsonl does not record its debates' protocol (response 'q1a1' has no `turn`",
    );
    expect(makeEnvironment(cache, { rounds: 2 }).turns).toBeUndefined();
  });
});
