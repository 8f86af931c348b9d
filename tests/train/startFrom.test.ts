import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadCheckpoint } from '../../src/policy/artifact.ts';
import { readProvenance } from '../../src/provenance.ts';
import { resolveConfig } from '../../train/config.ts';
import { readLog, runFiles } from '../../train/runFolder.ts';
import { runStatus } from '../../train/runs.ts';
import { train } from '../../train/trainer.ts';
import { tinyTrainSettings } from '../fixtures/tinyWorld.ts';

const quiet = { log: () => {} };

function setup() {
  const dir = mkdtempSync(join(tmpdir(), 'cpp-startfrom-'));
  const base = tinyTrainSettings(dir);
  return { dir, base };
}

describe('fine-tuning: a run that starts from a policy (from), trains part of it (trainable) for a number of steps (steps)', () => {
  it('steps cuts the run short inside an epoch; the cut epoch is evaluated and checkpointed, and the run counts as finished', async () => {
    const { dir, base } = setup();
    const config = resolveConfig({ ...base, out: join(dir, 'capped'), epochs: 5, steps: 4, evalEvery: 5 });
    const { checkpoint } = await train(config, quiet);
    expect(checkpoint).toMatchObject({ step: 4, epoch: 2 }); // 3 steps an epoch
    const log = readLog(config.out);
    expect(log.map((l) => `${l.type} ${l.epoch} ${l.step}`)).toEqual(['step 1 1', 'step 1 2', 'step 1 3', 'step 2 4', 'eval 2 4']);
    expect(existsSync(runFiles(config.out).best)).toBe(true);
    expect(runStatus(config, checkpoint.cacheHash!).action).toBe('reuse');
    // Resumed, a finished run trains nothing more.
    await train(config, { ...quiet, resume: true });
    expect(readLog(config.out).length).toBe(log.length);
  }, 600_000);

  it('starts from the weights of the policy it names, and with trainable behavior moves its behavior embedding alone', async () => {
    const { dir, base } = setup();
    const first = resolveConfig({ ...base, out: join(dir, 'first'), epochs: 2 });
    await train(first, quiet);
    const start = loadCheckpoint(runFiles(first.out).checkpoint).engine.weights;
    const tuned = resolveConfig({
      ...base,
      out: join(dir, 'tuned'),
      epochs: 2,
      steps: 3,
      from: runFiles(first.out).checkpoint,
      trainable: 'behavior',
      seed: 1,
    });
    const { checkpoint } = await train(tuned, quiet);
    expect(checkpoint.shape.trainable).toBe('behavior');
    expect(Object.keys(checkpoint.engine.m)).toEqual(['behavior']);
    const w = checkpoint.engine.weights;
    expect(w.behavior.data).not.toEqual(start.behavior.data);
    for (const name of Object.keys(start).filter((n) => n !== 'behavior')) expect(w[name].data, name).toEqual(start[name].data);
    // trainable all: the rest moves too, from the same start.
    const all = await train(resolveConfig({ ...tuned, out: join(dir, 'all'), trainable: 'all' }), quiet);
    expect(all.checkpoint.engine.weights['head.w'].data).not.toEqual(start['head.w'].data);
    expect(readProvenance(runFiles(join(dir, 'all')).provenance).sessions[0].inputs.map((i) => i.path)).toEqual([runFiles(first.out).checkpoint]);
  }, 600_000);

  it('refuses a policy that does not fit the run, before writing anything, and a trainable behavior embedding that does not exist', async () => {
    const { dir, base } = setup();
    const first = resolveConfig({ ...base, out: join(dir, 'first'), epochs: 1 });
    await train(first, quiet);
    const from = runFiles(first.out).checkpoint;
    const out = join(dir, 'misfit');
    await expect(train(resolveConfig({ ...base, out, from, agents: ['a3', 'a2', 'a1'] }), quiet)).rejects.toThrow(
      /from: .* does not fit this run: its team is a1, a2, a3, the run's a3, a2, a1 \(--agents\)/,
    );
    await expect(train(resolveConfig({ ...base, out, from, hidden: 8 }), quiet)).rejects.toThrow(/its hidden is 16, the run's 8 \(--hidden\)/);
    expect(existsSync(runFiles(out).checkpoint) || existsSync(runFiles(out).config)).toBe(false);
    expect(() => resolveConfig({ ...base, trainable: 'behavior', behavior: 'none' })).toThrow(/behavior: none has none .*nothing would train/);
  }, 600_000);
});
