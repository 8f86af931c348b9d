// `fidelity`, the report: what eval/fidelity.ts measured as the printed text (the title, the table
// of the methods under both tiers with the rankings' tau, the round-2 bias table, each with the note
// saying how it is computed) and as the CSVs the job writes beside it (fidelity.csv, context-bias.csv).
import type { Split } from '../src/cache/format.ts';
import { teamIds, type Environment } from '../src/env/environment.ts';
import { markdownTable } from '../src/table.ts';
import type { BiasCell, FidelityMeasurement, FidelityRow, Plan } from './fidelity.ts';
import { csvTable, interval, signed, tierText } from './report.ts';

/** "49.7 ± 0.9" over several runs, "48.1" for one. */
const withSd = (mean: number, sd: number) => (Number.isNaN(sd) ? mean.toFixed(1) : `${mean.toFixed(1)} ± ${sd.toFixed(1)}`);

export function fidelityMarkdown(rows: FidelityRow[], tau: { accuracy: number; cost: number }): string {
  const within = rows.filter((r) => Math.abs(r.delta.accuracy.estimate) <= 1).length;
  return [
    markdownTable(
      [
        'method',
        'runs',
        'accuracy % model',
        'accuracy % record',
        'Δ accuracy pp',
        '95% CI',
        'cost % model',
        'cost % record',
        'Δ cost pp',
        '95% CI',
        'tiers (model)',
        'tiers (record)',
        'where it went: model bias pp (asked)',
        '95% CI',
      ],
      rows.map((r) => [
        r.method,
        r.runs,
        withSd(r.accuracy.model, r.sd.model),
        withSd(r.accuracy.record, r.sd.record),
        signed(r.delta.accuracy.estimate),
        interval(r.delta.accuracy.low, r.delta.accuracy.high, signed),
        r.cost.model.toFixed(1),
        r.cost.record.toFixed(1),
        signed(r.delta.cost.estimate),
        interval(r.delta.cost.low, r.delta.cost.high, signed),
        tierText(r.tiers.model),
        tierText(r.tiers.record),
        r.visited ? `${signed(r.visited.estimate)} (${r.visited.asked} of ${r.visited.lookups})` : '-',
        r.visited ? interval(r.visited.low, r.visited.high, signed) : '-',
      ]),
    ),
    '',
    `Kendall's tau-b of the ${rows.length} methods ranked by accuracy under model and under record: ${tau.accuracy.toFixed(3)}; ` +
      `by cost: ${tau.cost.toFixed(3)}. Methods within 1 pp: ${within} of ${rows.length}.`,
    "Δ = model − record on the same questions and seeds; 95% percentile bootstrap over questions (5000 resamples), a method's runs averaged " +
      "per question; accuracy ± its sd over the runs. Cost % and Δ cost are of Full-Debate's cost under record on the same questions. " +
      'Tiers: the shares of the revision lookups each tier answered in the miss = model and the miss = record replay.',
    "Where it went: at the lookups the tier-3 model answered in the method's miss = model replay (asked: how many of them, evenly spaced, " +
      "were put to the endpoint, each as often as the bias table's samples), the model's probability of the gold answer minus the endpoint's " +
      'share of right answers, pp, 95% bootstrap over questions. Near 0 with a large Δ: the model answers right where the method goes, ' +
      'and the gap comes from how the debate unfolds from there (other texts, other decisions); not near 0: the method goes where the model is wrong.',
  ].join('\n');
}

export function biasMarkdown(cells: BiasCell[], samples: number): string {
  const names = cells[0].models.map((m) => m.name);
  return [
    markdownTable(
      ['round-2 contexts', 'n', 'endpoint accuracy %', ...names.flatMap((m) => [`${m}: expected %`, 'bias pp', '95% CI'])],
      cells.map((c) => [
        c.cell,
        c.contexts,
        c.endpoint.toFixed(1),
        ...c.models.flatMap((m) => [
          m.expected.toFixed(1),
          Number.isNaN(m.bias.estimate) ? '-' : signed(m.bias.estimate),
          interval(m.bias.low, m.bias.high, signed),
        ]),
      ]),
    ),
    '',
    `Every subset of candidates each recipient may keep in round 2, on every question: the endpoint answering (${samples} samples each) ` +
      "against each model's probability of the gold answer; bias = model − endpoint, 95% percentile bootstrap over questions.",
  ].join('\n');
}

/** The report as printed and written to fidelity.md: what was compared on what, the methods under both tiers, the round-2 bias. */
export function fidelityText(env: Environment, split: Split, plan: Plan, m: FidelityMeasurement, samples: number): string {
  const { cache, settings } = env;
  const title =
    `Fidelity of the tier-3 response model (${settings.responseModel} form): ${cache.header.name} (${cache.header.source}), ${split} split, ` +
    `${plan.questions.length} questions, team ${teamIds(env).join(', ')}, miss = model against miss = record, debate seed ${settings.seed}` +
    (plan.masks.length ? `, random pruning and static mask seeds 0..${plan.seeds.length - 1}` : ' (no train split: no static mask)');
  return [title, '', fidelityMarkdown(m.rows, m.tau), '', 'Bias of the response model on round-2 contexts', '', biasMarkdown(m.bias, samples)].join('\n');
}

/** fidelity.csv: a line per method, the numbers of the methods' table. */
export function fidelityCsv(rows: FidelityRow[]): string {
  return csvTable(
    [
      'method',
      'runs',
      'accuracy_model',
      'accuracy_record',
      'delta_accuracy_pp',
      'delta_accuracy_ci_low',
      'delta_accuracy_ci_high',
      'cost_pct_model',
      'cost_pct_record',
      'delta_cost_pp',
      'delta_cost_ci_low',
      'delta_cost_ci_high',
      'tier_model_pct',
      'tier_exact_pct',
      'tier_signature_pct',
      'record_tier_record_pct',
      'accuracy_model_sd',
      'accuracy_record_sd',
      'visited_bias_pp',
      'visited_bias_ci_low',
      'visited_bias_ci_high',
      'visited_asked',
      'visited_lookups',
    ],
    rows.map((r) => [
      r.method,
      r.runs,
      r.accuracy.model,
      r.accuracy.record,
      r.delta.accuracy.estimate,
      r.delta.accuracy.low,
      r.delta.accuracy.high,
      r.cost.model,
      r.cost.record,
      r.delta.cost.estimate,
      r.delta.cost.low,
      r.delta.cost.high,
      r.tiers.model.model,
      r.tiers.model.exact,
      r.tiers.model.signature,
      r.tiers.record.record,
      Number.isNaN(r.sd.model) ? '' : r.sd.model,
      Number.isNaN(r.sd.record) ? '' : r.sd.record,
      r.visited?.estimate ?? '',
      r.visited?.low ?? '',
      r.visited?.high ?? '',
      r.visited?.asked ?? 0,
      r.visited?.lookups ?? 0,
    ]),
  );
}

/** context-bias.csv: a line per cell of the bias table and model. */
export function contextBiasCsv(bias: BiasCell[]): string {
  return csvTable(
    ['cell', 'contexts', 'endpoint_accuracy', 'model', 'expected_accuracy', 'bias_pp', 'bias_ci_low', 'bias_ci_high'],
    bias.flatMap((c) => c.models.map((m) => [c.cell, c.contexts, c.endpoint, m.name, m.expected, m.bias.estimate, m.bias.low, m.bias.high])),
  );
}
