import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ensureEmbeddings } from '../../src/cache/embeddings.ts';
import { loadCache } from '../../src/cache/load.ts';
import { makeEncoder } from '../../src/encoders/index.ts';
import { splitQuestions } from '../../src/env/environment.ts';
import { artifactOf } from '../../src/policy/artifact.ts';
import { inferenceEngine } from '../../src/policy/createEngine.ts';
import { evaluatePolicy } from '../../src/policy/evaluate.ts';
import { openEnvironment } from '../../src/recording.ts';
import { resolveConfig } from '../../train/config.ts';
import { readLog, type LogLine } from '../../train/runFolder.ts';
import { train } from '../../train/trainer.ts';
import { tinyTrainSettings } from '../fixtures/tinyWorld.ts';

const quiet = { log: () => {} };
const traced = (out: string) =>
  readLog(out)
    .filter((l) => l.type === 'trace')
    .map(({ time: _, seconds: __, ...rest }: LogLine) => rest);

describe('the test-split trace of a run (traceEvery)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cpp-trace-'));
  const base = tinyTrainSettings(dir);

  it('evaluates the greedy policy on the test split at the start, every N steps and at the end; the last line is the final policy on test', async () => {
    const config = resolveConfig({ ...base, out: join(dir, 'traced'), epochs: 2, steps: 5, traceEvery: 2 });
    const { checkpoint } = await train(config, quiet);
    const lines = traced(config.out);
    expect(lines.map((l) => l.step)).toEqual([0, 2, 4, 5]);
    // The final weights, evaluated on their own on the test split, read the same.
    const cache = loadCache(config.cache);
    const env = openEnvironment(cache, { rounds: 2, miss: 'error', round1Sample: 'first' });
    const test = splitQuestions(env, 'test').questions;
    const a = artifactOf(checkpoint);
    const engine = await inferenceEngine({ engine: 'auto', backend: 'cpu', threads: 1 }, a.shape, a.weights);
    const v = await evaluatePolicy(engine, env, await ensureEmbeddings(config.cache, cache, await makeEncoder('bof')), test, 'final');
    engine.dispose();
    expect(lines.at(-1)!.accuracy).toBeCloseTo(v.correct / v.questions, 4);
    expect(lines.at(-1)!.keptEdges).toBeCloseTo(v.keptEdges / v.maxEdges, 4);
  }, 600_000);

  it('a run resumed after a kill traces the same lines as an uninterrupted one', async () => {
    const whole = resolveConfig({ ...base, out: join(dir, 'whole'), epochs: 3, traceEvery: 2 });
    const split = resolveConfig({ ...whole, out: join(dir, 'split') });
    await train(whole, quiet);
    await train(split, { ...quiet, stopAfterEpochs: 1 });
    await train(split, { ...quiet, resume: true });
    expect(traced(split.out)).toEqual(traced(whole.out));
    expect(traced(whole.out).map((l) => l.step)).toEqual([0, 2, 4, 6, 8, 9]);
  }, 600_000);
});
