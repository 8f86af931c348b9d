// The fidelity table's rows from hand-made runs: each figure of a row is the one its runs give
// (the mean of the runs' accuracy and its sample sd over the runs, under each tier apart).
import { describe, expect, it } from 'vitest';
import type { MethodGroup } from '../../eval/comparison.ts';
import { fidelityRows } from '../../eval/fidelity.ts';
import { emptyPricing } from '../../src/env/cost.ts';
import type { MethodResult } from '../../src/env/tally.ts';
import { emptyTiers } from '../../src/env/tiers.ts';

/** A run on questions 0..n-1, right where `right` says, each question costing `cost`. */
const run = (method: string, right: boolean[], cost = 10): MethodResult => ({
  method,
  questions: right.length,
  correct: right.filter(Boolean).length,
  invalid: 0,
  cost: cost * right.length,
  priced: emptyPricing(),
  calls: right.length,
  stopped: 0,
  keptEdges: 0,
  maxEdges: 0,
  tiers: { ...emptyTiers(), exact: right.length },
  ledger: [],
  outcomes: right.map((correct, q) => ({ q, correct, cost })),
  skipped: [],
});
const T = true;
const F = false;

describe('fidelity rows', () => {
  const full = (): MethodGroup => ({ method: 'Full-Debate', runs: [run('Full-Debate', [T, T, F, F])] });
  // Under the model the three runs read 25%, 50% and 100%; under record 50% each.
  const model = [full(), { method: 'Random', runs: [run('Random', [T, F, F, F]), run('Random', [T, T, F, F]), run('Random', [T, T, T, T])] }];
  const record = [full(), { method: 'Random', runs: [run('Random', [T, T, F, F]), run('Random', [F, F, T, T]), run('Random', [T, F, T, F])] }];
  const [fullRow, random] = fidelityRows(model, record);

  it("give each tier's accuracy as the mean over its runs, and its sample sd over the runs", () => {
    expect(random.runs).toBe(3);
    expect(random.accuracy.model).toBeCloseTo(175 / 3, 9);
    expect(random.accuracy.record).toBe(50);
    // sd of 25, 50, 100 with n - 1: sqrt(((25 - 175/3)^2 + (50 - 175/3)^2 + (100 - 175/3)^2) / 2)
    expect(random.sd.model).toBeCloseTo(Math.sqrt(8750 / 6), 9);
    expect(random.sd.record).toBe(0);
    expect(fullRow.sd.model).toBeNaN(); // one run: no spread
    expect(fullRow.accuracy.model).toBe(50);
  });

  it('give the accuracy difference model - record, paired over questions', () => {
    expect(fullRow.delta.accuracy.estimate).toBe(0);
    expect(random.delta.accuracy.estimate).toBeCloseTo(175 / 3 - 50, 9);
  });
});
