// Comparison reports (docs/method.md §9), as shown: the rows and paired tests of comparison.ts as Markdown on
// screen (with the notes saying how the intervals, tests and prices are computed), numeric CSVs and
// an accuracy-versus-cost SVG on disk; and the cell formats (signed differences, intervals, CSV
// tables) the other reports share.
import { stringify } from 'csv-stringify/sync';
import { join } from 'node:path';
import { writeFilesAtomic } from '../src/io/atomic.ts';
import { markdownTable } from '../src/table.ts';
import { TIERS, type TierCounts } from '../src/env/tiers.ts';
import type { PairedTest, Row } from './comparison.ts';
import { OUTCOMES } from '../src/env/ledger.ts';
import { accuracyCostPlot } from './plots.ts';
import { formatP } from '../src/significance.ts';
import { stopPoint } from '../src/io/interrupt.ts';

/**
 * How a report's calls were priced: recorded input-token counts where the call is the recorded
 * one, computed ones elsewhere, with the share of each method below 100% recorded.
 */
export function pricingNote(rs: Row[]): string {
  const partial = rs.filter((r) => r.pricedRecordedPct < 100);
  const rule =
    "input tokens of a call are its response's recorded inTokens where the response was recorded with exactly that context " +
    '(round-1 answers, exact and record tiers), else computed as promptTokens + the outTokens of the kept responses (signature and model tiers)';
  if (!partial.length) return `Pricing: every call priced from its recorded input-token count (${rule}).`;
  const shares = rs.map((r) => `${r.method} ${r.pricedRecordedPct.toFixed(0)}%`).join(', ');
  return `Pricing: ${rule}. Calls priced from recorded counts: ${shares}; the rest computed.`;
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

/** How the intervals and tests of a comparison report are computed (its footnote, and docs/training.md's). */
export function statisticsNote(referenceName: string): string {
  return [
    'Accuracy 95% CI: Wilson score interval over the questions for one run; Student t interval of the mean over the runs (seeds) for several ' +
      '(it covers the spread over seeds on these questions, not question sampling). Cost: t interval over runs where there are several.',
    'Paired tests, on the same questions (Δ = policy minus method): the 95% interval is a percentile bootstrap over questions ' +
      "(5000 resamples, seeded by the two methods' names, so a report is reproducible), each question's accuracy and cost averaged over a method's runs; " +
      `Δ cost is in percentage points of ${referenceName}'s cost on the same resampled questions. ` +
      'McNemar: exact two-sided binomial test on the discordant questions of each pair (policy run, method run); ' +
      'several pairs show the range of p and how many are below 0.05. "accuracy differs": the bootstrap interval excludes 0. ' +
      'No correction for multiple comparisons.',
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
    `utility = ${weights.collapse} x collapses prevented - ${weights.correction} x corrections lost, ` +
      `against ${referenceName} on the same questions (+prevented / -lost).`,
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
      n: r.n,
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

/**
 * Write comparison.md (with the job's `notes` below the tables, as printed), comparison.csv,
 * paired-tests.csv and accuracy-cost.svg into `dir`, together: a failed write leaves the report there as it was.
 */
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
  const svg = await plot(rs, title);
  await stopPoint(); // a signal that came while the plot was drawn stops the command before anything is written
  writeFilesAtomic([
    [files[0], [`${[`${title}\n\n${markdown(rs, tests, referenceName, weights)}`, ...notes].join('\n\n')}\n`]],
    [files[1], [csv(rs)]],
    [files[2], [pairedCsv(tests)]],
    [files[3], [svg]],
  ]);
  return files;
}
