import { describe, expect, it } from 'vitest';
import { debateStatistics, debateStatsTables } from '../../src/cache/debateStats.ts';
import type { CacheLine } from '../../src/cache/format.ts';
import { cacheFromRecords } from '../../src/cache/load.ts';
import { cacheStats } from '../../src/cache/stats.ts';
import { handRecords, response } from '../fixtures/handCache.ts';

// Two agents of one model (x1, x2) and one of another (y); several round-1 samples; one revision
// that was shown an external solution and not its own previous response, one whose previous answer
// is unparsed.
function sampleRecords(): CacheLine[] {
  return [
    { type: 'cache', format: 'cpp-debate-cache', version: 1, name: 'samples', source: 'recorded' },
    { type: 'agent', id: 'x1', model: 'm', priceIn: 1, priceOut: 1 },
    { type: 'agent', id: 'x2', model: 'm', priceIn: 1, priceOut: 1 },
    { type: 'agent', id: 'y', model: 'n', priceIn: 1, priceOut: 1 },
    { type: 'question', id: 'q1', text: 'One?', gold: 'A', benchmark: 'hand', answerType: 'mcq', split: 'test', promptTokens: 1 },
    { type: 'question', id: 'q2', text: 'Two?', gold: 'A', benchmark: 'hand', answerType: 'mcq', split: 'test', promptTokens: 1 },
    response('q1x1s0', 'q1', 'x1', 1, 'A', 1, [], null, 0),
    response('q1x1s1', 'q1', 'x1', 1, 'A', 1, [], null, 1),
    response('q1x1s2', 'q1', 'x1', 1, 'B', 1, [], null, 2),
    response('q1x2', 'q1', 'x2', 1, 'C', 1),
    response('q1y0', 'q1', 'y', 1, 'A', 1, [], null, 0),
    response('q1y1', 'q1', 'y', 1, 'B', 1, [], null, 1),
    response('q2x1s0', 'q2', 'x1', 1, 'B', 1, [], null, 0),
    response('q2x1s1', 'q2', 'x1', 1, 'B', 1, [], null, 1),
    response('q2x2', 'q2', 'x2', 1, 'B', 1),
    response('q2y0', 'q2', 'y', 1, null, 1, [], null, 0),
    response('q2y1', 'q2', 'y', 1, 'A', 1, [], null, 1),
    { type: 'external', id: 'q1ext', question: 'q1', text: 'The answer is A.', answer: 'A', tokens: 1 },
    response('q1x2r2', 'q1', 'x2', 2, 'A', 1, ['q1y0', 'q1ext'], 'q1x2'),
    response('q2y0r2', 'q2', 'y', 2, 'A', 1, ['q2x1s0'], 'q2y0'),
  ];
}

describe('debate statistics', () => {
  it('round-1 accuracy per agent counts every sample', () => {
    const s = debateStatistics(cacheFromRecords(sampleRecords()));
    expect(s.round1).toEqual([
      { agent: 'x1', model: 'm', right: { hits: 2, n: 5 } },
      { agent: 'x2', model: 'm', right: { hits: 0, n: 2 } },
      { agent: 'y', model: 'n', right: { hits: 2, n: 4 } },
    ]);
  });

  it('agreement of sample pairs: same agent, and other agents of the same model', () => {
    const [same, other] = debateStatistics(cacheFromRecords(sampleRecords())).agreement;
    // Same agent: q1 x1 (AA, AB, AB), q1 y (AB), q2 x1 (BB), q2 y (unparsed, A).
    // p = (2*1 + 4) / 12 = 0.5; correlation = (1/6 - 0.25) / 0.25 = -1/3.
    expect(same).toMatchObject({ kind: 'same agent', pairs: 6, agree: 2, bothRight: 1, oneRight: 4, bothWrong: 1, sameWrong: { hits: 1, n: 1 } });
    expect(same.correctnessCorrelation).toBeCloseTo(-1 / 3, 10);
    // x1 with x2 (model m): q1 (AC, AC, BC), q2 (BB, BB); y names another model and pairs with no one.
    // p = 2 / 10 = 0.2; correlation = (0 - 0.04) / 0.16 = -0.25.
    expect(other).toMatchObject({ kind: 'same model, other agent', pairs: 5, agree: 2, bothRight: 0, oneRight: 2, bothWrong: 3, sameWrong: { hits: 2, n: 3 } });
    expect(other.correctnessCorrelation).toBeCloseTo(-0.25, 10);
  });

  it('revisions: an external solution is a peer, the own response is not; an unparsed previous answer is left out', () => {
    const { revisions } = debateStatistics(cacheFromRecords(sampleRecords()));
    expect(revisions.counted).toBe(1);
    expect(revisions.skipped).toBe(1);
    // x2 was wrong (C), shown y's A and an external A: no peer agrees with C, both state the gold.
    const row = { ownShown: false, peers: 2, fromWrong: { hits: 1, n: 1 }, wrongKept: 0, fromRight: { hits: 0, n: 0 } };
    expect(revisions.byAgreeing).toEqual([{ ...row, count: 0 }]);
    expect(revisions.byGold).toEqual([{ ...row, count: 2 }]);
  });

  it('revision rates on the hand-built debates, worked out by hand', () => {
    const { revisions } = debateStatistics(cacheFromRecords(handRecords()));
    expect(revisions).toMatchObject({ counted: 9, skipped: 0 });
    const rate = (hits: number, n: number) => ({ hits, n });
    // Own only (0 of 0): a1 right stays right; a2 wrong -> right; a3 wrong keeps B.
    // Everything kept on q1 (gold A, round 1 A B B): a1 right, 0 of 2 agree -> B (right -> wrong);
    // a2 wrong B, 1 of 2 agree (a3) -> keeps B; a3 wrong B, 1 of 2 agree (a2) -> A (wrong -> right).
    // Everything kept on q2 (gold C, round 1 C D E): a1 right, 0 of 2 agree -> keeps C; a2 wrong D,
    // 0 of 2 agree -> keeps D; a3 wrong E, 0 of 2 agree -> B.
    expect(revisions.byAgreeing).toEqual([
      { ownShown: true, peers: 0, count: 0, fromWrong: rate(1, 2), wrongKept: 1, fromRight: rate(0, 1) },
      { ownShown: true, peers: 2, count: 0, fromWrong: rate(0, 2), wrongKept: 1, fromRight: rate(1, 2) },
      { ownShown: true, peers: 2, count: 1, fromWrong: rate(1, 2), wrongKept: 1, fromRight: rate(0, 0) },
    ]);
    // By peers with the gold answer: a1's two revisions see none; the four wrong ones see one each.
    expect(revisions.byGold).toEqual([
      { ownShown: true, peers: 0, count: 0, fromWrong: rate(1, 2), wrongKept: 1, fromRight: rate(0, 1) },
      { ownShown: true, peers: 2, count: 0, fromWrong: rate(0, 0), wrongKept: 0, fromRight: rate(1, 2) },
      { ownShown: true, peers: 2, count: 1, fromWrong: rate(1, 4), wrongKept: 2, fromRight: rate(0, 0) },
    ]);
  });

  it('cache stats prints the tables', () => {
    const cache = cacheFromRecords(sampleRecords());
    const tables = debateStatsTables(cache);
    expect(tables).toMatch(/\| same model, other agent \| +5 \| +40\.0% \| +0\.0% \| +40\.0% \| +60\.0% \| 66\.7% \(2\/3\) +\| +-0\.25 \|/);
    expect(tables).toMatch(/\| no +\| 0 of 2 +\| 100\.0% \(1\/1\) +\| +0\.0% \| +- \|/);
    expect(cacheStats(cache)).toContain(tables);
  });
});
