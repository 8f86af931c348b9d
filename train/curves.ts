// Learning curves of training runs: validation accuracy and keep rate by epoch, the spread over
// seeds as a band. A run writes its own (learning-curves.svg); grids (eval/table6.ts) draw theirs.
import { existsSync } from 'node:fs';
import type { TopLevelSpec } from 'vega-lite';
import { writeFileAtomic } from '../src/io/atomic.ts';
import { categoryStyles, renderSvg, VEGA_LITE_SCHEMA } from '../src/plot.ts';
import { readLog, runFiles } from './runFolder.ts';
import { InputError } from '../src/io/errors.ts';

/** One value of a learning curve: `series` is a line, `run` one of its seeds. */
export interface CurvePoint {
  series: string;
  run: string;
  epoch: number;
  metric: (typeof CURVE_METRICS)[number];
  value: number;
}

export const CURVE_METRICS = ['accuracy (%)', 'keep rate (%)'] as const;

/** What the lines and bands are, for the runs behind them. */
export function curvesSubtitle(points: CurvePoint[]): string {
  const runs = new Map<string, Set<string>>();
  for (const p of points) runs.set(p.series, (runs.get(p.series) ?? new Set()).add(p.run));
  const ns = [...new Set([...runs.values()].map((r) => r.size))].sort((a, b) => a - b);
  if (ns.every((n) => n === 1)) return 'one run each: no band';
  return `line: mean over ${ns.join(', ')} runs (seeds); band: lowest to highest run`;
}

/**
 * Two panels sharing the epoch axis (integer ticks): accuracy and keep rate by epoch, a line per
 * series at the mean over its runs, with a band from the lowest to the highest run; each series its
 * own colour and dash (src/plot.ts).
 */
export function learningCurvesPlot(points: CurvePoint[], title: string): Promise<string> {
  const series = [...new Set(points.map((p) => p.series))];
  const style = categoryStyles(series);
  const legend = { labelLimit: 480, symbolType: 'stroke', symbolStrokeWidth: 2.5, symbolSize: 400, symbolOpacity: 1 };
  const color = { field: 'series', type: 'nominal', title: null, scale: { domain: series, range: style.colors }, legend } as const;
  const dash = { field: 'series', type: 'nominal', title: null, scale: { domain: series, range: style.dashes }, legend } as const;
  const epoch = { field: 'epoch', type: 'quantitative', title: 'epoch', axis: { tickMinStep: 1, format: 'd' }, scale: { nice: false } } as const;
  const panel = (metric: CurvePoint['metric'], last: boolean) => ({
    width: 560,
    height: 220,
    transform: [
      { filter: { field: 'metric', equal: metric } },
      {
        aggregate: [
          { op: 'mean', field: 'value', as: 'mean' },
          { op: 'min', field: 'value', as: 'low' },
          { op: 'max', field: 'value', as: 'high' },
          { op: 'distinct', field: 'run', as: 'runs' },
        ],
        groupby: ['series', 'epoch'],
      },
    ],
    layer: [
      { mark: { type: 'area', opacity: 0.18 }, encoding: { x: epoch, y: { field: 'low', type: 'quantitative' }, y2: { field: 'high' }, color } },
      { mark: { type: 'line' }, encoding: { x: epoch, y: { field: 'mean', type: 'quantitative' }, color, strokeDash: dash } },
      {
        mark: { type: 'point', filled: true, size: 40 },
        encoding: {
          x: last ? epoch : { ...epoch, title: null },
          y: { field: 'mean', type: 'quantitative', title: metric, scale: { zero: false } },
          color,
          tooltip: [
            { field: 'series' },
            { field: 'epoch' },
            { field: 'mean', format: '.1f' },
            { field: 'low', format: '.1f' },
            { field: 'high', format: '.1f' },
            { field: 'runs' },
          ],
        },
      },
    ],
  });
  const spec = {
    $schema: VEGA_LITE_SCHEMA,
    title: { text: title, subtitle: curvesSubtitle(points), anchor: 'start' },
    data: { values: points },
    vconcat: CURVE_METRICS.map((m, i) => panel(m, i === CURVE_METRICS.length - 1)),
    resolve: { scale: { color: 'shared' } },
  } as TopLevelSpec;
  return renderSvg(spec);
}

/**
 * Learning curves of one run from its log.jsonl: validation accuracy and kept edges (greedy
 * decisions) at every evaluation, and training accuracy and keep rate (sampled decisions) as the
 * mean over each epoch's steps.
 */
export function readRunCurves(out: string, run = out): CurvePoint[] {
  const file = runFiles(out).jsonl;
  if (!existsSync(file)) throw new InputError(`${file}: file not found`);
  const points: CurvePoint[] = [];
  const steps = new Map<number, { accuracy: number; keepRate: number; n: number }>();
  for (const l of readLog(out)) {
    if (l.type === 'eval') {
      if (l.accuracy !== undefined) points.push({ series: 'validation (greedy)', run, epoch: l.epoch, metric: 'accuracy (%)', value: 100 * l.accuracy });
      if (l.keptEdges !== undefined) points.push({ series: 'validation (greedy)', run, epoch: l.epoch, metric: 'keep rate (%)', value: 100 * l.keptEdges });
    }
    if (l.type === 'step' && l.accuracy !== undefined && l.keepRate !== undefined) {
      const s = steps.get(l.epoch) ?? { accuracy: 0, keepRate: 0, n: 0 };
      steps.set(l.epoch, { accuracy: s.accuracy + l.accuracy, keepRate: s.keepRate + l.keepRate, n: s.n + 1 });
    }
  }
  for (const [epoch, s] of steps) {
    points.push({ series: 'training (sampled)', run, epoch, metric: 'accuracy (%)', value: (100 * s.accuracy) / s.n });
    points.push({ series: 'training (sampled)', run, epoch, metric: 'keep rate (%)', value: (100 * s.keepRate) / s.n });
  }
  return points;
}

/** Write `learning-curves.svg` into a run folder from its log.jsonl; returns its path. */
export async function writeRunCurves(out: string): Promise<string> {
  const file = runFiles(out).curves;
  writeFileAtomic(file, [await learningCurvesPlot(readRunCurves(out), `${out}: accuracy and keep rate by epoch`)]);
  return file;
}
