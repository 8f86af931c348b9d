// The Table 6 style ablation table of a grid (docs/method.md §9): a row per variant (and cache) with
// accuracy mean, sd, n and 95% interval over seeds, cost %, kept edges, collapses, corrections,
// signed utility against Full-Debate, the difference to the reference variant with two tests
// (a paired bootstrap over questions and Welch's t-test over seeds), and the tiers that answered
// each variant's revisions (a replayed figure is only as true as its tiers). As Markdown and a numeric CSV,
// with plots of accuracy against cost and of learning curves.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Split } from '../src/cache/format.ts';
import { ensureEmbeddings } from '../src/cache/embeddings.ts';
import { loadCache } from '../src/cache/load.ts';
import { writeFilesAtomic } from '../src/io/atomic.ts';
import { makeEnvironment, splitQuestions } from '../src/env/environment.ts';
import { readAnyPolicy } from '../train/checkpoint.ts';
import { encoderFor } from '../src/policy/inference.ts';
import type { ComputeSettings } from '../src/policy/backends.ts';
import { inferenceEngine } from '../src/policy/createEngine.ts';
import { markdownTable } from '../src/table.ts';
import { reuseNote, type CellOutcome, type GridFile } from '../train/grid.ts';
import { runFiles } from '../train/runFolder.ts';
import type { MethodResult } from '../src/env/tally.ts';
import { fullDebate } from './baselines.ts';
import { evaluatePolicy } from '../src/policy/evaluate.ts';
import { learningCurvesPlot, readRunCurves, type CurvePoint } from '../train/curves.ts';
import { perQuestion, rows, type MethodGroup, type Row } from './comparison.ts';
import { csvTable, interval, meanSd, num, plot, pricingNote, signed, tierText } from './report.ts';
import { TIERS } from '../src/env/tiers.ts';
import { excludesZero, formatP, pairedDifference, welch, type Estimate } from '../src/significance.ts';
import { fewQuestionsNote } from '../train/smallData.ts';

export interface AblationRow extends Row {
  variant: string;
  cache: string;
  reference: boolean;
  /** Variant minus reference variant: accuracy (pp) and cost (pp of Full-Debate), paired bootstrap over questions. */
  delta: { accuracy: Estimate; cost: Estimate } | null;
  /** Welch's t-test of the accuracies over seeds against the reference variant's. */
  welch: { t: number; df: number; p: number } | null;
}

/** Which of the two tests find a difference from the reference variant. */
export function differs(r: AblationRow): string {
  if (!r.delta || !r.welch) return '-';
  const questions = excludesZero(r.delta.accuracy);
  const seeds = r.welch.p < 0.05;
  return questions && seeds ? 'yes (both)' : questions ? 'over questions only' : seeds ? 'over seeds only' : 'no';
}

export const TESTS_NOTE =
  'Accuracy 95% CI: Student t interval of the mean over seeds (Wilson over the questions for a single seed). ' +
  'Against the reference variant (Δ = variant minus reference): the 95% CI is a percentile bootstrap over the test questions ' +
  "(5000 resamples, seeded by the two names), each question's accuracy averaged over the seeds of each variant, so it covers question sampling; " +
  "Welch p is Welch's two-sided t-test on the per-seed accuracies, so it covers seed-to-seed spread " +
  '("-" when neither variant spreads or one has a single seed). "differs": which of the two finds a difference at the 5% level; ' +
  '"yes (both)" is the claim we make. No correction for multiple comparisons.';

/** `onCell` is called after each cell is evaluated (a progress bar of the evaluation). */
export async function ablationReport(
  grid: GridFile,
  outcomes: CellOutcome[],
  results: string,
  split: Split,
  compute: ComputeSettings,
  onCell: () => void = () => {},
): Promise<{ markdown: string; files: string[] }> {
  const referenceName = grid.reference ?? grid.variants[0].name;
  const rs: AblationRow[] = [];
  const fullAccuracy: string[] = [];
  const fullPoints: { accuracy: number; costPct: number }[] = [];
  const fewNotes: string[] = [];
  const curves: CurvePoint[] = [];
  for (const cachePath of grid.caches) {
    const cache = loadCache(cachePath);
    // The debate the variants prune.
    const env = makeEnvironment(cache, { agents: grid.base.agents, rounds: grid.base.rounds, allowUnrecordedRounds: grid.base.allowUnrecordedRounds });
    const { questions } = splitQuestions(env, split);
    const full = await fullDebate(env, questions);
    fullAccuracy.push(`${((100 * full.correct) / full.questions).toFixed(1)}% on ${cachePath}`);
    fullPoints.push({ accuracy: (100 * full.correct) / full.questions, costPct: 100 });
    const few = fewQuestionsNote(`${split} split of ${cachePath} (Full-Debate)`, full.questions, full.correct);
    if (few) fewNotes.push(few);
    const groups: (MethodGroup & { variant: string })[] = [];
    // One read of a cache's embeddings per encoder, not one per cell (a file of ~100 MB).
    const embeddings = new Map<string, Awaited<ReturnType<typeof ensureEmbeddings>>>();
    for (const v of grid.variants) {
      const label = grid.caches.length > 1 ? `${v.name} [${cachePath}]` : v.name;
      const runs: MethodResult[] = [];
      for (const o of outcomes.filter((x) => x.cell.variant === v.name && x.cell.cache === cachePath && x.status !== 'failed')) {
        const artifact = readAnyPolicy(runFiles(o.cell.settings.out).best);
        const engine = await inferenceEngine(compute, artifact.shape, artifact.weights);
        if (!embeddings.has(artifact.encoder)) embeddings.set(artifact.encoder, await ensureEmbeddings(cachePath, cache, await encoderFor(artifact.encoder)));
        const emb = embeddings.get(artifact.encoder)!;
        const runEnv = makeEnvironment(cache, {
          agents: artifact.team,
          rounds: artifact.shape.rounds,
          allowUnrecordedRounds: o.cell.settings.allowUnrecordedRounds,
        });
        runs.push(await evaluatePolicy(engine, runEnv, emb, questions, o.cell.id));
        engine.dispose();
        onCell();
        if (existsSync(runFiles(o.cell.settings.out).jsonl))
          for (const p of readRunCurves(o.cell.settings.out, `seed ${o.cell.seed}`))
            if (p.series.startsWith('validation')) curves.push({ ...p, series: label });
      }
      if (runs.length) groups.push({ method: label, runs, policy: true, variant: v.name });
    }
    // Cost %, utility and the difference to the reference variant are within the same cache.
    const ref = groups.find((g) => g.variant === referenceName);
    const fullCost = full.outcomes.map((o) => o.cost);
    const order = full.outcomes.map((o) => o.q);
    const accuracies = (g: MethodGroup) => g.runs.map((r) => (100 * r.correct) / r.questions);
    rows(groups, full).forEach((r, k) => {
      const g = groups[k];
      const compared = ref && g !== ref;
      rs.push({
        ...r,
        variant: g.variant,
        cache: cachePath,
        reference: g === ref,
        delta: compared
          ? pairedDifference(perQuestion(g.method, g.runs, order), perQuestion(ref.method, ref.runs, order), fullCost, { seed: `${g.method} vs ${ref.method}` })
          : null,
        welch: compared ? welch(accuracies(g), accuracies(ref)) : null,
      });
    });
  }
  const header = [
    'variant',
    'accuracy % (mean ± sd, n)',
    '95% CI',
    'cost % (mean ± sd)',
    'kept edges %',
    'collapse',
    'correction',
    'utility vs Full-Debate',
    `Δ accuracy vs ${referenceName}`,
    '95% CI (paired bootstrap)',
    'Welch p',
    'differs',
    'tiers (revisions)',
  ];
  const cells = (r: AblationRow) => [
    r.method,
    meanSd(r.accuracy, r.accuracySd, r.n),
    interval(r.accuracyLow, r.accuracyHigh),
    r.n === 1 ? r.costPct.toFixed(1) : `${r.costPct.toFixed(1)} ± ${r.costSd.toFixed(1)}`,
    r.keptPct.toFixed(1),
    r.ledger.collapse.toFixed(1),
    r.ledger.correction.toFixed(1),
    `${r.utility.toFixed(1)} (+${r.collapsesPrevented.toFixed(1)} / -${r.correctionsLost.toFixed(1)})`,
    r.delta ? signed(r.delta.accuracy.estimate) : r.reference ? 'reference' : '-',
    r.delta ? interval(r.delta.accuracy.low, r.delta.accuracy.high, signed) : '-',
    r.welch ? formatP(r.welch.p) : '-',
    differs(r),
    tierText(r.tiers),
  ];
  const failed = outcomes.filter((o) => o.status === 'failed').map((o) => `- failed: ${o.cell.id}: ${o.error}`);
  const markdown = [
    `${grid.name}: ${split} split; Full-Debate ${fullAccuracy.join(', ')}; utility = collapses prevented - corrections lost against Full-Debate`,
    '',
    markdownTable(header, rs.map(cells)),
    '',
    TESTS_NOTE,
    reuseNote(outcomes),
    pricingNote(rs),
    ...fewNotes,
    ...failed,
  ].join('\n');
  const files = [join(results, 'table6.md'), join(results, 'table6.csv'), join(results, 'accuracy-cost.svg'), join(results, 'learning-curves.svg')];
  const title = `${grid.name}: accuracy against cost (${split} split)`;
  const svg = await plot(rs, title, fullPoints.length === 1 ? fullPoints[0] : undefined, (r) => (r.reference ? 'reference variant' : 'variant'));
  const curvesSvg = await learningCurvesPlot(curves, `${grid.name}: validation accuracy and keep rate by epoch`);
  // Together: a failed write (a full disk) leaves the table there as it was.
  writeFilesAtomic([
    [files[0], [markdown + '\n']],
    [files[1], [csv(rs)]],
    [files[2], [svg]],
    [files[3], [curvesSvg]],
  ]);
  return { markdown, files };
}

/** table6.csv: every number in a column of its own. */
export function csv(rs: AblationRow[]): string {
  return csvTable(
    [
      'variant',
      'cache',
      'reference',
      'n',
      'accuracy_mean',
      'accuracy_sd',
      'accuracy_ci_low',
      'accuracy_ci_high',
      'cost_pct_mean',
      'cost_pct_sd',
      'cost_pct_ci_low',
      'cost_pct_ci_high',
      'kept_edges_pct',
      'collapse',
      'correction',
      'utility',
      'collapses_prevented',
      'corrections_lost',
      'delta_accuracy_pp',
      'delta_accuracy_ci_low',
      'delta_accuracy_ci_high',
      'delta_cost_pp',
      'delta_cost_ci_low',
      'delta_cost_ci_high',
      'welch_t',
      'welch_df',
      'welch_p',
      'differs_over_questions',
      'differs_over_seeds',
      ...TIERS.map((t) => `tier_${t}_pct`),
    ],
    rs.map((r) => [
      r.variant,
      r.cache,
      r.reference,
      r.n,
      r.accuracy,
      num(r.accuracySd),
      num(r.accuracyLow),
      num(r.accuracyHigh),
      r.costPct,
      num(r.costSd),
      num(r.costLow),
      num(r.costHigh),
      r.keptPct,
      r.ledger.collapse,
      r.ledger.correction,
      r.utility,
      r.collapsesPrevented,
      r.correctionsLost,
      ...(r.delta
        ? [r.delta.accuracy.estimate, r.delta.accuracy.low, r.delta.accuracy.high, r.delta.cost.estimate, r.delta.cost.low, r.delta.cost.high]
        : ['', '', '', '', '', '']),
      ...(r.welch ? [num(r.welch.t), num(r.welch.df), num(r.welch.p)] : ['', '', '']),
      r.delta ? excludesZero(r.delta.accuracy) : '',
      r.welch && !Number.isNaN(r.welch.p) ? r.welch.p < 0.05 : '',
      ...TIERS.map((t) => r.tiers[t]),
    ]),
  );
}
