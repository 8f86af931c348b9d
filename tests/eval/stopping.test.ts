// The field's rules over who revises and when a debate stops (eval/stopping.ts), on the hand-built
// cache: q1 starts A, B, B (two of three agree), q2 starts C, D, E (no two agree).
import { describe, expect, it } from 'vitest';
import { freezeGate, fullDebate, runRule } from '../../eval/baselines.ts';
import { consensusStop, decisionRates, randomRevise, randomStop, rateForCost, sparseDebate, stoppingRules } from '../../eval/stopping.ts';
import { cacheFromRecords } from '../../src/cache/load.ts';
import { makeEnvironment } from '../../src/env/environment.ts';
import { handRecords } from '../fixtures/handCache.ts';

const env = () => makeEnvironment(cacheFromRecords(handRecords(), 'hand.jsonl'), { rounds: 2, miss: 'error' });

describe('stopping rules', () => {
  it('consensus stop at 2/3 stops q1 after round 1 and debates q2; at unanimity both debate', async () => {
    const e = env();
    const qs = e.cache.questions;
    const full = await fullDebate(e, qs);
    const [twoThirds, unanimity, sparse] = await stoppingRules(e, qs);
    const freeze = await freezeGate(e, qs, 'always');
    expect(twoThirds.outcomes.map((o) => o.cost)).toEqual([freeze.outcomes[0].cost, full.outcomes[1].cost]);
    expect([twoThirds.stopped, twoThirds.tiers.skipped, twoThirds.tiers.exact]).toEqual([1, 3, 3]);
    expect(unanimity.outcomes).toEqual(full.outcomes);
    expect(unanimity.stopped).toBe(0);
    // q1: Full-Debate collapses to B; stopping keeps the round-1 majority, B as well.
    expect(twoThirds.correct).toBe(freeze.correct);
    // Sparse debate: on q1 only a1 (A, against the B majority) revises; on q2 no answer has a majority: everyone revises.
    expect([sparse.tiers.skipped, sparse.calls]).toEqual([2, 6 + 1 + 3]);
    const r = (await runRule(e, [qs[0]], 'sparse', sparseDebate)).ledger;
    expect(r).toHaveLength(1);
    expect((await runRule(e, [qs[0]], '1/3', consensusStop(1 / 3))).stopped).toBe(1);
  });

  it('random revise and random stop span No-revision to Full-Debate; a rate is found for a target cost', async () => {
    const e = env();
    const qs = e.cache.questions;
    const full = await fullDebate(e, qs);
    const freeze = await freezeGate(e, qs, 'always');
    expect((await randomRevise(e, qs, 0, 1)).cost).toBe(freeze.cost);
    expect((await randomRevise(e, qs, 1, 1)).cost).toBe(full.cost);
    expect((await randomStop(e, qs, 1, 1)).cost).toBe(freeze.cost);
    expect((await randomStop(e, qs, 0, 1)).stopped).toBe(0);
    const half = await randomRevise(e, qs, 0.5, 3);
    const rates = decisionRates(half, 2);
    expect(rates.revise).toBeCloseTo((6 - half.tiers.skipped) / 6, 9);
    expect(decisionRates(await randomStop(e, qs, 1, 1), 2).stop).toBe(1);
    // Bisection on a cost that grows with the rate.
    expect(await rateForCost(async (r) => 0.2 + 0.8 * r, 0.6, 12)).toBeCloseTo(0.5, 3);
  });
});
