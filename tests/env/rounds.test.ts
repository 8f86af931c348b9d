// Rounds a replay may ask for: at least 2 (a debate needs a revision round), at most the deepest
// round the cache recorded unless a deeper tier that can answer is explicitly allowed.
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
    expect(deepestRounds(cache)).toEqual([2, 2, 1]);
    expect(() => makeEnvironment(cache, { rounds: 4 })).toThrow(
      'setting rounds: 4, but cache three.jsonl records debates of at most 2 rounds ' +
        '(deepest recorded round per question: round 2: 2 questions, round 1: 1 question); ' +
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

  it('explicitly allowed, the tier-3 model answers every unrecorded round, and the tier shares show it', () => {
    const env = makeEnvironment(cache, { rounds: 3, allowUnrecordedRounds: true });
    const r = replay(env, 0, keepAll);
    expect(r.answers.length).toBe(3);
    expect(r.tiers).toEqual({ exact: 3, signature: 0, model: 3, record: 0 });
  });

  it('with a live endpoint (miss = record) the endpoint records every round the cache lacks', async () => {
    const asked: number[] = [];
    const endpoint: Endpoint = {
      name: 'test',
      respond: async ({ round }) => (asked.push(round), { text: 'The answer is (A).', answer: 'A', inTokens: 30, outTokens: 4 }),
    };
    const env = makeEnvironment(cacheFromRecords(records()), { rounds: 3, miss: 'record' }, newRecording(endpoint));
    const [r] = await playDebates(env, [0], keepAll);
    expect([r.answers.length, r.tiers, asked]).toEqual([3, { exact: 3, signature: 0, model: 0, record: 3 }, [3, 3, 3]]);
    expect(() => makeEnvironment(env.cache, { rounds: 3, miss: 'record', allowUnrecordedRounds: true }, newRecording(endpoint))).toThrow(
      /applies to miss = model only .* miss = record records every round the cache lacks through its live endpoint/,
    );
  });
});
