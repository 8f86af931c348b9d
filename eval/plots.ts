// Every plot of the workbench, as vega-lite specs rendered to SVG in Node: accuracy against cost
// (95% intervals as error bars, a legend instead of point labels, Full-Debate as reference lines,
// the Pareto frontier dashed) and learning curves (validation accuracy and keep rate by epoch, the
// spread over seeds as a band) of a grid or of a single training run.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vega from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';
import { z } from 'zod';
import { formatProblem, zodProblems } from '../src/cache/load.ts';
import { writeFileAtomic } from '../src/cache/write.ts';
import { runFiles } from '../train/runFolder.ts';

const SCHEMA = 'https://vega.github.io/schema/vega-lite/v5.json';

export function renderSvg(spec: TopLevelSpec): Promise<string> {
  return new vega.View(vega.parse(compile(spec).spec), { renderer: 'none' }).toSVG();
}

/** A method on the accuracy-cost plane; bounds are null where the method has no spread. */
export interface CostPoint {
  method: string;
  /** Legend group drawn as the point's shape (e.g. CPP policy, baseline). */
  kind: string;
  accuracy: number;
  accuracyLow: number | null;
  accuracyHigh: number | null;
  costPct: number;
  costLow: number | null;
  costHigh: number | null;
}

/** Methods no other method beats on both accuracy and cost. */
export function paretoFront(points: { method: string; accuracy: number; costPct: number }[]): Set<string> {
  return new Set(points.filter((r) => !points.some((o) => o !== r && o.accuracy >= r.accuracy && o.costPct <= r.costPct && (o.accuracy > r.accuracy || o.costPct < r.costPct))).map((r) => r.method));
}

export function accuracyCostPlot(points: CostPoint[], title: string, fullDebate?: { accuracy: number; costPct: number }): Promise<string> {
  const front = paretoFront(points);
  const values = points.map((p) => ({ ...p, pareto: front.has(p.method) }));
  // Policies first, so they get the first (strongest) colours of the scheme.
  const methods = [...points.filter((p) => p.kind !== 'baseline'), ...points.filter((p) => p.kind === 'baseline')].map((p) => p.method);
  const kinds = [...new Set(points.map((p) => p.kind))];
  const x = { field: 'costPct', type: 'quantitative', title: 'cost (% of Full-Debate)', scale: { zero: false } } as const;
  const y = { field: 'accuracy', type: 'quantitative', title: 'accuracy (%), 95% interval', scale: { zero: false } } as const;
  const color = { field: 'method', type: 'nominal', title: 'method', scale: { domain: methods, scheme: methods.length > 10 ? 'tableau20' : 'tableau10' }, legend: { labelLimit: 480, symbolLimit: 0 } } as const;
  const reference = fullDebate
    ? [
        { data: { values: [fullDebate] }, mark: { type: 'rule', strokeDash: [2, 2], color: '#999' }, encoding: { x: { field: 'costPct', type: 'quantitative' } } },
        { data: { values: [fullDebate] }, mark: { type: 'rule', strokeDash: [2, 2], color: '#999' }, encoding: { y: { field: 'accuracy', type: 'quantitative' } } },
        // Labelled left of the top of the vertical line, where points are rare (right of it is the legend).
        { data: { values: [fullDebate] }, mark: { type: 'text', align: 'right', baseline: 'top', dx: -3, dy: 3, fontSize: 10, color: '#666' }, encoding: { x: { field: 'costPct', type: 'quantitative' }, y: { value: 0 }, text: { value: 'Full-Debate (dotted)' } } },
      ]
    : [];
  const spec = {
    $schema: SCHEMA,
    title,
    width: 560,
    height: 380,
    data: { values },
    layer: [
      ...reference,
      { transform: [{ filter: 'datum.pareto' }], mark: { type: 'line', strokeDash: [5, 4], color: '#777' }, encoding: { x, y, order: { field: 'costPct' } } },
      { transform: [{ filter: 'isValid(datum.accuracyLow)' }], mark: { type: 'rule', strokeWidth: 1.5 }, encoding: { x, y: { field: 'accuracyLow', type: 'quantitative' }, y2: { field: 'accuracyHigh' }, color } },
      { transform: [{ filter: 'isValid(datum.costLow)' }], mark: { type: 'rule', strokeWidth: 1.5 }, encoding: { y, x: { field: 'costLow', type: 'quantitative' }, x2: { field: 'costHigh' }, color } },
      {
        mark: { type: 'point', filled: true, size: 90, opacity: 1, stroke: 'black', strokeWidth: 0.5 },
        encoding: { x, y, color, ...(kinds.length > 1 && { shape: { field: 'kind', type: 'nominal', title: null, scale: { domain: kinds } } }), tooltip: [{ field: 'method' }, { field: 'accuracy' }, { field: 'costPct' }] },
      },
    ],
    config: { legend: { orient: 'right' } },
  } as TopLevelSpec;
  return renderSvg(spec);
}

/** One value of a learning curve: `series` is a line, `run` one of its seeds. */
export interface CurvePoint {
  series: string;
  run: string;
  epoch: number;
  metric: (typeof CURVE_METRICS)[number];
  value: number;
}

export const CURVE_METRICS = ['accuracy (%)', 'keep rate (%)'] as const;

/**
 * Two panels sharing the epoch axis (integer ticks): accuracy and keep rate by epoch, a line per
 * series at the mean over its runs, with a band from the lowest to the highest run.
 */
export function learningCurvesPlot(points: CurvePoint[], title: string): Promise<string> {
  const series = [...new Set(points.map((p) => p.series))];
  const color = { field: 'series', type: 'nominal', title: null, scale: { domain: series, scheme: series.length > 10 ? 'tableau20' : 'tableau10' }, legend: { labelLimit: 480, symbolType: 'stroke', symbolStrokeWidth: 3, symbolOpacity: 1 } } as const;
  const epoch = { field: 'epoch', type: 'quantitative', title: 'epoch', axis: { tickMinStep: 1, format: 'd' }, scale: { nice: false } } as const;
  const panel = (metric: CurvePoint['metric'], last: boolean) => ({
    width: 560,
    height: 220,
    transform: [
      { filter: { field: 'metric', equal: metric } },
      { aggregate: [{ op: 'mean', field: 'value', as: 'mean' }, { op: 'min', field: 'value', as: 'low' }, { op: 'max', field: 'value', as: 'high' }, { op: 'distinct', field: 'run', as: 'runs' }], groupby: ['series', 'epoch'] },
    ],
    layer: [
      { mark: { type: 'area', opacity: 0.18 }, encoding: { x: epoch, y: { field: 'low', type: 'quantitative' }, y2: { field: 'high' }, color } },
      {
        mark: { type: 'line', point: true },
        encoding: {
          x: last ? epoch : { ...epoch, title: null },
          y: { field: 'mean', type: 'quantitative', title: metric, scale: { zero: false } },
          color,
          tooltip: [{ field: 'series' }, { field: 'epoch' }, { field: 'mean', format: '.1f' }, { field: 'low', format: '.1f' }, { field: 'high', format: '.1f' }, { field: 'runs' }],
        },
      },
    ],
  });
  const spec = {
    $schema: SCHEMA,
    title,
    data: { values: points },
    vconcat: CURVE_METRICS.map((m, i) => panel(m, i === CURVE_METRICS.length - 1)),
    resolve: { scale: { color: 'shared' } },
  } as TopLevelSpec;
  return renderSvg(spec);
}

// The columns of a run's log.jsonl (train/trainer.ts LOG_COLUMNS) that the curves read; other
// columns are ignored.
const LogLine = z.object({
  type: z.string(),
  epoch: z.number().int().optional(),
  accuracy: z.number().optional(),
  keptEdges: z.number().optional(),
  keepRate: z.number().optional(),
});

/**
 * Learning curves of one run from its log.jsonl: validation accuracy and kept edges (greedy
 * decisions) at every evaluation, and training accuracy and keep rate (sampled decisions) as the
 * mean over each epoch's steps.
 */
export function readRunCurves(out: string, run = out): CurvePoint[] {
  const file = runFiles(out).jsonl;
  if (!existsSync(file)) throw new Error(`${file}: file not found`);
  const points: CurvePoint[] = [];
  const steps = new Map<number, { accuracy: number; keepRate: number; n: number }>();
  readFileSync(file, 'utf8').split('\n').forEach((text, i) => {
    if (!text.trim()) return;
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (e) {
      throw new Error(`${file}:${i + 1}: invalid JSON: ${(e as Error).message}`);
    }
    const parsed = LogLine.safeParse(json);
    if (!parsed.success) throw new Error(zodProblems(parsed.error.issues, file, i + 1).map(formatProblem).join('\n'));
    const l = parsed.data;
    if (l.epoch === undefined) return;
    if (l.type === 'eval') {
      if (l.accuracy !== undefined) points.push({ series: 'validation (greedy)', run, epoch: l.epoch, metric: 'accuracy (%)', value: 100 * l.accuracy });
      if (l.keptEdges !== undefined) points.push({ series: 'validation (greedy)', run, epoch: l.epoch, metric: 'keep rate (%)', value: 100 * l.keptEdges });
    }
    if (l.type === 'step' && l.accuracy !== undefined && l.keepRate !== undefined) {
      const s = steps.get(l.epoch) ?? { accuracy: 0, keepRate: 0, n: 0 };
      steps.set(l.epoch, { accuracy: s.accuracy + l.accuracy, keepRate: s.keepRate + l.keepRate, n: s.n + 1 });
    }
  });
  for (const [epoch, s] of steps) {
    points.push({ series: 'training (sampled)', run, epoch, metric: 'accuracy (%)', value: (100 * s.accuracy) / s.n });
    points.push({ series: 'training (sampled)', run, epoch, metric: 'keep rate (%)', value: (100 * s.keepRate) / s.n });
  }
  return points;
}

/** Write `learning-curves.svg` into a run folder from its log.jsonl; returns its path. */
export async function writeRunCurves(out: string): Promise<string> {
  const file = join(out, 'learning-curves.svg');
  writeFileAtomic(file, [await learningCurvesPlot(readRunCurves(out), `${out}: accuracy and keep rate by epoch`)]);
  return file;
}
