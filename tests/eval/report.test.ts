import { describe, expect, it } from 'vitest';
import type { MethodResult } from '../../src/env/tally.ts';
import { pairedTests, rows, type MethodGroup } from '../../eval/comparison.ts';
import { csv, markdown, pairedCsv } from '../../eval/report.ts';
import { mcnemarP, tInterval, wilson } from '../../src/significance.ts';
import { emptyTiers } from '../../src/env/tiers.ts';

// CSV rows as objects, numbers cast (the test's method names hold no commas or quotes).
function parse(text: string): Record<string, string | number>[] {
  const [header, ...lines] = text
    .trim()
    .split('\n')
    .map((l) => l.split(','));
  return lines.map((l) => Object.fromEntries(header.map((h, i) => [h, l[i] !== '' && !Number.isNaN(Number(l[i])) ? Number(l[i]) : l[i]])));
}

// A method's run from its per-question correctness and costs (question indices 0..n-1).
function run(method: string, correct: boolean[], cost: number[] = correct.map(() => 10)): MethodResult {
  return {
    method,
    questions: correct.length,
    correct: correct.filter(Boolean).length,
    invalid: 0,
    cost: cost.reduce((a, b) => a + b, 0),
    calls: correct.length,
    stopped: 0,
    keptEdges: 0,
    maxEdges: correct.length * 4,
    tiers: emptyTiers(),
    priced: { recorded: correct.length, computed: 0 },
    ledger: correct.map((c) => ({ outcome: c ? 'preserved' : 'unrepaired', onset: null })),
    outcomes: correct.map((c, q) => ({ q, correct: c, cost: cost[q] })),
    skipped: [],
  };
}

// 40 questions. Full-Debate right on the first 20 at cost 10 each. The policy's two seeds are right
// on the first 30 (seed 0) and the first 28 (seed 1) at cost 5: 10 and 8 questions only they get right.
const n = 40;
const full = run(
  'Full-Debate',
  Array.from({ length: n }, (_, i) => i < 20),
);
const seeds = [30, 28].map((k, s) =>
  run(
    `seed ${s}`,
    Array.from({ length: n }, (_, i) => i < k),
    Array.from({ length: n }, () => 5),
  ),
);
const groups: MethodGroup[] = [
  { method: 'Full-Debate', runs: [full] },
  { method: 'CPP', runs: seeds, policy: true },
];

describe('report rows and paired tests', () => {
  it('accuracy intervals: Wilson for one run, t over runs for several, within [0, 100]', () => {
    const [f, p] = rows(groups, full);
    const w = wilson(20, 40);
    expect([f.accuracyLow, f.accuracyHigh]).toEqual([100 * w.low, 100 * w.high]);
    const t = tInterval([75, 70]);
    expect(p.accuracy).toBe(72.5);
    expect(t.high).toBeGreaterThan(100); // two seeds: t(0.975, 1 df) = 12.7
    expect([p.accuracyLow, p.accuracyHigh]).toEqual([t.low, 100]);
    expect(p.costPct).toBe(50);
    expect(p.costSd).toBe(0);
    expect(Number.isNaN(f.costLow)).toBe(true); // one run: no spread of cost
  });

  it('paired tests: seeds averaged per question for the bootstrap, McNemar for each pair of runs', () => {
    const [t] = pairedTests(groups, full);
    expect(t).toMatchObject({ policy: 'CPP', method: 'Full-Debate', questions: 40, policyRuns: 2, methodRuns: 1, differs: true });
    expect(t.accuracy.estimate).toBeCloseTo(22.5, 10); // (10 + 8) / 2 of 40 questions
    expect(t.accuracy.low).toBeGreaterThan(0);
    expect(t.cost.estimate).toBeCloseTo(-50, 10);
    expect(t.mcnemar).toEqual({ pMin: mcnemarP(10, 0), pMax: mcnemarP(8, 0), pairs: 2, below05: 2 });
    expect(pairedTests(groups, full)).toEqual([t]); // seeded: the same report twice
  });

  it('refuses to pair methods evaluated on other questions', () => {
    const shuffled = { ...seeds[0], outcomes: [...seeds[0].outcomes].reverse() };
    expect(() =>
      pairedTests(
        [
          { method: 'Full-Debate', runs: [full] },
          { method: 'CPP', runs: [shuffled], policy: true },
        ],
        full,
      ),
    ).toThrow(/same questions in the same order/);
  });

  it('CSVs hold numbers in their own columns; the Markdown holds the readable form', () => {
    const rs = rows(groups, full);
    const tests = pairedTests(groups, full);
    const table = parse(csv(rs));
    expect(table[1]).toMatchObject({ method: 'CPP', policy: 'true', n: 2, accuracy: 72.5, accuracy_ci_method: 't', cost_pct: 50, tier_exact_pct: 0 });
    expect(table[1].accuracy_ci_low).toBeCloseTo(rs[1].accuracyLow, 10);
    expect(table[0].cost_pct_ci_low).toBe(''); // no interval for one run
    for (const row of table) for (const v of Object.values(row)) expect(String(v)).not.toMatch(/±|\[/);
    const paired = parse(pairedCsv(tests));
    expect(paired[0]).toMatchObject({ policy: 'CPP', method: 'Full-Debate', delta_accuracy_pp: 22.5, mcnemar_pairs: 2, accuracy_differs: 'true' });
    const md = markdown(rs, tests, 'Full-Debate');
    expect(md).toContain('72.5 ± 3.5 (n = 2)');
    expect(md).toMatch(/Paired tests on the same 40 questions: CPP minus each method/);
    expect(md).toMatch(/\| Full-Debate +\| +\+22\.5 \| \[\+\d+\.\d, \+\d+\.\d\] +\| \S+ to \S+ \(2\/2 < 0\.05\) \| +-50\.0 \|/);
  });
});
