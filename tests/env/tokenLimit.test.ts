import { describe, expect, it } from 'vitest';
import type { CacheLine } from '../../src/cache/format.ts';
import { cacheFromRecords } from '../../src/cache/load.ts';
import { majority, replay, startDebate, stepRound } from '../../src/env/debate.ts';
import { makeEnvironment } from '../../src/env/environment.ts';
import { limitedSample, tokenLimits } from '../../src/env/tokenLimit.ts';
import { fitResponseModel } from '../../src/env/responseModelFit.ts';
import { consistency } from '../../eval/consistency.ts';
import { response, withInTokens } from '../fixtures/handCache.ts';

// One question (gold A). a2's first round-1 reply (100 tokens, B) is far longer than its others
// (10 tokens each): its q85 limit is 10 + 0.4 * 90 = 46 tokens, its q95 limit 10 + 0.8 * 90 = 82.
function records(): CacheLine[] {
  return withInTokens([
    { type: 'cache', format: 'cpp-debate-cache', version: 1, name: 'limits', source: 'recorded' },
    { type: 'agent', id: 'a1', model: 'm1', priceIn: 1, priceOut: 2 },
    { type: 'agent', id: 'a2', model: 'm2', priceIn: 1, priceOut: 1 },
    { type: 'agent', id: 'a3', model: 'm3', priceIn: 1, priceOut: 1 },
    { type: 'question', id: 'q', text: 'Which?', gold: 'A', benchmark: 't', answerType: 'mcq', split: 'test', promptTokens: 5 },
    response('a1.s0', 'q', 'a1', 1, 'A', 10),
    response('a2.s0', 'q', 'a2', 1, 'B', 100),
    ...[1, 2, 3, 4].map((s) => response(`a2.s${s}`, 'q', 'a2', 1, s === 1 ? null : 'B', 10, [], null, s)),
    response('a3.s0', 'q', 'a3', 1, 'B', 10),
    // A revision of a1 recorded with a2's unparsed sample shown: its signature is {(a1, A), (a2, unparsed)}.
    response('a1.r2', 'q', 'a1', 2, 'A', 10, ['a1.s0', 'a2.s1'], 'a1.s0'),
  ]);
}

describe('per-agent output-token limits (Table 7)', () => {
  it("are the q85 / q95 of each agent's recorded output lengths", () => {
    const cache = cacheFromRecords(records());
    expect([...tokenLimits(cache, 'q85')]).toEqual([10, 46, 10]);
    expect([...tokenLimits(cache, 'q95')]).toEqual([10, 82, 10]);
    expect([...tokenLimits(cache, 'none')]).toEqual([Infinity, Infinity, Infinity]);
  });

  it('cut a longer reply: it costs the limit and its answer is lost in the vote', () => {
    const cache = cacheFromRecords(records());
    // Round 1 of a debate (the answers and calls a replay starts from), and its majority vote.
    const vote = (d: { answers: number[][] }) => majority(d.answers[0], 'lowest-agent', () => 0);
    const free = startDebate(makeEnvironment(cache, { rounds: 2, miss: 'model' }), 0);
    expect(free.answers[0].map((a) => cache.answerKeys[a])).toEqual(['A', 'B', 'B']);
    expect(vote(free)).toBe(cache.answerIndex.get('B'));
    expect(free.cost).toBe(5 + 20 + (5 + 100) + (5 + 10));
    const cut = startDebate(makeEnvironment(cache, { rounds: 2, miss: 'model', tokenLimit: 'q85' }), 0);
    // a2's answer reads unparsed: A and B tie, the lowest-numbered agent's A wins.
    expect(cut.answers[0][1]).toBe(-1);
    expect(vote(cut)).toBe(cache.answerIndex.get('A'));
    expect(cut.cost).toBe(5 + 20 + (5 + 46) + (5 + 10));
  });

  it("a cut reply is shown at the limit's length, without its answer, and never as a recorded context", () => {
    const cache = cacheFromRecords(records());
    // a1 keeps its own reply and a2's cut one: not the recorded a2.s0 text, so no exact context; the
    // signature tier finds the revision recorded with a2's unparsed reply. a2's own revision is missing.
    const env = makeEnvironment(cache, { rounds: 2, tokenLimit: 'q85', miss: 'signature', agents: ['a1', 'a2'] });
    const d = startDebate(env, 0);
    expect(d.cost).toBe(5 + 20 + (5 + 46));
    expect(() =>
      stepRound(env, d, {
        keep: [
          [true, true],
          [true, false],
        ],
      }),
    ).toThrow(/cache miss.*'a2'/);
    expect(env.tiers).toMatchObject({ exact: 0, signature: 1 });
    // a1's call, priced before a2's lookup failed: in 5 + 10 + 46 (a2 as shown), out 10 at price 2.
    expect(d.cost).toBe(5 + 20 + (5 + 46) + (5 + 10 + 46) + 20);
    // Tier 3: a cut peer pulls towards no answer: a model that follows peers strongly still leaves a1
    // with its previous answer A.
    for (let seed = 0; seed < 20; seed++) {
      const m = makeEnvironment(cache, { rounds: 2, tokenLimit: 'q85', miss: 'model', agents: ['a1', 'a2'] });
      m.responseModel = fitResponseModel(cache, { responseModel: 'base', priorSmoothing: 0.5 });
      // Base form (previous answer, peers, prior): a shown B would win by its peer weight (20 - 13.9 > -2.9); cut, it is no outcome.
      m.responseModel.fits[0] = { weights: [0, 20, 10], slip: 0 };
      const r = replay(
        m,
        0,
        () => ({
          keep: [
            [false, true],
            [true, false],
          ],
        }),
        seed,
      );
      expect(cache.answerKeys[r.answers[1][0]]).toBe('A');
    }
  });

  it('consistency votes read their samples under the limit', () => {
    const cache = cacheFromRecords(records());
    const env = makeEnvironment(cache, { rounds: 2, tokenLimit: 'q85' });
    expect(limitedSample(env, cache.responseIndex.get('a2.s0')!)).toEqual({ tokens: 46, ans: -1 });
    const vote = consistency(env, cache.questions, 1, 1);
    expect(vote.invalid).toBe(1);
    expect(vote.cost).toBe(5 + 46);
  });
});
