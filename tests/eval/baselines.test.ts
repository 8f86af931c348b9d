import { beforeAll, describe, expect, it } from 'vitest';
import type { CacheLine } from '../../src/cache/format.ts';
import { cacheFromRecords } from '../../src/cache/load.ts';
import { makeEnvironment } from '../../src/env/environment.ts';
import type { MethodResult } from '../../src/env/tally.ts';
import { freezeGate, fullDebate, randomPruning, singleAgent } from '../../eval/baselines.ts';
import { consistency, consistencyBest, consistencyFuse } from '../../eval/consistency.ts';
import { paretoFront } from '../../eval/plots.ts';
import { rows } from '../../eval/comparison.ts';
import { response, withInTokens } from '../fixtures/handCache.ts';

// Two agents: x pays 1 per input and output token, y only 1 per output token. Question q (gold A,
// 10 prompt tokens): x's samples A B B A (10 tokens each: 20 a call), y's samples B A A (5 tokens:
// 5 a call). Round 2 with everything kept: both answer B (in = 10 + 10 + 5 = 25).
// Full-Debate on q: round 1 20 + 5, round 2 (25 + 10) + 5 = 65; majority goes A (tie, x first) -> B.
function records(): CacheLine[] {
  const recs: CacheLine[] = [
    { type: 'cache', format: 'cpp-debate-cache', version: 1, name: 'votes', source: 'recorded' },
    { type: 'agent', id: 'x', model: 'mx', priceIn: 1, priceOut: 1 },
    { type: 'agent', id: 'y', model: 'my', priceIn: 0, priceOut: 1 },
    { type: 'question', id: 'q', text: 'q?', gold: 'A', benchmark: 'b', answerType: 'mcq', split: 'test', promptTokens: 10 },
    { type: 'question', id: 'v', text: 'v?', gold: 'A', benchmark: 'b', answerType: 'mcq', split: 'validation', promptTokens: 10 },
    response('v.x', 'v', 'x', 1, 'A', 10),
    response('v.y', 'v', 'y', 1, 'B', 5),
  ];
  ['A', 'B', 'B', 'A'].forEach((a, s) => recs.push(response(`q.x${s}`, 'q', 'x', 1, a, 10, [], null, s)));
  ['B', 'A', 'A'].forEach((a, s) => recs.push(response(`q.y${s}`, 'q', 'y', 1, a, 5, [], null, s)));
  recs.push(response('q.x.r2', 'q', 'x', 2, 'B', 10, ['q.x0', 'q.y0'], 'q.x0'), response('q.y.r2', 'q', 'y', 2, 'B', 5, ['q.x0', 'q.y0'], 'q.y0'));
  // Question u: right in round 1, no parsed answer at all in round 2.
  recs.push({ type: 'question', id: 'u', text: 'u?', gold: 'A', benchmark: 'b', answerType: 'mcq', split: 'test', promptTokens: 10 });
  recs.push(response('u.x', 'u', 'x', 1, 'A', 10), response('u.y', 'u', 'y', 1, 'A', 5));
  recs.push(response('u.x.r2', 'u', 'x', 2, null, 10, ['u.x', 'u.y'], 'u.x'), response('u.y.r2', 'u', 'y', 2, null, 5, ['u.x', 'u.y'], 'u.y'));
  return withInTokens(recs);
}

describe('consistency votes and freeze gates, worked by hand', () => {
  const cache = cacheFromRecords(records());
  const env = makeEnvironment(cache, { rounds: 2, miss: 'error' });
  const [q, v] = cache.questions;
  let full: MethodResult;
  beforeAll(async () => {
    full = await fullDebate(env, [q]);
  });

  it('Full-Debate collapses on q at cost 65, and is invalid on u (onset round 2)', async () => {
    expect(full.cost).toBe(65);
    expect(full.ledger[0]).toEqual({ outcome: 'collapse', onset: 2 });
    const u = cache.questions[2];
    expect((await fullDebate(env, [u])).ledger[0]).toEqual({ outcome: 'invalid', onset: 2 });
    expect((await fullDebate(env, [u])).invalid).toBe(1);
  });

  it('a per-model vote uses every cached sample; ties go to the earlier sample', () => {
    const r = consistency(env, [q], 0);
    expect(r.correct).toBe(1); // A B B A: 2-2, A came first
    expect(r.cost).toBe(80);
    expect(consistency(env, [q], 1, 5).note).toMatch(/asked for 5 samples, the cache holds 3/);
  });

  it('Consistency-Best takes the model best on validation and adds samples while the cost stays within Full-Debate', async () => {
    const r = await consistencyBest(env, [q], [v], full.cost);
    expect(r.method).toBe('Consistency-Best (x x3)'); // 3 x 20 = 60 <= 65 < 80
    expect(r.cost).toBe(60);
    expect(r.correct).toBe(0); // A B B -> B
    expect(r.note).toBe('3 samples per question, cost 92.3% of Full-Debate');
  });

  it('Consistency-Fuse gives each model an equal share and says when samples run out', () => {
    const r = consistencyFuse(env, [q], full.cost);
    // shares of 32.5: x one sample (20), y all three (15) and no more cached
    expect(r.method).toBe('Consistency-Fuse (x x1, y x3)');
    expect(r.cost).toBe(35);
    expect(r.correct).toBe(1); // A | B A A -> A
    expect(r.note).toBe('4 samples per question, cost 53.8% of Full-Debate: the cache holds no more samples');
  });

  it('freeze gates: always answers round 1 (cost 25); on-change stops after a changed round-2 majority', async () => {
    const always = await freezeGate(env, [q], 'always');
    expect([always.correct, always.cost, always.keptEdges]).toEqual([1, 25, 0]);
    const onChange = await freezeGate(env, [q], 'on-change');
    expect([onChange.correct, onChange.cost]).toEqual([1, 65]);
    expect(onChange.ledger[0].outcome).toBe('preserved');
  });

  it('every method keeps per question, in input order, whether it ended right and what it cost', async () => {
    const u = cache.questions[2];
    expect((await fullDebate(env, [q, u])).outcomes).toEqual([
      { q: q.index, correct: false, cost: 65 },
      { q: u.index, correct: false, cost: (await fullDebate(env, [u])).cost },
    ]);
    // u holds one sample of x, so the vote takes one sample on every question: x's sample 0 on q says A.
    expect(consistency(env, [u, q], 0).outcomes).toEqual([
      { q: u.index, correct: true, cost: 20 },
      { q: q.index, correct: true, cost: 20 },
    ]);
    expect((await freezeGate(env, [q], 'always')).outcomes).toEqual([{ q: q.index, correct: true, cost: 25 }]);
    expect((await singleAgent(env, [q], 1)).outcomes).toEqual([{ q: q.index, correct: false, cost: 5 }]); // y's sample 0 says B
  });

  it('random pruning is seeded: same seed, same edges; its keep rate is what was asked for', async () => {
    const big = cacheFromRecords(records());
    const e = makeEnvironment(big, { rounds: 2, miss: 'model' });
    const a = await randomPruning(e, [q], 0.5, 7);
    expect((await randomPruning(e, [q], 0.5, 7)).keptEdges).toBe(a.keptEdges);
    expect((await randomPruning(e, [q], 1, 1)).keptEdges).toBe(4);
    expect((await randomPruning(e, [q], 0, 1)).keptEdges).toBe(0);
  });

  it('report rows aggregate runs as mean ± sd with n, and mark the Pareto frontier', () => {
    const rs = rows(
      [
        { method: 'Full-Debate', runs: [full] },
        { method: 'Vote', runs: [consistency(env, [q], 0), consistencyFuse(env, [q], full.cost)] },
      ],
      full,
    );
    expect(rs[1]).toMatchObject({ n: 2, accuracy: 100, accuracySd: 0 });
    expect(rs[1].costPct).toBeCloseTo((100 * (80 + 35)) / 2 / 65, 6);
    expect(rs[1].collapsesPrevented).toBe(1);
    expect(paretoFront(rs)).toEqual(new Set(['Vote']));
  });
});

describe('policy groups of eval --policy', () => {
  it('plain paths are the runs of one method; label=a,b entries are methods of their own', async () => {
    const { policyGroups } = await import('../../jobs/eval.ts');
    expect(policyGroups(['s0.json', 's1.json', 'k-1=a.json,b.json'])).toEqual([
      { label: 'CPP FuseGLU (2 runs)', paths: ['s0.json', 's1.json'] },
      { label: 'k-1', paths: ['a.json', 'b.json'] },
    ]);
    expect(policyGroups([])).toEqual([]);
  });
});
