import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadCheckpoint } from '../../src/policy/artifact.ts';
import { resolveConfig } from '../../train/config.ts';
import { readLog, runFiles, type LogLine } from '../../train/runFolder.ts';
import { train } from '../../train/trainer.ts';
import { expectTinyLearned } from '../fixtures/tinyPolicy.ts';
import { writeTinyCache } from '../fixtures/tinyWorld.ts';
import { METHOD } from '../fixtures/method.ts';

function tinySetup() {
  const dir = mkdtempSync(join(tmpdir(), 'cpp-train-'));
  writeTinyCache(join(dir, 'cache'));
  const base = {
    ...METHOD,
    cache: join(dir, 'cache'),
    rounds: 2,
    miss: 'error' as const,
    k: -1,
    batchSize: 6,
    hidden: 16,
    backend: 'cpu' as const,
    evalEvery: 5,
  };
  return { dir, base };
}
const quiet = { log: () => {} };

/** A log line but for its wall time (when written, how long the step took, decisions/s): what a rerun repeats. */
const withoutTime = ({ time: _, seconds: __, decisionsPerSecond: ___, ...rest }: LogLine) => rest;

describe('training (tiny world: a2 always helps, the other wrong agent always hurts)', () => {
  it("drives the helping edge's keep probability up and the harmful ones down", async () => {
    const { dir, base } = tinySetup();
    const config = resolveConfig({ ...base, out: join(dir, 'run'), epochs: 20 });
    const { checkpoint, setup } = await train(config, quiet);
    const p = await expectTinyLearned(checkpoint, setup);
    for (let j = 0; j < 3; j++) expect(p(1, j)).toBeLessThan(0.2); // a2 is right anyway: keeping costs k
  }, 600_000);

  it('a resumed run writes the same log and weights as an uninterrupted one', async () => {
    const { dir, base } = tinySetup();
    const whole = resolveConfig({ ...base, out: join(dir, 'whole'), epochs: 4, evalEvery: 2 });
    const split = resolveConfig({ ...base, out: join(dir, 'split'), epochs: 4, evalEvery: 2 });
    await train(whole, quiet);
    await train(split, { ...quiet, stopAfterEpochs: 1 });
    expect(loadCheckpoint(runFiles(split.out).checkpoint).epoch).toBe(1);
    await expect(train(split, quiet)).rejects.toThrow(/pass --resume/);
    await train(split, { ...quiet, resume: true });
    // The same lines but for their wall time (when written, how long each step took, decisions/s).
    expect(readLog(split.out).map(withoutTime)).toEqual(readLog(whole.out).map(withoutTime));
    const csvWithoutTime = (out: string) =>
      readFileSync(runFiles(out).csv, 'utf8')
        .split('\n')
        .map((l) => l.split(',').slice(0, -3).join(','));
    expect(csvWithoutTime(split.out)).toEqual(csvWithoutTime(whole.out));
    const a = loadCheckpoint(runFiles(whole.out).checkpoint);
    const b = loadCheckpoint(runFiles(split.out).checkpoint);
    expect(b.engine.weights).toEqual(a.engine.weights);
    expect(b.baseline).toEqual(a.baseline);
    expect(readFileSync(runFiles(whole.out).jsonl, 'utf8').trim().split('\n').length).toBe(4 * 3 + 2); // 3 steps an epoch, 2 evaluations
  }, 600_000);

  it('K rollouts with a context baseline and a target budget: the multiplier follows the batch cost, and a resumed run repeats it exactly', async () => {
    const { dir, base } = tinySetup();
    // Tiny world: Full-Debate costs 210 a question, pruning everything 120 (57%).
    const budget = { ...base, k: 0, rollouts: 2, baseline: 'context' as const, normalizeAdvantages: true, targetCost: 0.6, dualLr: 5, epochs: 3, evalEvery: 3 };
    const whole = resolveConfig({ ...budget, out: join(dir, 'whole') });
    const split = resolveConfig({ ...budget, out: join(dir, 'split') });
    await train(whole, quiet);
    await train(split, { ...quiet, stopAfterEpochs: 2 });
    await train(split, { ...quiet, resume: true });
    expect(readLog(split.out).map(withoutTime)).toEqual(readLog(whole.out).map(withoutTime));
    const a = loadCheckpoint(runFiles(whole.out).checkpoint);
    expect(loadCheckpoint(runFiles(split.out).checkpoint).costMultiplier).toBe(a.costMultiplier);
    const steps = readLog(whole.out).filter((l) => l.type === 'step');
    // Each step's multiplier is the previous one moved by 5 x (the greedy policy's cost on the previous batch - 0.6), never below 0.
    for (let i = 1; i < steps.length; i++)
      expect(steps[i].costMultiplier).toBeCloseTo(Math.max(0, steps[i - 1].costMultiplier! + 5 * (steps[i - 1].dualCostPct! / 100 - 0.6)), 3);
    expect(steps.some((l) => l.dualCostPct !== l.costPct)).toBe(true);
    // targetOn sampled: the training decisions' own cost.
    const sampled = resolveConfig({ ...budget, targetOn: 'sampled', epochs: 1, out: join(dir, 'sampled') });
    await train(sampled, quiet);
    const lines = readLog(sampled.out).filter((l) => l.type === 'step');
    for (let i = 1; i < lines.length; i++)
      expect(lines[i].costMultiplier).toBeCloseTo(Math.max(0, lines[i - 1].costMultiplier! + 5 * (lines[i - 1].costPct! / 100 - 0.6)), 3);
    expect(steps.some((l) => l.costMultiplier! > 0)).toBe(true);
    expect(a.baseline.length).toBe(2 * 4 * 9); // context state: means and counts of 9 decision slots x 4 contexts
    await expect(train(resolveConfig({ ...budget, targetCost: 0.5, out: join(dir, 'low') }), quiet)).rejects.toThrow(/targetCost: 0.5 is below 0.571/);
    expect(() => resolveConfig({ ...budget, baseline: 'rloo', rollouts: 1 })).toThrow(/rloo needs rollouts >= 2/);
  }, 600_000);
});
