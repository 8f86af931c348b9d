// The numbers of a comparison report (docs/method.md §9): one row per method, aggregated over its runs (seeds)
// as mean ± sample sd with n and a 95% interval, its transition ledger, tiers and pricing; and paired
// tests of every trained policy against every other method on the same questions. How they are
// shown (Markdown, CSV, the accuracy-cost plot, the files): report.ts.
import { addPricing, emptyPricing } from '../src/env/cost.ts';
import { addTiers, emptyTiers, TIERS, type TierCounts } from '../src/env/tiers.ts';
import type { MethodResult } from '../src/env/tally.ts';
import { OUTCOMES, signedUtility, summarize } from '../src/env/ledger.ts';
import { excludesZero, mcnemar, mean, pairedDifference, sd, tInterval, wilson, type Estimate, type PerQuestion } from '../src/significance.ts';

export interface MethodGroup {
  method: string;
  runs: MethodResult[];
  /** A trained policy: the paired tests compare it with every other method. */
  policy?: boolean;
}

export interface Row {
  method: string;
  policy: boolean;
  n: number;
  accuracy: number;
  accuracySd: number;
  /** 95% interval of the accuracy: Wilson over the questions for one run, Student t over the runs for several. */
  accuracyLow: number;
  accuracyHigh: number;
  costPct: number;
  costSd: number;
  /** 95% Student t interval of the cost % over the runs (NaN for one run: no spread). */
  costLow: number;
  costHigh: number;
  keptPct: number;
  ledger: Record<(typeof OUTCOMES)[number], number>;
  onsets: number[];
  collapsesPrevented: number;
  correctionsLost: number;
  utility: number;
  /** Share (%) of each lookup tier over the revisions of every run; all 0 without revisions. */
  tiers: TierCounts;
  /** Share (%) of calls priced from their recorded input-token counts (the rest computed; src/env/cost.ts). */
  pricedRecordedPct: number;
  note: string;
}

/** Shares (%) of the revision lookups each tier answered over a method's runs. */
export function tierShares(runs: MethodResult[]): TierCounts {
  const t = emptyTiers();
  runs.forEach((r) => addTiers(t, r.tiers));
  const total = TIERS.reduce((s, k) => s + t[k], 0);
  for (const k of TIERS) t[k] = total ? (100 * t[k]) / total : 0;
  return t;
}

function recordedShare(runs: MethodResult[]): number {
  const p = emptyPricing();
  runs.forEach((r) => addPricing(p, r.priced));
  return (100 * p.recorded) / Math.max(1, p.recorded + p.computed);
}

/**
 * Accuracy (%) of a method's runs with its 95% interval: Wilson for one run, t over several, cut to
 * [0, 100] (a t interval of few seeds can reach past 100%, where no accuracy lies: two seeds read
 * [43.1, 110.9]).
 */
export function accuracyEstimate(runs: MethodResult[]): Estimate {
  if (runs.length === 1) {
    const w = wilson(runs[0].correct, runs[0].questions);
    return { estimate: 100 * w.estimate, low: 100 * w.low, high: 100 * w.high };
  }
  const t = tInterval(runs.map((r) => (100 * r.correct) / r.questions));
  return { estimate: t.estimate, low: Math.max(0, t.low), high: Math.min(100, t.high) };
}

export function rows(groups: MethodGroup[], reference: MethodResult, weights = { collapse: 1, correction: 1 }): Row[] {
  // A loop, not Math.max(...): a test split of 25,000 questions has more ledger entries than a call takes arguments.
  let rounds = 1;
  for (const g of groups) for (const r of g.runs) for (const e of r.ledger) rounds = Math.max(rounds, e.onset ?? 1);
  return groups.map((g) => {
    const acc = g.runs.map((r) => (100 * r.correct) / r.questions);
    const cost = g.runs.map((r) => (100 * r.cost) / reference.cost);
    const accuracy = accuracyEstimate(g.runs);
    const costInterval = tInterval(cost);
    const ledgers = g.runs.map((r) => summarize(r.ledger, rounds));
    const utilities = g.runs.map((r) => signedUtility(r.ledger, reference.ledger, weights.collapse, weights.correction));
    return {
      method: g.method,
      policy: g.policy ?? false,
      n: g.runs.length,
      accuracy: accuracy.estimate,
      accuracySd: sd(acc),
      accuracyLow: accuracy.low,
      accuracyHigh: accuracy.high,
      costPct: mean(cost),
      costSd: sd(cost),
      costLow: costInterval.low,
      costHigh: costInterval.high,
      keptPct: mean(g.runs.map((r) => (100 * r.keptEdges) / r.maxEdges)),
      ledger: Object.fromEntries(OUTCOMES.map((o) => [o, mean(ledgers.map((l) => l.counts[o]))])) as Row['ledger'],
      onsets: ledgers[0].onsets.map((_, t) => mean(ledgers.map((l) => l.onsets[t]))),
      collapsesPrevented: mean(utilities.map((u) => u.collapsesPrevented)),
      correctionsLost: mean(utilities.map((u) => u.correctionsLost)),
      utility: mean(utilities.map((u) => u.utility)),
      tiers: tierShares(g.runs),
      pricedRecordedPct: recordedShare(g.runs),
      note: g.runs
        .map((r) => r.note)
        .filter(Boolean)
        .join('; '),
    };
  });
}

/**
 * A method's runs on the same questions, per question: the share of runs right and the mean cost.
 * Every run must hold the same questions in the same order as `questions`.
 */
export function perQuestion(method: string, runs: MethodResult[], questions: number[]): PerQuestion {
  for (const r of runs)
    if (r.outcomes.length !== questions.length || r.outcomes.some((o, i) => o.q !== questions[i]))
      throw new Error(`${method} (${r.method}): paired tests need every method on the same questions in the same order`);
  return {
    correct: questions.map((_, i) => mean(runs.map((r) => +r.outcomes[i].correct))),
    cost: questions.map((_, i) => mean(runs.map((r) => r.outcomes[i].cost))),
  };
}

export interface PairedTest {
  policy: string;
  method: string;
  questions: number;
  policyRuns: number;
  methodRuns: number;
  /** Policy minus method, percentage points, 95% paired bootstrap interval over questions. */
  accuracy: Estimate;
  /** Policy minus method, in percentage points of the reference's cost, same resamples. */
  cost: Estimate;
  /** Exact McNemar test of every pair (policy run, method run): range of p and pairs below 0.05. */
  mcnemar: { pMin: number; pMax: number; pairs: number; below05: number };
  /** The accuracy interval excludes 0. */
  differs: boolean;
}

/**
 * Every policy group against every other method on the same questions. Several runs (seeds) of a
 * method enter the bootstrap as each question's accuracy (and cost) averaged over the runs; McNemar
 * is run on each pair of runs and reported as a range.
 */
export function pairedTests(groups: MethodGroup[], reference: MethodResult): PairedTest[] {
  const questions = reference.outcomes.map((o) => o.q);
  const referenceCost = reference.outcomes.map((o) => o.cost);
  const perMethod = new Map(groups.map((g) => [g, perQuestion(g.method, g.runs, questions)]));
  return groups
    .filter((p) => p.policy)
    .flatMap((p) =>
      groups
        .filter((g) => g !== p)
        .map((g) => {
          const d = pairedDifference(perMethod.get(p)!, perMethod.get(g)!, referenceCost, { seed: `${p.method} vs ${g.method}` });
          const ps = p.runs.flatMap((a) =>
            g.runs.map(
              (b) =>
                mcnemar(
                  a.outcomes.map((o) => o.correct),
                  b.outcomes.map((o) => o.correct),
                ).p,
            ),
          );
          return {
            policy: p.method,
            method: g.method,
            questions: questions.length,
            policyRuns: p.runs.length,
            methodRuns: g.runs.length,
            accuracy: d.accuracy,
            cost: d.cost,
            mcnemar: { pMin: Math.min(...ps), pMax: Math.max(...ps), pairs: ps.length, below05: ps.filter((x) => x < 0.05).length },
            differs: excludesZero(d.accuracy),
          };
        }),
    );
}
