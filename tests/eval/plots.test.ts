import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { accuracyCostPlot, type CostPoint } from '../../eval/plots.ts';
import { learningCurvesPlot, readRunCurves } from '../../train/curves.ts';
import { resolveConfig } from '../../train/config.ts';
import { train } from '../../train/trainer.ts';
import { writeTinyCache } from '../fixtures/tinyWorld.ts';

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
  }, 30_000);

  it('train() leaves learning-curves.svg in the run folder', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cpp-plots-train-'));
    writeTinyCache(join(dir, 'cache'));
    const out = join(dir, 'run');
    await train(resolveConfig({ cache: join(dir, 'cache'), rounds: 2, miss: 'error', batchSize: 6, hidden: 8, backend: 'cpu', evalEvery: 1, epochs: 2, out }), {
      log: () => {},
    });
    expect(existsSync(join(out, 'learning-curves.svg'))).toBe(true);
    expect(texts(readFileSync(join(out, 'learning-curves.svg'), 'utf8'))).toContain('training (sampled)');
  }, 120_000);
});

describe('accuracy against cost', () => {
  const point = (method: string, kind: string, accuracy: number, costPct: number, spread = 0): CostPoint => ({
    method,
    kind,
    accuracy,
    costPct,
    accuracyLow: accuracy - 3,
    accuracyHigh: accuracy + 3,
    costLow: spread ? costPct - spread : null,
    costHigh: spread ? costPct + spread : null,
  });

  it('names each method once, in the legend (no point labels), with Full-Debate as a reference', async () => {
    const points = [
      point('Full-Debate', 'baseline', 76, 100),
      point('k = 1', 'CPP policy', 76.3, 100, 1),
      point('no behavior embedding', 'CPP policy', 75.8, 98, 2),
    ];
    const svg = await accuracyCostPlot(points, 'plane', { accuracy: 76, costPct: 100 });
    const t = texts(svg);
    for (const m of ['k = 1', 'no behavior embedding']) expect(t.filter((x) => x === m)).toHaveLength(1);
    expect(t.filter((x) => x === 'Full-Debate')).toHaveLength(1); // its legend entry
    expect(t).toContain('Full-Debate (dotted)'); // the reference lines' label
    expect(t).toContain('CPP policy');
    expect(t).toContain('accuracy (%), 95% interval');
  }, 30_000);
});
