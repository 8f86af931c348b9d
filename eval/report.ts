// Comparison reports (SPEC §9): one row per method, aggregated over its runs (seeds) as mean ±
// sample sd with n; Markdown on screen, CSV and an accuracy-versus-cost SVG (Pareto frontier
// marked) on disk.
import { stringify } from 'csv-stringify/sync';
import { join } from 'node:path';
import * as vega from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';
import { writeFileAtomic } from '../src/cache/write.ts';
import { markdownTable } from '../src/table.ts';
import { addTiers, emptyTiers, TIERS } from '../src/env/environment.ts';
import type { MethodResult } from './baselines.ts';
import { OUTCOMES, signedUtility, summarize } from './ledger.ts';

export interface MethodGroup {
  method: string;
  runs: MethodResult[];
}

const mean = (x: number[]) => x.reduce((a, b) => a + b, 0) / x.length;
const sd = (x: number[]) => (x.length < 2 ? NaN : Math.sqrt(x.reduce((a, b) => a + (b - mean(x)) ** 2, 0) / (x.length - 1)));
export interface Row {
  method: string;
  n: number;
  accuracy: number;
  accuracySd: number;
  costPct: number;
  keptPct: number;
  ledger: Record<(typeof OUTCOMES)[number], number>;
  onsets: number[];
  collapsesPrevented: number;
  correctionsLost: number;
  utility: number;
  /** Share of each lookup tier over the revisions of every run. */
  tiers: string;
  note: string;
}

function tierShares(runs: MethodResult[]): string {
  const t = emptyTiers();
  runs.forEach((r) => addTiers(t, r.tiers));
  const total = TIERS.reduce((s, k) => s + t[k], 0);
  return total ? TIERS.filter((k) => t[k] > 0).map((k) => `${k} ${((100 * t[k]) / total).toFixed(0)}%`).join(', ') : '-';
}

export function rows(groups: MethodGroup[], reference: MethodResult, weights = { collapse: 1, correction: 1 }): Row[] {
  const rounds = Math.max(1, ...groups.flatMap((g) => g.runs.flatMap((r) => r.ledger.map((e) => e.onset ?? 1))));
  return groups.map((g) => {
    const acc = g.runs.map((r) => (100 * r.correct) / r.questions);
    const ledgers = g.runs.map((r) => summarize(r.ledger, rounds));
    const utilities = g.runs.map((r) => signedUtility(r.ledger, reference.ledger, weights.collapse, weights.correction));
    return {
      method: g.method,
      n: g.runs.length,
      accuracy: mean(acc),
      accuracySd: sd(acc),
      costPct: mean(g.runs.map((r) => (100 * r.cost) / reference.cost)),
      keptPct: mean(g.runs.map((r) => (100 * r.keptEdges) / r.maxEdges)),
      ledger: Object.fromEntries(OUTCOMES.map((o) => [o, mean(ledgers.map((l) => l.counts[o]))])) as Row['ledger'],
      onsets: ledgers[0].onsets.map((_, t) => mean(ledgers.map((l) => l.onsets[t]))),
      collapsesPrevented: mean(utilities.map((u) => u.collapsesPrevented)),
      correctionsLost: mean(utilities.map((u) => u.correctionsLost)),
      utility: mean(utilities.map((u) => u.utility)),
      tiers: tierShares(g.runs),
      note: g.runs.map((r) => r.note).filter(Boolean).join('; '),
    };
  });
}

const fmt = (x: number) => (Number.isInteger(x) ? String(x) : x.toFixed(1));

export function markdown(rs: Row[], referenceName: string, weights = { collapse: 1, correction: 1 }): string {
  const table = markdownTable(
    ['method', 'accuracy % (mean ± sd, n)', 'cost %', 'kept edges %', ...OUTCOMES, 'onset by round', `utility vs ${referenceName}`, 'tiers (revisions)'],
    rs.map((r) => [
      r.method,
      r.n === 1 ? `${r.accuracy.toFixed(1)} (n = 1)` : `${r.accuracy.toFixed(1)} ± ${r.accuracySd.toFixed(1)} (n = ${r.n})`,
      r.costPct.toFixed(1), r.keptPct.toFixed(1), ...OUTCOMES.map((o) => fmt(r.ledger[o])),
      r.onsets.slice(2).map((n, i) => `r${i + 2}:${fmt(n)}`).join(' ') || '-',
      `${fmt(r.utility)} (+${fmt(r.collapsesPrevented)} / -${fmt(r.correctionsLost)})`,
      r.tiers,
    ]),
  );
  const notes = rs.filter((r) => r.note).map((r) => `- ${r.method}: ${r.note}`);
  return [table, '', `utility = ${weights.collapse} x collapses prevented - ${weights.correction} x corrections lost, against ${referenceName} on the same questions (+prevented / -lost).`, ...notes].join('\n');
}

function csv(rs: Row[]): string {
  return stringify(
    rs.map((r) => [r.method, r.n, r.accuracy, Number.isNaN(r.accuracySd) ? '' : r.accuracySd, r.costPct, r.keptPct, ...OUTCOMES.map((o) => r.ledger[o]), r.onsets.slice(2).join(' '), r.collapsesPrevented, r.correctionsLost, r.utility, r.tiers, r.note]),
    { header: true, columns: ['method', 'n', 'accuracy', 'accuracy_sd', 'cost_pct', 'kept_edges_pct', ...OUTCOMES, 'onsets_by_round', 'collapses_prevented', 'corrections_lost', 'utility', 'tiers', 'note'] },
  );
}

/** Methods no other method beats on both accuracy and cost. */
export function paretoFront(rs: Row[]): Set<string> {
  return new Set(rs.filter((r) => !rs.some((o) => o !== r && o.accuracy >= r.accuracy && o.costPct <= r.costPct && (o.accuracy > r.accuracy || o.costPct < r.costPct))).map((r) => r.method));
}

export async function plot(rs: Row[], title: string): Promise<string> {
  const front = paretoFront(rs);
  const values = rs.map((r) => ({ method: r.method, cost: r.costPct, accuracy: r.accuracy, pareto: front.has(r.method) ? 'Pareto frontier' : 'dominated' }));
  const spec: TopLevelSpec = {
    $schema: 'https://vega.github.io/schema/vega-lite/v5.json',
    title,
    width: 560,
    height: 380,
    data: { values },
    layer: [
      { transform: [{ filter: "datum.pareto === 'Pareto frontier'" }], mark: { type: 'line', strokeDash: [4, 3], color: '#888' }, encoding: { x: { field: 'cost', type: 'quantitative' }, y: { field: 'accuracy', type: 'quantitative' }, order: { field: 'cost' } } },
      { mark: { type: 'point', filled: true, size: 80 }, encoding: { x: { field: 'cost', type: 'quantitative', title: 'cost (% of Full-Debate)' }, y: { field: 'accuracy', type: 'quantitative', title: 'accuracy (%)', scale: { zero: false } }, color: { field: 'pareto', type: 'nominal', title: null } } },
      { mark: { type: 'text', align: 'left', dx: 7, fontSize: 10 }, encoding: { x: { field: 'cost', type: 'quantitative' }, y: { field: 'accuracy', type: 'quantitative' }, text: { field: 'method' } } },
    ],
  };
  const view = new vega.View(vega.parse(compile(spec).spec), { renderer: 'none' });
  return view.toSVG();
}

/** Write comparison.md, comparison.csv and accuracy-cost.svg into `dir`. */
export async function writeReport(dir: string, rs: Row[], referenceName: string, title: string, weights = { collapse: 1, correction: 1 }): Promise<string[]> {
  const files = [join(dir, 'comparison.md'), join(dir, 'comparison.csv'), join(dir, 'accuracy-cost.svg')];
  writeFileAtomic(files[0], [`${title}\n\n${markdown(rs, referenceName, weights)}\n`]);
  writeFileAtomic(files[1], [csv(rs)]);
  writeFileAtomic(files[2], [await plot(rs, title)]);
  return files;
}
