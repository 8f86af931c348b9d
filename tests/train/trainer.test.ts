import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadCheckpoint } from '../../src/policy/artifact.ts';
import { resolveConfig } from '../../train/config.ts';
import { readLog, runFiles, type LogLine } from '../../train/runFolder.ts';
import { train } from '../../train/trainer.ts';
import { inferenceEngine } from '../../src/policy/createEngine.ts';
import { rollout } from '../../src/policy/rollout.ts';
import { artifactOf } from '../../src/policy/artifact.ts';
import { writeTinyCache } from './tinyWorld.ts';

function tinySetup() {
  const dir = mkdtempSync(join(tmpdir(), 'cpp-train-'));
  writeTinyCache(join(dir, 'cache'));
  const base = { cache: join(dir, 'cache'), rounds: 2, miss: 'error' as const, k: -1, batchSize: 6, hidden: 16, backend: 'cpu' as const, evalEvery: 5 };
  return { dir, base };
}
const quiet = { log: () => {} };

describe('training (tiny world: a2 always helps, the other wrong agent always hurts)', () => {
  it('drives the helping edge\'s keep probability up and the harmful ones down', async () => {
    const { dir, base } = tinySetup();
    const config = resolveConfig({ ...base, out: join(dir, 'run'), epochs: 20 });
    const { checkpoint, setup } = await train(config, quiet);
    const a = artifactOf(checkpoint);
    const engine = await inferenceEngine({ engine: 'auto', backend: 'cpu', threads: 1 }, a.shape, a.weights);
    const played = await rollout(engine, setup.evalEnv, setup.emb, [3], { mode: 'greedy', debateSeed: '0', conditioning: true });
    engine.dispose();
    const p = (recipient: number, position: number) => played.probs[recipient * 3 + position];
    // Candidates: a1 sees [a1, a2, a3]; a2 sees [a2, a1, a3]; a3 sees [a3, a1, a2].
    expect(p(0, 1)).toBeGreaterThan(0.8); // a2 -> a1
    expect(p(2, 2)).toBeGreaterThan(0.8); // a2 -> a3
    expect(p(0, 2)).toBeLessThan(0.2); // a3 -> a1
    expect(p(2, 1)).toBeLessThan(0.2); // a1 -> a3
    for (let j = 0; j < 3; j++) expect(p(1, j)).toBeLessThan(0.2); // a2 is right anyway: keeping costs k
    expect(played.results[0].finalCorrect).toBe(true);
  }, 120_000);

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
    const withoutTime = ({ time: _, seconds: __, decisionsPerSecond: ___, ...rest }: LogLine) => rest;
    expect(readLog(split.out).map(withoutTime)).toEqual(readLog(whole.out).map(withoutTime));
    const csvWithoutTime = (out: string) => readFileSync(runFiles(out).csv, 'utf8').split('\n').map((l) => l.split(',').slice(0, -3).join(','));
    expect(csvWithoutTime(split.out)).toEqual(csvWithoutTime(whole.out));
    const a = loadCheckpoint(runFiles(whole.out).checkpoint);
    const b = loadCheckpoint(runFiles(split.out).checkpoint);
    expect(b.engine.weights).toEqual(a.engine.weights);
    expect(b.baseline).toEqual(a.baseline);
    expect(readFileSync(runFiles(whole.out).jsonl, 'utf8').trim().split('\n').length).toBe(4 * 3 + 2); // 3 steps an epoch, 2 evaluations
  }, 120_000);
});
