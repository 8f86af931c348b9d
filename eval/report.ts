// Comparison reports (SPEC §9): one row per method, aggregated over its runs (seeds) as mean ±
// sample sd with n and a 95% interval; paired tests of every trained policy against every other
// method on the same questions; Markdown on screen, numeric CSVs and an accuracy-versus-cost SVG on
// disk.
import { stringify } from 'csv-stringify/sync';
import { join } from 'node:path';
import { writeFileAtomic } from '../src/io/atomic.ts';
import { markdownTable } from '../src/table.ts';
import { addPricing, emptyPricing } from '../src/env/cost.ts';
import { addTiers, emptyTiers, TIERS, type TierCounts } from '../src/env/tiers.ts';
import type { MethodResult } from '../src/env/tally.ts';
import { OUTCOMES, signedUtility, summarize } from '../src/env/ledger.ts';
import { accuracyCostPlot } from './plots.ts';
import { excludesZero, formatP, mcnemar, mean, pairedDifference, sd, tInterval, wilson, type Estimate, type PerQuestion } from '../src/significance.ts';

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

function tierShares(runs: MethodResult[]): TierCounts {
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
 * How a report's calls were priced: recorded input-token counts where the call is the recorded
 * one, computed ones elsewhere, with the share of each method below 100% recorded.
 */
export function pricingNote(rs: Row[]): string {
  const partial = rs.filter((r) => r.pricedRecordedPct < 100);
  const rule =
    "input tokens of a call are its response's recorded inTokens where the response was recorded with exactly that context (round-1 answers, exact and record tiers), else computed as promptTokens + the outTokens of the kept responses (signature and model tiers)";
  if (!partial.length) return `Pricing: every call priced from its recorded input-token count (${rule}).`;
  return `Pricing: ${rule}. Calls priced from recorded counts: ${rs.map((r) => `${r.method} ${r.pricedRecordedPct.toFixed(0)}%`).join(', ')}; the rest computed.`;
}

/** Accuracy (%) of a method's runs with its 95% interval: Wilson for one run, t over several. */
export function accuracyEstimate(runs: MethodResult[]): Estimate {
  if (runs.length === 1) {
    const w = wilson(runs[0].correct, runs[0].questions);
    return { estimate: 100 * w.estimate, low: 100 * w.low, high: 100 * w.high };
  }
  return tInterval(runs.map((r) => (100 * r.correct) / r.questions));
}

export function rows(groups: MethodGroup[], reference: MethodResult, weights = { collapse: 1, correction: 1 }): Row[] {
  const rounds = Math.max(1, ...groups.flatMap((g) => g.runs.flatMap((r) => r.ledger.map((e) => e.onset ?? 1))));
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

const fmt = (x: number) => (Number.isInteger(x) ? String(x) : x.toFixed(1));
/** A difference in points with its sign: "+2.0", "-0.5". */
export const signed = (x: number) => `${x >= 0 ? '+' : ''}${x.toFixed(1)}`;
/** "[low, high]" of an interval, "-" when it has none. */
export const interval = (low: number, high: number, show = (x: number) => x.toFixed(1)) => (Number.isNaN(low) ? '-' : `[${show(low)}, ${show(high)}]`);
/** "mean ± sd (n = k)", or "mean (n = 1)". */
export const meanSd = (m: number, s: number, n: number) => (n === 1 ? `${m.toFixed(1)} (n = 1)` : `${m.toFixed(1)} ± ${s.toFixed(1)} (n = ${n})`);

/** "exact 33%, signature 8%, model 59%": the tiers that answered a method's revisions. */
export function tierText(t: TierCounts): string {
  return (
    TIERS.filter((k) => t[k] > 0)
      .map((k) => `${k} ${t[k].toFixed(0)}%`)
      .join(', ') || '-'
  );
}

function pairedMarkdown(tests: PairedTest[], referenceName: string): string[] {
  return [...new Set(tests.map((t) => t.policy))].flatMap((policy) => {
    const own = tests.filter((t) => t.policy === policy);
    return [
      '',
      `Paired tests on the same ${own[0].questions} questions: ${policy} minus each method`,
      '',
      markdownTable(
        ['method', 'Δ accuracy pp', '95% CI (paired bootstrap)', 'McNemar p', `Δ cost pp of ${referenceName}`, '95% CI', 'accuracy differs'],
        own.map((t) => [
          t.method,
          signed(t.accuracy.estimate),
          interval(t.accuracy.low, t.accuracy.high, signed),
          t.mcnemar.pairs === 1
            ? formatP(t.mcnemar.pMin)
            : `${formatP(t.mcnemar.pMin)} to ${formatP(t.mcnemar.pMax)} (${t.mcnemar.below05}/${t.mcnemar.pairs} < 0.05)`,
          signed(t.cost.estimate),
          interval(t.cost.low, t.cost.high, signed),
          t.differs ? 'yes' : 'no',
        ]),
      ),
    ];
  });
}

/** How the intervals and tests of a comparison report are computed (its footnote, and the README's). */
export function statisticsNote(referenceName: string): string {
  return [
    'Accuracy 95% CI: Wilson score interval over the questions for one run; Student t interval of the mean over the runs (seeds) for several (it covers the spread over seeds on these questions, not question sampling). Cost: t interval over runs where there are several.',
    `Paired tests, on the same questions (Δ = policy minus method): the 95% interval is a percentile bootstrap over questions (5000 resamples, seeded by the two methods' names, so a report is reproducible), each question's accuracy and cost averaged over a method's runs; Δ cost is in percentage points of ${referenceName}'s cost on the same resampled questions. McNemar: exact two-sided binomial test on the discordant questions of each pair (policy run, method run); several pairs show the range of p and how many are below 0.05. "accuracy differs": the bootstrap interval excludes 0. No correction for multiple comparisons.`,
  ].join('\n');
}

export function markdown(rs: Row[], tests: PairedTest[], referenceName: string, weights = { collapse: 1, correction: 1 }): string {
  const table = markdownTable(
    [
      'method',
      'accuracy % (mean ± sd, n)',
      '95% CI',
      'cost %',
      'kept edges %',
      ...OUTCOMES,
      'onset by round',
      `utility vs ${referenceName}`,
      'tiers (revisions)',
    ],
    rs.map((r) => [
      r.method,
      meanSd(r.accuracy, r.accuracySd, r.n),
      interval(r.accuracyLow, r.accuracyHigh),
      r.n === 1 ? r.costPct.toFixed(1) : `${r.costPct.toFixed(1)} ± ${r.costSd.toFixed(1)}`,
      r.keptPct.toFixed(1),
      ...OUTCOMES.map((o) => fmt(r.ledger[o])),
      r.onsets
        .slice(2)
        .map((n, i) => `r${i + 2}:${fmt(n)}`)
        .join(' ') || '-',
      `${fmt(r.utility)} (+${fmt(r.collapsesPrevented)} / -${fmt(r.correctionsLost)})`,
      tierText(r.tiers),
    ]),
  );
  const notes = rs.filter((r) => r.note).map((r) => `- ${r.method}: ${r.note}`);
  return [
    table,
    ...pairedMarkdown(tests, referenceName),
    '',
    `utility = ${weights.collapse} x collapses prevented - ${weights.correction} x corrections lost, against ${referenceName} on the same questions (+prevented / -lost).`,
    statisticsNote(referenceName),
    pricingNote(rs),
    ...notes,
  ].join('\n');
}

/** A number for a CSV cell; NaN (no spread, no interval) is an empty cell. */
export const num = (x: number) => (Number.isNaN(x) ? '' : x);

/** A CSV with a header line; booleans written as true / false (not csv-stringify's 1 / empty). */
export const csvTable = (columns: string[], records: unknown[][]) => stringify(records, { header: true, columns, cast: { boolean: (b) => String(b) } });

export function csv(rs: Row[]): string {
  const rounds = Math.max(2, ...rs.map((r) => r.onsets.length - 1));
  const onsetColumns = Array.from({ length: rounds - 1 }, (_, i) => `onset_round_${i + 2}`);
  return csvTable(
    [
      'method',
      'policy',
      'n',
      'accuracy',
      'accuracy_sd',
      'accuracy_ci_low',
      'accuracy_ci_high',
      'accuracy_ci_method',
      'cost_pct',
      'cost_pct_sd',
      'cost_pct_ci_low',
      'cost_pct_ci_high',
      'kept_edges_pct',
      ...OUTCOMES,
      ...onsetColumns,
      'collapses_prevented',
      'corrections_lost',
      'utility',
      ...TIERS.map((t) => `tier_${t}_pct`),
      'priced_recorded_pct',
      'note',
    ],
    rs.map((r) => [
      r.method,
      r.policy,
      r.n,
      r.accuracy,
      num(r.accuracySd),
      num(r.accuracyLow),
      num(r.accuracyHigh),
      r.n === 1 ? 'wilson' : 't',
      r.costPct,
      num(r.costSd),
      num(r.costLow),
      num(r.costHigh),
      r.keptPct,
      ...OUTCOMES.map((o) => r.ledger[o]),
      ...onsetColumns.map((_, i) => r.onsets[i + 2] ?? 0),
      r.collapsesPrevented,
      r.correctionsLost,
      r.utility,
      ...TIERS.map((t) => r.tiers[t]),
      r.pricedRecordedPct,
      r.note,
    ]),
  );
}

export function pairedCsv(tests: PairedTest[]): string {
  return csvTable(
    [
      'policy',
      'method',
      'questions',
      'policy_runs',
      'method_runs',
      'delta_accuracy_pp',
      'delta_accuracy_ci_low',
      'delta_accuracy_ci_high',
      'mcnemar_p_min',
      'mcnemar_p_max',
      'mcnemar_pairs',
      'mcnemar_pairs_below_0.05',
      'delta_cost_pp',
      'delta_cost_ci_low',
      'delta_cost_ci_high',
      'accuracy_differs',
    ],
    tests.map((t) => [
      t.policy,
      t.method,
      t.questions,
      t.policyRuns,
      t.methodRuns,
      t.accuracy.estimate,
      t.accuracy.low,
      t.accuracy.high,
      t.mcnemar.pMin,
      t.mcnemar.pMax,
      t.mcnemar.pairs,
      t.mcnemar.below05,
      t.cost.estimate,
      t.cost.low,
      t.cost.high,
      t.differs,
    ]),
  );
}

/** The accuracy-cost plot of report rows: intervals as error bars, Full-Debate (by name) as reference lines. */
export function plot<R extends Row>(
  rs: R[],
  title: string,
  fullDebate: { accuracy: number; costPct: number } | undefined = rs.find((r) => r.method === 'Full-Debate'),
  kind = (r: R): string => (r.policy ? 'CPP policy' : 'baseline'),
): Promise<string> {
  const orNull = (x: number) => (Number.isNaN(x) ? null : x);
  return accuracyCostPlot(
    rs.map((r) => ({
      method: r.method,
      kind: kind(r),
      accuracy: r.accuracy,
      accuracyLow: orNull(r.accuracyLow),
      accuracyHigh: orNull(r.accuracyHigh),
      costPct: r.costPct,
      costLow: orNull(r.costLow),
      costHigh: orNull(r.costHigh),
    })),
    title,
    fullDebate,
  );
}

/** Write comparison.md (with the job's `notes` below the tables, as printed), comparison.csv, paired-tests.csv and accuracy-cost.svg into `dir`. */
export async function writeReport(
  dir: string,
  rs: Row[],
  tests: PairedTest[],
  referenceName: string,
  title: string,
  weights = { collapse: 1, correction: 1 },
  notes: string[] = [],
): Promise<string[]> {
  const files = [join(dir, 'comparison.md'), join(dir, 'comparison.csv'), join(dir, 'paired-tests.csv'), join(dir, 'accuracy-cost.svg')];
  writeFileAtomic(files[0], [`${[`${title}\n\n${markdown(rs, tests, referenceName, weights)}`, ...notes].join('\n\n')}\n`]);
  writeFileAtomic(files[1], [csv(rs)]);
  writeFileAtomic(files[2], [pairedCsv(tests)]);
  writeFileAtomic(files[3], [await plot(rs, title)]);
  return files;
}
