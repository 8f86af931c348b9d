// Accuracy against cost (95% intervals as error bars, a legend instead of point labels, Full-Debate
// as reference lines, the Pareto frontier dashed). Learning curves are train/curves.ts.
import type { TopLevelSpec } from 'vega-lite';
import { renderSvg, VEGA_LITE_SCHEMA } from '../src/plot.ts';

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
  return new Set(
    points
      .filter((r) => !points.some((o) => o !== r && o.accuracy >= r.accuracy && o.costPct <= r.costPct && (o.accuracy > r.accuracy || o.costPct < r.costPct)))
      .map((r) => r.method),
  );
}

export function accuracyCostPlot(points: CostPoint[], title: string, fullDebate?: { accuracy: number; costPct: number }): Promise<string> {
  const front = paretoFront(points);
  const values = points.map((p) => ({ ...p, pareto: front.has(p.method) }));
  // Policies first, so they get the first (strongest) colours of the scheme.
  const methods = [...points.filter((p) => p.kind !== 'baseline'), ...points.filter((p) => p.kind === 'baseline')].map((p) => p.method);
  const kinds = [...new Set(points.map((p) => p.kind))];
  const x = { field: 'costPct', type: 'quantitative', title: 'cost (% of Full-Debate)', scale: { zero: false } } as const;
  const y = { field: 'accuracy', type: 'quantitative', title: 'accuracy (%), 95% interval', scale: { zero: false } } as const;
  const color = {
    field: 'method',
    type: 'nominal',
    title: 'method',
    scale: { domain: methods, scheme: methods.length > 10 ? 'tableau20' : 'tableau10' },
    legend: { labelLimit: 480, symbolLimit: 0 },
  } as const;
  const reference = fullDebate
    ? [
        {
          data: { values: [fullDebate] },
          mark: { type: 'rule', strokeDash: [2, 2], color: '#999' },
          encoding: { x: { field: 'costPct', type: 'quantitative' } },
        },
        {
          data: { values: [fullDebate] },
          mark: { type: 'rule', strokeDash: [2, 2], color: '#999' },
          encoding: { y: { field: 'accuracy', type: 'quantitative' } },
        },
        // Labelled left of the top of the vertical line, where points are rare (right of it is the legend).
        {
          data: { values: [fullDebate] },
          mark: { type: 'text', align: 'right', baseline: 'top', dx: -3, dy: 3, fontSize: 10, color: '#666' },
          encoding: { x: { field: 'costPct', type: 'quantitative' }, y: { value: 0 }, text: { value: 'Full-Debate (dotted)' } },
        },
      ]
    : [];
  const spec = {
    $schema: VEGA_LITE_SCHEMA,
    title,
    width: 560,
    height: 380,
    data: { values },
    layer: [
      ...reference,
      { transform: [{ filter: 'datum.pareto' }], mark: { type: 'line', strokeDash: [5, 4], color: '#777' }, encoding: { x, y, order: { field: 'costPct' } } },
      {
        transform: [{ filter: 'isValid(datum.accuracyLow)' }],
        mark: { type: 'rule', strokeWidth: 1.5 },
        encoding: { x, y: { field: 'accuracyLow', type: 'quantitative' }, y2: { field: 'accuracyHigh' }, color },
      },
      {
        transform: [{ filter: 'isValid(datum.costLow)' }],
        mark: { type: 'rule', strokeWidth: 1.5 },
        encoding: { y, x: { field: 'costLow', type: 'quantitative' }, x2: { field: 'costHigh' }, color },
      },
      {
        mark: { type: 'point', filled: true, size: 90, opacity: 1, stroke: 'black', strokeWidth: 0.5 },
        encoding: {
          x,
          y,
          color,
          ...(kinds.length > 1 && { shape: { field: 'kind', type: 'nominal', title: null, scale: { domain: kinds } } }),
          tooltip: [{ field: 'method' }, { field: 'accuracy' }, { field: 'costPct' }],
        },
      },
    ],
    config: { legend: { orient: 'right' } },
  } as TopLevelSpec;
  return renderSvg(spec);
}
