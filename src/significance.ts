// Statistics of the comparison reports: is a difference between two methods on the same questions
// real, and how far does a number spread? Exact McNemar test and paired bootstrap intervals
// (questions resampled together, so a question easy for both methods does not widen the interval);
// intervals of one run's accuracy (Wilson) and of a mean over seeds (Student t); Welch's t-test
// between two sets of seeds. Distribution functions come from jStat.
import jStat from 'jstat';
import seedrandom from 'seedrandom';

export const mean = (x: number[]) => x.reduce((a, b) => a + b, 0) / x.length;
/** Sample standard deviation (n - 1); NaN below two values. */
export const sd = (x: number[]) => (x.length < 2 ? NaN : Math.sqrt(x.reduce((a, b) => a + (b - mean(x)) ** 2, 0) / (x.length - 1)));

export interface Interval {
  low: number;
  high: number;
}

export interface Estimate extends Interval {
  estimate: number;
}

/** A difference is significant at the interval's level when its interval excludes 0. */
export const excludesZero = (i: Interval) => i.low > 0 || i.high < 0;

/**
 * Exact McNemar test of two methods' correctness on the same questions: under "no difference" the
 * discordant questions (one right, the other wrong) split as Binomial(b + c, 1/2); the two-sided
 * p-value is twice the smaller tail, at most 1 (as scipy's binomtest and statsmodels' mcnemar(exact)).
 */
export function mcnemar(a: boolean[], b: boolean[]): { onlyA: number; onlyB: number; p: number } {
  if (a.length !== b.length) throw new Error(`McNemar test needs the same questions: ${a.length} against ${b.length}`);
  let onlyA = 0,
    onlyB = 0;
  a.forEach((x, i) => {
    if (x && !b[i]) onlyA++;
    if (!x && b[i]) onlyB++;
  });
  return { onlyA, onlyB, p: mcnemarP(onlyA, onlyB) };
}

export function mcnemarP(onlyA: number, onlyB: number): number {
  const n = onlyA + onlyB;
  const k = Math.min(onlyA, onlyB);
  if (n === 0 || 2 * k === n) return 1;
  // P(X <= k) for X ~ Binomial(n, 1/2) is the regularized incomplete beta I_{1/2}(n - k, k + 1).
  return Math.min(1, 2 * jStat.ibeta(0.5, n - k, k + 1));
}

export interface BootstrapOptions {
  /** Resamples of the questions. */
  resamples?: number;
  /** Coverage of the interval. */
  level?: number;
  /** Seed of the resampling, so a report is reproducible. */
  seed?: string;
}

/** A ratio of sums over the items, e.g. a mean (`den` absent: one per item) or cost over reference cost. */
export interface RatioOfSums {
  num: number[];
  den?: number[];
}

/**
 * Percentile bootstrap over n paired items: each resample draws n item indices with replacement
 * and every statistic is computed on the same draw (so several statistics of one comparison stay
 * paired with each other too); the estimate is the statistic of the items as they are.
 */
export function pairedBootstrap(stats: RatioOfSums[], o: BootstrapOptions = {}): Estimate[] {
  const n = stats[0].num.length;
  for (const s of stats)
    if (s.num.length !== n || (s.den && s.den.length !== n))
      throw new Error(`paired bootstrap needs the same questions: ${n} against ${s.den?.length ?? s.num.length}`);
  const resamples = o.resamples ?? 5000;
  const level = o.level ?? 0.95;
  const random = seedrandom.xor128(o.seed ?? 'paired-bootstrap'); // fast, and plenty for resampling
  const draws = stats.map(() => new Float64Array(resamples));
  const nums = new Float64Array(stats.length),
    dens = new Float64Array(stats.length);
  for (let r = 0; r < resamples; r++) {
    nums.fill(0);
    dens.fill(0);
    for (let k = 0; k < n; k++) {
      const i = Math.floor(random() * n);
      for (let s = 0; s < stats.length; s++) {
        nums[s] += stats[s].num[i];
        dens[s] += stats[s].den?.[i] ?? 1;
      }
    }
    for (let s = 0; s < stats.length; s++) draws[s][r] = nums[s] / dens[s];
  }
  const sum = (x: number[]) => x.reduce((a, b) => a + b, 0);
  return stats.map((s, k) => {
    const sorted = draws[k].sort();
    return { estimate: sum(s.num) / (s.den ? sum(s.den) : n), low: quantile(sorted, (1 - level) / 2), high: quantile(sorted, (1 + level) / 2) };
  });
}

/** Quantile of sorted values, linear between order statistics (type 7, as numpy's default). */
function quantile(sorted: Float64Array, p: number): number {
  const h = (sorted.length - 1) * p;
  const lo = Math.floor(h);
  return sorted[lo] + (h - lo) * (sorted[Math.min(lo + 1, sorted.length - 1)] - sorted[lo]);
}

/** One method's outcome per question, in question order: share of its runs right (0/1 for one run) and mean cost. */
export interface PerQuestion {
  correct: number[];
  cost: number[];
}

/**
 * A minus B on the same questions, with paired bootstrap intervals: accuracy in percentage points,
 * and cost in percent of the reference's cost on the same resampled questions (cost % as the
 * reports show it).
 */
export function pairedDifference(a: PerQuestion, b: PerQuestion, referenceCost: number[], o: BootstrapOptions = {}): { accuracy: Estimate; cost: Estimate } {
  if (a.correct.length !== b.correct.length) throw new Error(`paired bootstrap needs the same questions: ${a.correct.length} against ${b.correct.length}`);
  const [accuracy, cost] = pairedBootstrap(
    [{ num: a.correct.map((x, i) => 100 * (x - b.correct[i])) }, { num: a.cost.map((x, i) => 100 * (x - b.cost[i])), den: referenceCost }],
    o,
  );
  return { accuracy, cost };
}

/** Student t interval of the mean of `x` (e.g. accuracy over seeds); NaN bounds below two values. */
export function tInterval(x: number[], level = 0.95): Estimate {
  const m = mean(x);
  if (x.length < 2) return { estimate: m, low: NaN, high: NaN };
  const half = (jStat.studentt.inv((1 + level) / 2, x.length - 1) * sd(x)) / Math.sqrt(x.length);
  return { estimate: m, low: m - half, high: m + half };
}

/** Wilson score interval of a proportion `correct / n` (one run's accuracy), as a proportion. */
export function wilson(correct: number, n: number, level = 0.95): Estimate {
  const p = correct / n;
  const z = jStat.normal.inv((1 + level) / 2, 0, 1);
  const centre = (p + (z * z) / (2 * n)) / (1 + (z * z) / n);
  const half = (z / (1 + (z * z) / n)) * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n));
  return { estimate: p, low: Math.max(0, centre - half), high: Math.min(1, centre + half) };
}

/**
 * Welch's t-test of two means (e.g. a variant's accuracy over seeds against the reference's),
 * two-sided; p is NaN when neither set spreads (or either has fewer than two values).
 */
export function welch(x: number[], y: number[]): { t: number; df: number; p: number } {
  const vx = sd(x) ** 2 / x.length,
    vy = sd(y) ** 2 / y.length;
  if (!(vx + vy > 0)) return { t: NaN, df: NaN, p: NaN };
  const t = (mean(x) - mean(y)) / Math.sqrt(vx + vy);
  const df = (vx + vy) ** 2 / (vx ** 2 / (x.length - 1) + vy ** 2 / (y.length - 1));
  return { t, df, p: Math.min(1, 2 * jStat.studentt.cdf(-Math.abs(t), df)) };
}

/** A p-value as reports print it. */
export const formatP = (p: number) => (Number.isNaN(p) ? '-' : p >= 0.001 ? p.toFixed(3) : p.toExponential(1));

/**
 * Kendall's tau-b of two rankings of the same items (e.g. methods by accuracy under two lookup
 * tiers): (concordant − discordant pairs) / sqrt((pairs − pairs tied in x)(pairs − pairs tied in y)),
 * as scipy's kendalltau; NaN when either side is all ties.
 */
export function kendallTauB(x: number[], y: number[]): number {
  if (x.length !== y.length) throw new Error(`Kendall's tau needs the same items: ${x.length} against ${y.length}`);
  let concordant = 0,
    discordant = 0,
    tiedX = 0,
    tiedY = 0,
    pairs = 0;
  for (let i = 0; i < x.length; i++)
    for (let j = i + 1; j < x.length; j++) {
      const s = Math.sign(x[i] - x[j]) * Math.sign(y[i] - y[j]);
      pairs++;
      if (x[i] === x[j]) tiedX++;
      if (y[i] === y[j]) tiedY++;
      if (s > 0) concordant++;
      if (s < 0) discordant++;
    }
  return (concordant - discordant) / Math.sqrt((pairs - tiedX) * (pairs - tiedY));
}
