// The comparison's static masks trained ahead of it (jobs/eval.ts trainMasks: the main job has the
// process that falls idle while its last run trains do it): a comparison given them writes what it
// writes when it trains them itself, and reads them (other masks give other rows); the training
// pool says when a worker has no run left to start, which is when its process idles.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { evalJob, trainMasks, type EvalOptions } from '../../jobs/eval.ts';
import { POLICY_FORMAT, savePolicy } from '../../src/policy/artifact.ts';
import { defaultCompute } from '../../src/policy/backends.ts';
import { initWeights, type PolicyShape } from '../../src/policy/model.ts';
import { pool } from '../../train/runs.ts';
import { TINY } from '../fixtures/gradientCheck.ts';
import { writeTinyCache } from '../fixtures/tinyWorld.ts';

describe('static masks trained ahead of the comparison', () => {
  it('a comparison given them writes the rows it writes training them itself, and reads them', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cpp-masks-ahead-'));
    writeTinyCache(join(dir, 'cache'));
    const shape: PolicyShape = { ...TINY, dim: 256, hidden: 8, agents: 3, rounds: 2 };
    const policy = join(dir, 'policy.json');
    const trainedOn = { cache: 'tiny', seed: 0, epoch: 0 };
    savePolicy(policy, { format: POLICY_FORMAT, version: 1, shape, team: ['a1', 'a2', 'a3'], encoder: 'bof-256', trainedOn, weights: initWeights(shape, '0') });
    const o: EvalOptions = {
      policies: [policy],
      cache: join(dir, 'cache'),
      split: 'validation',
      compute: { ...defaultCompute(), backend: 'cpu' },
      settings: { miss: 'model' },
      methods: ['full', 'mask'],
      seeds: 2,
      reference: 'Full-Debate',
    };
    const itself = await evalJob(o);
    const masks = await trainMasks(o);
    expect(masks).toHaveLength(2);
    expect(masks[0].theta).toHaveLength(9); // one logit an edge position: round 2's 3 recipients x 3 candidates
    expect(masks[0].theta).not.toEqual(masks[1].theta); // one mask a seed
    const given = await evalJob({ ...o, masks });
    expect(given.rows).toEqual(itself.rows);
    expect(given.tests).toEqual(itself.tests);
    // Masks that keep every edge give the static mask Full-Debate's row: the given masks are what it replays.
    const keepAll = masks.map((m) => ({ theta: m.theta.map(() => 10), skipped: 0 }));
    const mask = (r: Awaited<ReturnType<typeof evalJob>>) => r.rows.find((row) => row.method === 'Static learned mask')!;
    expect(mask(await evalJob({ ...o, masks: keepAll })).keptPct).toBe(100);
    expect(mask(itself).keptPct).toBeLessThan(100);
  });

  it('a worker of the pool that finds no item left says so while the other still runs its own', async () => {
    const said: string[] = [];
    const results = await pool(
      [60, 5, 5],
      2,
      async (ms) => {
        await sleep(ms);
        said.push(`done ${ms}`);
        return ms;
      },
      () => said.push('drained'),
    );
    expect(results.map((r) => r.status === 'fulfilled' && r.value)).toEqual([60, 5, 5]);
    expect(said).toEqual(['done 5', 'done 5', 'drained', 'done 60', 'drained']);
  });
});
