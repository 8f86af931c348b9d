// Rounds a replay may ask for: at least 2 (a debate needs a revision round), at most the deepest
// round the team's recorded debates reach (every member's, not the whole cache's) unless a deeper
// tier that can answer is explicitly allowed.
import { describe, expect, it } from 'vitest';
import type { CacheLine } from '../../src/cache/format.ts';
import { cacheFromRecords } from '../../src/cache/load.ts';
import { keepAll, playDebates, replay } from '../../src/env/debate.ts';
import type { Endpoint } from '../../src/env/endpoint.ts';
import { deepestRounds, makeEnvironment } from '../../src/env/environment.ts';
import { newRecording } from '../../src/env/record.ts';
import { handRecords } from '../fixtures/handCache.ts';

// The hand-built cache (2 rounds on q1 and q2) and a third question answered in round 1 only.
const records = (): CacheLine[] => [
  ...handRecords(),
  { type: 'question', id: 'q3', text: 'Third question?', gold: 'A', benchmark: 'hand', answerType: 'mcq', split: 'test', promptTokens: 10 },
  ...['a1', 'a2', 'a3'].map(
    (a): CacheLine => ({
      type: 'response',
      id: `q3${a}`,
      question: 'q3',
      agent: a,
      round: 1,
      sample: 0,
      context: [],
      prev: null,
      text: 'The answer is A.',
      answer: 'A',
      inTokens: 10,
      outTokens: 4,
    }),
  ),
];
const cache = cacheFromRecords(records(), 'three.jsonl');

describe('rounds of a replay', () => {
  it('below 2 is an error: a debate needs a revision round', () => {
    for (const rounds of [1, 0])
      expect(() => makeEnvironment(cache, { rounds })).toThrow(
        'setting rounds: a debate needs at least 2 rounds: round 1 answers independently, ' +
          'round 2 revises after reading the others (below 2 there is no edge to keep or prune)',
      );
  });

  it('beyond the deepest recorded round is an error that says, per question, what the cache holds', () => {
    expect(deepestRounds(cache, [0, 1, 2])).toEqual([2, 2, 1]);
    expect(() => makeEnvironment(cache, { rounds: 4 })).toThrow(
      'setting rounds: 4, but cache three.jsonl records debates of team a1,a2,a3 of at most 2 rounds ' +
        '(deepest recorded round per question the team can debate: round 2: 2 questions, round 1: 1 question); ' +
        'every answer of round 3 to 4 would be drawn by the tier-3 response model: allow that with ' +
        'allowUnrecordedRounds (--allow-unrecorded-rounds), or record those rounds with a live endpoint (miss = record)',
    );
    expect(() => makeEnvironment(cache, { rounds: 3, miss: 'signature' })).toThrow(
      'no tier of miss = signature answers round 3: record it with a live endpoint (miss = record), ' +
        'or let the tier-3 model draw it (miss = model with --allow-unrecorded-rounds)',
    );
    expect(() => makeEnvironment(cache, { rounds: 3, miss: 'error', allowUnrecordedRounds: true })).toThrow(
      /setting allowUnrecordedRounds applies to miss = model only/,
    );
  });

  it("reads the team in use: its recorded debates bound its rounds, not another team's deeper ones", () => {
    // q4: a 2-agent debate of a1 and a2 that went on to round 3; a3 never answered it (as in the
    // DyLAN MATH records, where the 2-agent debates reach round 3 and the 3-agent ones stop at 2).
    const response = (a: string, round: number): CacheLine => ({
      type: 'response',
      id: `q4${a}r${round}`,
      question: 'q4',
      agent: a,
      round,
      sample: 0,
      context: round > 1 ? [`q4${a}r${round - 1}`] : [],
      prev: round > 1 ? `q4${a}r${round - 1}` : null,
      text: 'The answer is A.',
      answer: 'A',
      inTokens: 10,
      outTokens: 4,
    });
    const deeper = cacheFromRecords(
      [
        ...records(),
        { type: 'question', id: 'q4', text: 'Fourth question?', gold: 'A', benchmark: 'hand', answerType: 'mcq', split: 'test', promptTokens: 10 },
        ...[1, 2, 3].flatMap((t) => [response('a1', t), response('a2', t)]),
      ],
      'four.jsonl',
    );
    expect(deepestRounds(deeper, [0, 1])).toEqual([2, 2, 1, 3]);
    expect(deepestRounds(deeper, [0, 1, 2])).toEqual([2, 2, 1, 0]);
    expect(makeEnvironment(deeper, { rounds: 3, agents: ['a1', 'a2'] }).rounds).toBe(3);
    // Was accepted: the whole cache records round 3 (a1 and a2 on q4), but no debate of the three did.
    expect(() => makeEnvironment(deeper, { rounds: 3, agents: ['a1', 'a2', 'a3'] })).toThrow(
      'setting rounds: 3, but cache four.jsonl records debates of team a1,a2,a3 of at most 2 rounds ' +
        '(deepest recorded round per question the team can debate: round 2: 2 questions, round 1: 1 question); ',
    );
    expect(() => makeEnvironment(deeper, { rounds: 3, agents: ['a3', 'a1'], miss: 'signature' })).toThrow('records debates of team a3,a1 of at most 2 rounds');
  });

  it('explicitly allowed, the tier-3 model answers every unrecorded round, and the tier shares show it', () => {
    const env = makeEnvironment(cache, { rounds: 3, allowUnrecordedRounds: true });
    const r = replay(env, 0, keepAll);
    expect(r.answers.length).toBe(3);
    expect(r.tiers).toEqual({ exact: 3, signature: 0, model: 3, record: 0, skipped: 0 });
  });

  it('with a live endpoint (miss = record) the endpoint records every round the cache lacks', async () => {
    const asked: number[] = [];
    const endpoint: Endpoint = {
      name: 'test',
      respond: async ({ round }) => (asked.push(round), { text: 'The answer is (A).', answer: 'A', inTokens: 30, outTokens: 4 }),
    };
    const env = makeEnvironment(cacheFromRecords(records()), { rounds: 3, miss: 'record' }, newRecording(endpoint));
    const [r] = await playDebates(env, [0], keepAll);
    expect([r.answers.length, r.tiers, asked]).toEqual([3, { exact: 3, signature: 0, model: 0, record: 3, skipped: 0 }, [3, 3, 3]]);
    expect(() => makeEnvironment(env.cache, { rounds: 3, miss: 'record', allowUnrecordedRounds: true }, newRecording(endpoint))).toThrow(
      /applies to miss = model only .* miss = record records every round the cache lacks through its live endpoint/,
    );
  });
});
