import { describe, expect, it } from 'vitest';
import { kendallTauB, mcnemar, mcnemarP, pairedBootstrap, pairedDifference, tInterval, welch, wilson } from '../src/significance.ts';

// Reference values from scipy 1.17 (binomtest(k, n, 0.5).pvalue, t.ppf, ttest_ind(equal_var=False),
// binomtest(k, n).proportion_ci(method='wilson')) and hand computation where noted.
describe('exact McNemar test', () => {
  it('matches exact binomial p-values on the discordant pairs', () => {
    expect(mcnemarP(1, 9)).toBeCloseTo(22 / 1024, 12); // 2 * (1 + 10) / 2^10, by hand
    expect(mcnemarP(0, 5)).toBeCloseTo(0.0625, 12); // 2 / 2^5
    expect(mcnemarP(7, 1)).toBeCloseTo(0.0703125, 12); // 2 * 9 / 2^8
    expect(mcnemarP(10, 20)).toBeCloseTo(0.09873714670538905, 8);
    expect(mcnemarP(40, 60)).toBeCloseTo(0.05688793364098089, 8);
    expect(mcnemarP(86, 150) / 3.7159361395713866e-5).toBeCloseTo(1, 5); // Agresti's approval ratings table
  });

  it('is 1 without discordant questions or with an even split', () => {
    expect(mcnemarP(0, 0)).toBe(1);
    expect(mcnemarP(3, 3)).toBe(1);
    expect(mcnemarP(4, 5)).toBeCloseTo(1, 12); // 2 * P(X <= 4), X ~ Binomial(9, 1/2) = 2 * 1/2
  });

  it('counts the discordant questions of two runs', () => {
    const a = [true, true, true, false, false, true];
    const b = [true, false, false, false, true, true];
    const r = mcnemar(a, b);
    expect([r.onlyA, r.onlyB]).toEqual([2, 1]);
    expect(r.p).toBeCloseTo(1, 12); // 2 * P(X <= 1), X ~ Binomial(3, 1/2) = 2 * 4/8
    expect(() => mcnemar(a, b.slice(1))).toThrow(/same questions/);
  });
});

describe('intervals', () => {
  it('t interval of a mean over seeds uses the t quantile with n - 1 degrees of freedom', () => {
    const r = tInterval([76.3, 77.7, 76.3]); // t(0.975, 2) = 4.3027
    expect(r.estimate).toBeCloseTo(76.7667, 4);
    expect(r.low).toBeCloseTo(74.75876205945025, 6);
    expect(r.high).toBeCloseTo(78.77457127388308, 6);
    const five = tInterval([1, 2, 3, 4, 5]); // t(0.975, 4) = 2.7764
    expect(five.low).toBeCloseTo(1.0367568385224428, 8);
    expect(five.high).toBeCloseTo(4.963243161477557, 8);
    expect(Number.isNaN(tInterval([76.3]).low)).toBe(true);
  });

  it('Wilson interval of one run matches the score interval', () => {
    const zero = wilson(0, 10);
    expect(zero.low).toBe(0);
    expect(zero.high).toBeCloseTo(0.27753279986288926, 8);
    expect(wilson(8, 10).low).toBeCloseTo(0.4901624715366418, 8);
    expect(wilson(8, 10).high).toBeCloseTo(0.9433178485456248, 8);
    expect(wilson(230, 300).low).toBeCloseTo(0.7156186535786361, 8);
    expect(wilson(230, 300).high).toBeCloseTo(0.8109717617682729, 8);
  });

  it("Welch's t-test over seeds", () => {
    const r = welch([76.3, 77.7, 76.3], [78.0, 80.3, 78.3]);
    expect(r.t).toBeCloseTo(-2.4430352131378745, 8);
    expect(r.df).toBeCloseTo(3.4230988052342215, 8);
    expect(r.p).toBeCloseTo(0.08170136538863487, 6);
    expect(welch([1, 2, 3, 4], [2, 4, 6, 8, 10]).p).toBeCloseTo(0.06913359319239237, 6);
    expect(welch([76.3, 76.3, 76.3], [76.8, 75.5, 78.1]).p).toBeCloseTo(0.5738567577046472, 6); // one side without spread
    expect(Number.isNaN(welch([70, 70], [71, 71]).p)).toBe(true); // neither spreads: no test
  });
});

const perQuestion = (correct: number[], cost = correct.map(() => 1)) => ({ correct, cost });

describe('paired bootstrap', () => {
  it('a constant per-question difference has a zero-width interval', () => {
    const r = pairedDifference(perQuestion([1, 1, 0, 1]), perQuestion([0, 0, -1, 0]), [1, 1, 1, 1]);
    expect(r.accuracy).toEqual({ estimate: 100, low: 100, high: 100 });
  });

  it('the interval of a mean difference over 300 questions matches the normal approximation', () => {
    // 30 questions only A gets right, 10 only B, 260 both or neither: difference 20/300 = 6.67 pp,
    // per-question sd sqrt(40/300 - (20/300)^2) = 0.3590, standard error 0.3590 / sqrt(300) = 2.073 pp.
    const a = Array.from({ length: 300 }, (_, i) => (i < 30 || i >= 100 ? 1 : 0));
    const b = Array.from({ length: 300 }, (_, i) => (i < 30 ? 0 : i < 40 ? 1 : i < 100 ? 0 : 1));
    const r = pairedDifference(
      perQuestion(a),
      perQuestion(b),
      a.map(() => 1),
      { seed: 'normal approximation', resamples: 20000 },
    ).accuracy;
    expect(r.estimate).toBeCloseTo(20 / 3, 10);
    expect(r.low).toBeCloseTo(20 / 3 - 1.96 * 2.073, 0);
    expect(r.high).toBeCloseTo(20 / 3 + 1.96 * 2.073, 0);
    expect(Math.abs(r.high - r.estimate - (r.estimate - r.low))).toBeLessThan(0.5); // nearly symmetric
  });

  it('pairing: two methods that differ on few questions get a narrow interval however hard the questions are', () => {
    // Half the questions both get right, half both get wrong, and A alone gets 3 more: the unpaired
    // spread of either accuracy is about 2.9 pp, the paired difference's only about 0.6 pp.
    const b = Array.from({ length: 300 }, (_, i) => (i % 2 ? 1 : 0));
    const a = b.map((x, i) => (i < 6 && x === 0 ? 1 : x));
    const r = pairedDifference(
      perQuestion(a),
      perQuestion(b),
      a.map(() => 1),
    ).accuracy;
    expect(r.estimate).toBeCloseTo(1, 10);
    expect(r.low).toBeGreaterThanOrEqual(0);
    expect(r.high - r.low).toBeLessThan(3);
  });

  it('a ratio of sums: the mean of x / y over the draw, reproducible for a seed and different across seeds', () => {
    const x = Array.from({ length: 50 }, (_, i) => (i * 7919) % 13);
    const y = x.map((v) => v + 1);
    const [one] = pairedBootstrap([{ num: x, den: y }], { seed: 'a', resamples: 2000 });
    expect(one.estimate).toBeCloseTo(x.reduce((s, v) => s + v, 0) / y.reduce((s, v) => s + v, 0), 12);
    expect(one.low).toBeLessThan(one.estimate);
    expect(one.high).toBeGreaterThan(one.estimate);
    expect(pairedBootstrap([{ num: x, den: y }], { seed: 'a', resamples: 2000 })).toEqual([one]);
    expect(pairedBootstrap([{ num: x, den: y }], { seed: 'b', resamples: 2000 })).not.toEqual([one]);
  });

  it('cost difference is in percent of the reference cost of the same resample', () => {
    // A costs half of B everywhere; B is the reference: every resample gives -50%.
    const b = [10, 20, 30, 40];
    const r = pairedDifference(
      perQuestion(
        [1, 1, 1, 1],
        b.map((c) => c / 2),
      ),
      perQuestion([1, 1, 1, 1], b),
      b,
    );
    expect(r.cost).toEqual({ estimate: -50, low: -50, high: -50 });
    expect(r.accuracy).toEqual({ estimate: 0, low: 0, high: 0 });
    expect(() => pairedDifference(perQuestion([1]), perQuestion([1, 0]), [1, 1])).toThrow(/same questions/);
    expect(() => pairedDifference(perQuestion([1, 0]), perQuestion([1, 0]), [1])).toThrow(/same questions/);
  });
});

describe("Kendall's tau-b", () => {
  it('matches scipy.stats.kendalltau, ties included', () => {
    expect(kendallTauB([12, 2, 1, 12, 2], [1, 4, 7, 1, 0])).toBeCloseTo(-0.4714045207910316, 12); // scipy's docs example
    expect(kendallTauB([1, 2, 3, 4, 5], [5, 6, 7, 8, 7])).toBeCloseTo(0.7378647873726218, 12);
    expect(kendallTauB([1, 1, 2, 2, 3, 3, 4], [1, 2, 1, 3, 3, 4, 4])).toBeCloseTo(0.7222222222222224, 12);
    expect(kendallTauB([1, 2, 3, 4], [4, 3, 2, 1])).toBe(-1);
    expect(kendallTauB([0.1, 0.5, 0.3], [10, 50, 30])).toBe(1); // same order, other scale
  });

  it('is undefined when one ranking is all ties, and needs the same items', () => {
    expect(kendallTauB([1, 1, 1], [1, 2, 3])).toBeNaN();
    expect(() => kendallTauB([1, 2], [1, 2, 3])).toThrow(/same items/);
  });
});
