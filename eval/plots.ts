// Accuracy against cost, read at a glance: 95% intervals as bars (said in the subtitle for the n
// shown, within [0, 100]%), each method its own colour-blind-safe colour and shape in the legend and
// no text over a point, Full-Debate's accuracy and cost and the Pareto frontier as lines named in the
// legend, and a point far beyond the others' cost drawn at the axis end as off scale (its cost in its
// legend entry) instead of squeezing them. Learning curves are train/curves.ts.
import type { TopLevelSpec } from 'vega-lite';
import { categoryStyles, renderSvg, VEGA_LITE_SCHEMA } from '../src/plot.ts';

/** A method on the accuracy-cost plane; bounds are null where the method has no spread. */
export interface CostPoint {
  method: string;
  /** baseline, or what the method is (CPP policy, variant, ...): baselines are listed last. */
  kind: string;
  /** Runs (seeds) behind the point: one run's accuracy interval is over the questions, several runs' over the runs. */
  n: number;
  accuracy: number;
  accuracyLow: number | null;
  accuracyHigh: number | null;
  costPct: number;
  costLow: number | null;
  costHigh: number | null;
}

/** Methods no other method beats on both accuracy and cost. */
export function paretoFront(points: { method: string; accuracy: number; costPct: number }[]): Set<string> {
  return new Set(
    points
      .filter((r) => !points.some((o) => o !== r && o.accuracy >= r.accuracy && o.costPct <= r.costPct && (o.accuracy > r.accuracy || o.costPct < r.costPct)))
      .map((r) => r.method),
  );
}

/**
 * Where the cost axis ends when some point lies far beyond the methods that matter: 15% past the
 * costliest policy (or the reference, Full-Debate), to a multiple of 10. Undefined when every point
 * fits (or nothing anchors the axis).
 */
export function costAxisEnd(points: CostPoint[], reference?: { costPct: number }): number | undefined {
  const anchors = [...points.filter((p) => p.kind !== 'baseline').map((p) => p.costHigh ?? p.costPct), ...(reference ? [reference.costPct] : [])];
  if (!anchors.length) return undefined;
  const end = Math.ceil((1.15 * Math.max(...anchors)) / 10) * 10;
  return points.some((p) => p.costPct > end) ? end : undefined;
}

/** What the bars are, for the runs behind the points. */
export function barsSubtitle(points: CostPoint[]): string {
  const ns = [...new Set(points.map((p) => p.n))].sort((a, b) => a - b);
  const several = ns.filter((n) => n > 1);
  const seeds = several.length === 1 ? `${several[0]} seeds` : `${several.join(', ')} seeds`;
  if (!several.length) return 'bars: 95% Wilson interval of the accuracy over the questions (one run each; no cost interval)';
  const over = `95% t interval of the mean over ${seeds}, accuracy and cost`;
  return ns[0] === 1 ? `bars: ${over}; for one run (n = 1), the accuracy's Wilson interval over the questions` : `bars: ${over}`;
}

const clamp = (x: number | null, low: number, high = Number.POSITIVE_INFINITY) => (x === null ? null : Math.min(high, Math.max(low, x)));

export function accuracyCostPlot(points: CostPoint[], title: string, fullDebate?: { accuracy: number; costPct: number }): Promise<string> {
  const front = paretoFront(points);
  const end = costAxisEnd(points, fullDebate);
  const offScale = (p: CostPoint) => end !== undefined && p.costPct > end;
  // Baselines last, so that policies get the first (strongest) colours; an off-scale point's legend entry says its cost.
  const ordered = [...points.filter((p) => p.kind !== 'baseline'), ...points.filter((p) => p.kind === 'baseline')];
  const label = (p: CostPoint) => (offScale(p) ? `${p.method} (cost ${p.costPct.toFixed(0)}%, off scale)` : p.method);
  const values = ordered.map((p) => ({
    ...p,
    method: label(p),
    pareto: front.has(p.method),
    x: offScale(p) ? end : p.costPct,
    accuracyLow: clamp(p.accuracyLow, 0, 100),
    accuracyHigh: clamp(p.accuracyHigh, 0, 100),
    costLow: offScale(p) ? null : clamp(p.costLow, 0),
    costHigh: offScale(p) ? null : clamp(p.costHigh, 0, end),
  }));
  const methods = values.map((v) => v.method);
  const style = categoryStyles(methods);
  const shapes = ordered.map((p, i) => (offScale(p) ? 'triangle-right' : style.shapes[i]));
  const domainEnd = end ?? Math.max(...points.map((p) => p.costHigh ?? p.costPct), fullDebate?.costPct ?? 0);
  const x = {
    field: 'x',
    type: 'quantitative',
    title: end === undefined ? 'cost (% of Full-Debate)' : `cost (% of Full-Debate; a right triangle at ${end}: off scale, its cost in the legend)`,
    scale: { zero: false, domainMax: domainEnd },
  } as const;
  const y = { field: 'accuracy', type: 'quantitative', title: 'accuracy (%)', scale: { zero: false } } as const;
  const legend = { symbolLimit: 0, title: 'method' };
  const color = { field: 'method', type: 'nominal', scale: { domain: methods, range: style.colors }, legend } as const;
  const shape = { field: 'method', type: 'nominal', scale: { domain: methods, range: shapes }, legend } as const;
  // The lines' legend: Full-Debate's reference lines and the Pareto frontier, by their dash.
  const lines = ["Full-Debate's accuracy and cost", 'Pareto frontier (no method both more accurate and cheaper)'];
  const dash = (i: number) =>
    ({
      datum: lines[i],
      type: 'nominal',
      scale: {
        domain: lines,
        range: [
          [2, 2],
          [6, 4],
        ],
      },
      legend: { title: 'lines', symbolType: 'stroke', symbolStrokeColor: '#555', symbolStrokeWidth: 2, symbolSize: 400 },
    }) as const;
  const reference = fullDebate
    ? (['x', 'y'] as const).map((axis) => ({
        data: { values: [{ x: fullDebate.costPct, accuracy: fullDebate.accuracy }] },
        mark: { type: 'rule', color: '#888' },
        encoding: { [axis]: axis === 'x' ? x : y, strokeDash: dash(0) },
      }))
    : [];
  const spec = {
    $schema: VEGA_LITE_SCHEMA,
    title: { text: title, subtitle: barsSubtitle(points), anchor: 'start' },
    width: 560,
    height: 380,
    data: { values },
    layer: [
      ...reference,
      {
        transform: [{ filter: 'datum.pareto && datum.x === datum.costPct' }], // an off-scale point's edge position would bend it
        mark: { type: 'line', color: '#555' },
        encoding: { x, y, order: { field: 'x' }, strokeDash: dash(1) },
      },
      {
        transform: [{ filter: 'isValid(datum.accuracyLow)' }],
        mark: { type: 'rule', strokeWidth: 2 },
        encoding: { x, y: { field: 'accuracyLow', type: 'quantitative' }, y2: { field: 'accuracyHigh' }, color },
      },
      {
        transform: [{ filter: 'isValid(datum.costLow)' }],
        mark: { type: 'rule', strokeWidth: 2 },
        encoding: { y, x: { field: 'costLow', type: 'quantitative' }, x2: { field: 'costHigh' }, color },
      },
      {
        mark: { type: 'point', filled: true, size: 90, opacity: 1, stroke: 'black', strokeWidth: 0.5 },
        encoding: {
          x,
          y,
          color,
          shape,
          tooltip: [{ field: 'method' }, { field: 'n' }, { field: 'accuracy' }, { field: 'costPct' }],
        },
      },
    ],
    // Legend labels whole (an off-scale cost at their end): without a canvas vega guesses text
    // widths at up to 9 px a character of 11 px type, and cuts a label it guesses too long.
    config: { legend: { orient: 'right', labelLimit: 9 * Math.max(...[...methods, ...lines].map((m) => m.length)) } },
  } as TopLevelSpec;
  return renderSvg(spec);
}
