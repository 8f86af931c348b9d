import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { accuracyCostPlot, barsSubtitle, costAxisEnd, type CostPoint } from '../../eval/plots.ts';
import { categoryStyles, OKABE_ITO } from '../../src/plot.ts';
import { curvesSubtitle, learningCurvesPlot, readRunCurves } from '../../train/curves.ts';
import { resolveConfig } from '../../train/config.ts';
import { train } from '../../train/trainer.ts';
import { writeTinyCache } from '../fixtures/tinyWorld.ts';
import { METHOD } from '../fixtures/method.ts';

/** The texts an SVG shows (axis labels, titles, legend entries). */
const texts = (svg: string) => [...svg.matchAll(/<text[^>]*>([^<]*)<\/text>/g)].map((m) => m[1].replace(/&amp;/g, '&'));

function runFolder(lines: object[]): string {
  const dir = mkdtempSync(join(tmpdir(), 'cpp-plots-'));
  const stamped = lines.map((l) => ({ ...l, time: '2026-12-03T10:00:00.000Z', seconds: 1 })); // a log line's wall time
  writeFileSync(join(dir, 'log.jsonl'), stamped.map((l) => JSON.stringify(l) + '\n').join(''));
  return dir;
}

describe('learning curves', () => {
  const log = [
    { type: 'step', epoch: 1, step: 1, keepRate: 0.5, accuracy: 0.25, loss: 1 },
    { type: 'step', epoch: 1, step: 2, keepRate: 0.7, accuracy: 0.75, loss: 1 },
    { type: 'eval', epoch: 1, step: 2, accuracy: 0.6, keptEdges: 0.9, best: true },
    { type: 'step', epoch: 2, step: 3, keepRate: 0.4, accuracy: 0.5 },
    { type: 'eval', epoch: 2, step: 3, accuracy: 0.65, keptEdges: 0.8, best: true },
  ];

  it('a run folder gives validation points per evaluation and training means per epoch', () => {
    const points = readRunCurves(runFolder(log), 'seed 0');
    expect(points.filter((p) => p.series === 'validation (greedy)')).toEqual([
      { series: 'validation (greedy)', run: 'seed 0', x: 1, metric: 'accuracy (%)', value: 60 },
      { series: 'validation (greedy)', run: 'seed 0', x: 1, metric: 'keep rate (%)', value: 90 },
      { series: 'validation (greedy)', run: 'seed 0', x: 2, metric: 'accuracy (%)', value: 65 },
      { series: 'validation (greedy)', run: 'seed 0', x: 2, metric: 'keep rate (%)', value: 80 },
    ]);
    const training = points.filter((p) => p.series === 'training (sampled)' && p.x === 1);
    expect(training.map((p) => [p.metric, p.value])).toEqual([
      ['accuracy (%)', 50],
      ['keep rate (%)', 60],
    ]);
  });

  it('a malformed log line is named by file and line', () => {
    const dir = runFolder(log);
    writeFileSync(join(dir, 'log.jsonl'), readFileSync(join(dir, 'log.jsonl'), 'utf8') + '{"type":"eval","epoch":"three"}\n');
    expect(() => readRunCurves(dir)).toThrow(/log\.jsonl:6: epoch: /);
    expect(() => readRunCurves(join(dir, 'missing'))).toThrow(/log\.jsonl: file not found/);
  });

  it('two panels, integer epoch ticks, one legend entry per series', async () => {
    const points = [0, 1, 2].flatMap((seed) => readRunCurves(runFolder(log), `seed ${seed}`).map((p) => ({ ...p, value: p.value + seed })));
    const t = texts(await learningCurvesPlot(points, 'curves'));
    expect(t).toContain('accuracy (%)');
    expect(t).toContain('keep rate (%)');
    const ticks = t.filter((x) => /^\d+(\.\d+)?$/.test(x));
    expect(ticks).toContain('1');
    expect(ticks).toContain('2');
    expect(ticks.filter((x) => x.includes('.'))).toEqual([]);
    expect(t.filter((x) => x === 'validation (greedy)')).toHaveLength(1);
    expect(t).toContain('line: mean over 3 runs (seeds); band: lowest to highest run');
    expect(curvesSubtitle(readRunCurves(runFolder(log), 'seed 0'))).toBe('one run each: no band'); // was: "mean over seeds" for one seed
  }, 300_000);

  it('train() leaves learning-curves.svg in the run folder', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cpp-plots-train-'));
    writeTinyCache(join(dir, 'cache'));
    const out = join(dir, 'run');
    await train(
      resolveConfig({ ...METHOD, cache: join(dir, 'cache'), rounds: 2, miss: 'error', batchSize: 6, hidden: 8, backend: 'cpu', evalEvery: 1, epochs: 2, out }),
      {
        log: () => {},
      },
    );
    expect(existsSync(join(out, 'learning-curves.svg'))).toBe(true);
    expect(texts(readFileSync(join(out, 'learning-curves.svg'), 'utf8'))).toContain('training (sampled)');
  }, 120_000);
});

describe('accuracy against cost', () => {
  const point = (method: string, kind: string, accuracy: number, costPct: number, spread = 0, n = spread ? 5 : 1): CostPoint => ({
    method,
    kind,
    n,
    accuracy,
    costPct,
    accuracyLow: accuracy - 3,
    accuracyHigh: accuracy + 3,
    costLow: spread ? costPct - spread : null,
    costHigh: spread ? costPct + spread : null,
  });
  const ticks = (svg: string) =>
    texts(svg)
      .filter((x) => /^\d+$/.test(x))
      .map(Number);

  it('names each method once, in the legend, and every line; no text over a point', async () => {
    const points = [
      point('Full-Debate', 'baseline', 76, 100),
      point('k = 1', 'CPP policy', 76.3, 100, 1),
      point('no behavior embedding', 'CPP policy', 75.8, 98, 2),
    ];
    const svg = await accuracyCostPlot(points, 'plane', { accuracy: 76, costPct: 100 });
    const t = texts(svg);
    for (const m of ['k = 1', 'no behavior embedding', 'Full-Debate']) expect(t.filter((x) => x === m)).toHaveLength(1);
    expect(t).toContain("Full-Debate's accuracy and cost"); // the reference lines, in the legend (was: a label over the plot)
    expect(t).toContain('Pareto frontier (no method both more accurate and cheaper)'); // was: no legend entry
    expect(t).not.toContain('Full-Debate (dotted)');
    const legendAndAxes = new Set(['plane', 'method', 'lines', 'accuracy (%)', 'cost (% of Full-Debate)', ...points.map((p) => p.method)]);
    const other = t.filter(
      (x) => !legendAndAxes.has(x) && !/^\d+(\.\d+)?$/.test(x) && !x.startsWith('bars: ') && !x.includes('Pareto') && !x.includes("Full-Debate's"),
    );
    expect(other).toEqual([]);
  }, 300_000);

  it('draws a point far beyond the others as off scale at the axis end, its cost in the legend, instead of squeezing them', async () => {
    const points = [
      point('Full-Debate', 'baseline', 78, 100),
      point('CPP', 'CPP policy', 86, 87, 3),
      point('Consistency-Best (sage x8)', 'baseline', 66, 178),
      point('Single atlas', 'baseline', 60, 19),
    ];
    const svg = await accuracyCostPlot(points, 'plane', { accuracy: 78, costPct: 100 });
    const t = texts(svg);
    expect(t).toContain('Consistency-Best (sage x8) (cost 178%, off scale)');
    expect(t).toContain('cost (% of Full-Debate; a right triangle at 120: off scale, its cost in the legend)');
    expect(Math.max(...ticks(svg))).toBeLessThanOrEqual(120); // was: an axis to 180
    expect(costAxisEnd(points, { costPct: 100 })).toBe(120); // 15% past Full-Debate's 100, to a multiple of 10
    expect(
      costAxisEnd(
        points.filter((p) => p.costPct < 150),
        { costPct: 100 },
      ),
    ).toBeUndefined(); // every point fits
  }, 300_000);

  it('keeps intervals within [0, 100]%, and the title says what the bars are for the n shown', async () => {
    const wide = { ...point('CPP', 'CPP policy', 77, 90, 2, 2), accuracyLow: 43.1, accuracyHigh: 110.9 }; // a two-seed t interval
    const svg = await accuracyCostPlot([wide, point('Full-Debate', 'baseline', 78, 100)], 'plane');
    expect(Math.max(...ticks(svg).filter((x) => x > 30))).toBe(100); // the y axis ends at 100 (was: 110)
    expect(texts(svg)).toContain(
      "bars: 95% t interval of the mean over 2 seeds, accuracy and cost; for one run (n = 1), the accuracy's Wilson interval over the questions",
    );
    expect(barsSubtitle([point('a', 'variant', 80, 90), point('b', 'variant', 81, 92)])).toBe(
      'bars: 95% Wilson interval of the accuracy over the questions (one run each; no cost interval)',
    ); // a one-seed grid (was: "95% intervals over seeds")
    expect(barsSubtitle([point('a', 'variant', 80, 90, 1, 3), point('b', 'variant', 81, 92, 1, 3)])).toBe(
      'bars: 95% t interval of the mean over 3 seeds, accuracy and cost',
    );
  }, 300_000);

  it('gives every method its own colour-blind-safe colour and shape', async () => {
    const names = Array.from({ length: 56 }, (_, i) => `m${i}`);
    const { colors, shapes } = categoryStyles(names);
    expect(new Set(colors.map((c, i) => `${c} ${shapes[i]}`)).size).toBe(56);
    expect(new Set(colors)).toEqual(new Set(OKABE_ITO));
    const svg = await accuracyCostPlot([point('a', 'CPP policy', 80, 90, 1), point('b', 'baseline', 70, 95), point('c', 'baseline', 75, 100)], 'plane');
    for (const c of OKABE_ITO.slice(0, 3)) expect(svg).toContain(`fill="${c}"`);
  }, 300_000);
});
