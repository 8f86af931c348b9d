// --rounds through the jobs: eval and record replay a policy at the rounds asked for (its own only
// by default), a round feature too short for them is an error naming both; main's training runs
// and ablate's cells take the rounds given, each override of a config or grid said; a run folder
// of other settings is never reused as if it were this run.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { withRounds } from '../../jobs/ablate.ts';
import { evalJob } from '../../jobs/eval.ts';
import { runSettings } from '../../jobs/main.ts';
import { policyShapeFor } from '../../src/policy/evaluate.ts';
import { POLICY_FORMAT, savePolicy, type PolicyArtifact } from '../../src/policy/artifact.ts';
import { initWeights, type PolicyShape } from '../../src/policy/model.ts';
import { defaultCompute } from '../../src/policy/backends.ts';
import { overrideNotes, resolveConfig } from '../../train/config.ts';
import { GridFile } from '../../train/grid.ts';
import { checkRun } from '../../train/runs.ts';
import { cacheHash } from '../../src/cache/hash.ts';
import { train } from '../../train/trainer.ts';
import { writeTinyCache } from '../fixtures/tinyWorld.ts';
import { METHOD } from '../fixtures/method.ts';

/** An (untrained) policy for the tiny world's team, trained "for" `rounds` rounds. */
function policy(dir: string, rounds: number, roundFeature: boolean): string {
  const shape: PolicyShape = {
    dim: 256,
    hidden: 8,
    agents: 3,
    rounds,
    behavior: 'random',
    initSamples: null,
    conditioning: true,
    ownFeature: true,
    sourceFeature: true,
    roundFeature,
    currentFeature: false,
    turnFeature: false,
    behaviorRows: 0,
    decisions: 'edges',
  };
  const artifact: PolicyArtifact = {
    format: POLICY_FORMAT,
    version: 1,
    shape,
    team: ['a1', 'a2', 'a3'],
    encoder: 'bof-256',
    trainedOn: { cache: 'tiny', seed: 0, epoch: 0 },
    weights: initWeights(shape, '0'),
  };
  const file = join(dir, `policy-${rounds}-${roundFeature}.json`);
  savePolicy(file, artifact);
  return file;
}

function tiny() {
  const dir = mkdtempSync(join(tmpdir(), 'cpp-rounds-'));
  writeTinyCache(join(dir, 'cache'));
  return { dir, cache: join(dir, 'cache') };
}

describe('a policy replayed for other rounds than it was trained for', () => {
  const a = (rounds: number, roundFeature: boolean) => ({ shape: { rounds, roundFeature } }) as PolicyArtifact;

  it('a round feature of R - 1 rows takes up to R rounds; beyond, an error names both; without the feature any number', () => {
    expect(policyShapeFor(a(3, true), 'p.json', 3).note).toBeUndefined();
    expect(policyShapeFor(a(3, true), 'p.json', 2)).toEqual({
      shape: { rounds: 3, roundFeature: true },
      note: "p.json: trained for 3 rounds, replayed for 2 (its round feature's rows for rounds 2..2)",
    });
    expect(() => policyShapeFor(a(2, true), 'p.json', 5)).toThrow(
      'p.json: trained for 2 rounds, its round feature has 1 row (rounds 2..2), but the debate has 5 rounds: replay it with --rounds ' +
        '2 or fewer, or train a policy for 5 rounds (or one without the round feature, --no-round-feature, which takes any number)',
    );
    expect(policyShapeFor(a(2, false), 'p.json', 5)).toEqual({
      shape: { rounds: 5, roundFeature: false },
      note: 'p.json: trained for 2 rounds, replayed for 5 (it has no round feature)',
    });
  });

  it("eval replays at --rounds when given (was: the policy's rounds, silently), at the policy's otherwise", async () => {
    const { dir, cache } = tiny();
    const job = (policies: string[], settings: object) =>
      evalJob({
        policies,
        cache,
        split: 'validation',
        compute: { ...defaultCompute(), backend: 'cpu' },
        settings: { miss: 'model', ...settings },
        methods: ['full'],
        seeds: 1,
        reference: 'Full-Debate',
      });
    const twoRounds = policy(dir, 2, true);
    expect((await job([twoRounds], {})).table).toMatch(/validation split, 6 questions, 2 rounds, miss = model/);
    await expect(job([twoRounds], { rounds: 3, allowUnrecordedRounds: true })).rejects.toThrow(
      /trained for 2 rounds, its round feature has 1 row \(rounds 2\.\.2\), but the debate has 3 rounds/,
    );
    const said = vi.spyOn(console, 'error').mockImplementation(() => {});
    const out = await job([policy(dir, 2, false)], { rounds: 3, allowUnrecordedRounds: true });
    expect(out.table).toMatch(/validation split, 6 questions, 3 rounds, miss = model/);
    expect(out.rows.find((r) => r.policy)!.tiers.model).toBeGreaterThan(0); // round 3 is the model's
    expect(said.mock.calls.flat()).toContain(`${join(dir, 'policy-2-false.json')}: trained for 2 rounds, replayed for 3 (it has no round feature)`);
    said.mockRestore();
  }, 300_000);
});

describe('rounds given to the jobs that train', () => {
  it('main passes its debate flags to its training runs, over the config file, and says each override', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cpp-rounds-'));
    const config = join(dir, 'main.json');
    writeFileSync(config, JSON.stringify({ epochs: 2, rounds: 3, tieBreak: 'random' }));
    const said: string[] = [];
    const s = runSettings({ config, settings: { rounds: 5, agents: ['a1', 'a2'], seed: 9 }, compute: defaultCompute() }, (l) => said.push(l));
    expect(s).toMatchObject({ epochs: 2, rounds: 5, agents: ['a1', 'a2'], tieBreak: 'random' });
    expect(s.seed).toBeUndefined(); // --seed is the comparison's replay seed; a run's seed is its index
    expect(said).toEqual([`--rounds 5 overrides rounds 3 of ${config}`]);
    expect(runSettings({ config, settings: {}, compute: defaultCompute() }, (l) => said.push(l)).rounds).toBe(3);
    expect(overrideNotes({ batchSize: 64, lr: 1e-3 }, { batchSize: 32, lr: 1e-3, k: -1 }, 'f.json')).toEqual([
      '--batch-size 32 overrides batchSize 64 of f.json',
    ]);
  });

  it('ablate --rounds sets every cell and the table, and names each grid setting it overrides', () => {
    const grid = GridFile.parse({
      name: 'g',
      base: { rounds: 3, epochs: 1 },
      variants: [
        { name: 'plain', settings: {} },
        { name: 'two rounds', settings: { rounds: 2 } },
      ],
    });
    const said: string[] = [];
    const g = withRounds(grid, 'g.json', 4, (l) => said.push(l));
    expect([g.base.rounds, ...g.variants.map((v) => v.settings.rounds)]).toEqual([4, 4, 4]);
    expect(said).toEqual(['--rounds 4 overrides rounds 3 of g.json (base)', "--rounds 4 overrides rounds 2 of g.json (variant 'two rounds')"]);
    expect(withRounds(grid, 'g.json', undefined, (l) => said.push(l))).toBe(grid);
  });

  it('a run folder holding a run of other settings is an error naming them, not a run to reuse', async () => {
    const { dir, cache } = tiny();
    const settings = {
      ...METHOD,
      cache,
      out: join(dir, 'run'),
      rounds: 2,
      miss: 'error' as const,
      batchSize: 6,
      hidden: 8,
      backend: 'cpu' as const,
      epochs: 1,
    };
    await train(resolveConfig(settings), { log: () => {} });
    const hash = await cacheHash(cache);
    expect(checkRun(settings, hash).action).toBe('reuse');
    expect(checkRun({ ...settings, threads: 2 }, hash).action).toBe('reuse'); // how it computes may change
    expect(() => checkRun({ ...settings, batchSize: 3, k: -1 }, hash)).toThrow(
      `${settings.out} holds a run of other settings or another cache (batchSize 6 there, 3 ` +
        `asked; k 0 there, -1 asked): pass --force to train it anew there, or choose another folder`,
    );
  }, 300_000);
});
