// Behavior rows: read from the cache's validation questions alone, they tell an adversary from the
// agent it replaced; a policy that reads them carries them through its checkpoint, its export, the
// deploy contract and the golden vectors; training across teams refuses what it cannot honour.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as ort from 'onnxruntime-node';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadCache } from '../../src/cache/load.ts';
import { bofEncoder } from '../../src/encoders/bof.ts';
import { loadPolicy, savePolicy, type PolicyArtifact } from '../../src/policy/artifact.ts';
import { cacheRows, ROW_STATS, ROW_WIDTH, rowsByAgent, teamRows } from '../../src/policy/behaviorRows.ts';
import { policySpec } from '../../src/policy/contract.ts';
import { goldenVectors } from '../../src/policy/golden.ts';
import { deployPolicy } from '../../src/policy/inference.ts';
import { initWeights, type PolicyShape } from '../../src/policy/model.ts';
import { generateCache } from '../../src/sim/generate.ts';
import { replaceAgent } from '../../src/sim/replace.ts';
import { WorldConfig } from '../../src/sim/world.ts';
import { resolveConfig } from '../../train/config.ts';
import { train } from '../../train/trainer.ts';
import { METHOD } from '../fixtures/method.ts';

const dir = mkdtempSync(join(tmpdir(), 'cpp-rows-'));
const stat = (row: Float32Array, name: (typeof ROW_STATS)[number]) => row[ROW_STATS.indexOf(name)];

beforeAll(async () => {
  await generateCache(join(dir, 'world'), { questions: 60 }, 'small');
  await generateCache(join(dir, 'adversarial'), replaceAgent(WorldConfig.parse({ questions: 60 }), { agent: 'brisk', ability: 'adversarial' }).world, 'adv');
}, 300_000); // a loaded machine

describe('behavior rows of a cache', () => {
  it("tell the adversary that took brisk's seat from brisk, by what each did on validation questions", () => {
    const honest = cacheRows(loadCache(join(dir, 'world'), () => {}))[2];
    const adversary = cacheRows(loadCache(join(dir, 'adversarial'), () => {}))[2];
    expect(honest).toHaveLength(ROW_WIDTH);
    expect(stat(honest, 'accuracy')).toBeGreaterThan(0.2);
    expect(stat(adversary, 'accuracy')).toBe(0); // it argues for the distractor
    expect(stat(adversary, 'changes')).toBe(0); // whatever it is shown
    expect(stat(adversary, 'followedWrong')).toBeGreaterThan(0.3); // and is followed
    // Same length and price as brisk: the newcomer keeps them.
    expect(stat(adversary, 'logPrice')).toBeCloseTo(stat(honest, 'logPrice'), 5);
  });

  it('are counted on validation questions only: a test-split response changed changes no row', () => {
    const cache = loadCache(join(dir, 'world'), () => {});
    const before = cacheRows(cache).map((r) => Array.from(r));
    const test = cache.responses.find((r) => cache.questions[r.q].split === 'test' && r.round === 1)!;
    const changed = { ...cache, responses: cache.responses.map((r) => (r === test ? { ...r, correct: !r.correct, outTokens: 9999 } : r)) };
    expect(cacheRows(changed).map((r) => Array.from(r))).toEqual(before);
    const validation = cache.responses.find((r) => cache.questions[r.q].split === 'validation' && r.round === 1 && r.a === 0)!;
    const touched = { ...cache, responses: cache.responses.map((r) => (r === validation ? { ...r, outTokens: 9999 } : r)) };
    expect(cacheRows(touched)[0][ROW_STATS.indexOf('logTokens')]).toBeGreaterThan(before[0][ROW_STATS.indexOf('logTokens')]);
  });
});

describe('a policy that reads behavior rows', () => {
  const shape: PolicyShape = {
    dim: 24,
    hidden: 8,
    agents: 3,
    rounds: 3,
    behavior: 'none',
    initSamples: null,
    conditioning: true,
    ownFeature: true,
    sourceFeature: false,
    roundFeature: true,
    currentFeature: false,
    turnFeature: false,
    behaviorRows: 1,
    decisions: 'edges',
  };
  const team = ['atlas', 'sage', 'brisk'];
  const artifact = (rows: Float32Array): PolicyArtifact => {
    const weights = initWeights(shape, 'rows');
    weights.rowProj.data.forEach((_, i, a) => (a[i] = Math.sin(3.7 * i))); // large enough to move the keep probability
    return {
      format: 'cpp-policy',
      version: 1,
      shape,
      team,
      encoder: 'bof-24',
      rows: rowsByAgent(team, rows),
      trainedOn: { cache: 'x', seed: 0, epoch: 0 },
      weights,
    };
  };

  it('lists source_row and recipient_row in its contract, with the statistics in order, and its golden rows feed policy.onnx to their keep probabilities', async () => {
    const cache = loadCache(join(dir, 'world'), () => {});
    const a = artifact(teamRows(cache, [0, 1, 2]));
    const spec = policySpec(a);
    expect(spec).toContain('| `source_row` | float32 [N, 9] |');
    expect(spec).toContain(ROW_STATS.join(', '));
    const policy = await deployPolicy(a, bofEncoder(24));
    const golden = await goldenVectors(policy, bofEncoder(24));
    const { onnxModel } = await import('../../src/policy/contract.ts');
    const session = await ort.InferenceSession.create(onnxModel(a));
    const f32 = (x: number[], width: number) => new ort.Tensor('float32', Float32Array.from(x), [1, width]);
    const int = (x: number) => new ort.Tensor('int64', BigInt64Array.of(BigInt(x)), [1]);
    for (const d of golden.decisions)
      for (const r of d.rows) {
        expect(r.source_row).toEqual(Array.from(Float32Array.from(a.rows![r.agent])));
        expect(r.recipient_row).toEqual(Array.from(Float32Array.from(a.rows![d.request.recipient])));
        const out = await session.run({
          query: f32(r.query, 24),
          behavior: f32(r.behavior, 24),
          candidate: f32(r.candidate, 24),
          own: int(r.own),
          source: int(r.source),
          round: int(r.round),
          current: int(r.current),
          turn: int(r.turn),
          source_row: f32(r.source_row!, ROW_WIDTH),
          recipient_row: f32(r.recipient_row!, ROW_WIDTH),
        });
        expect((out.keep_probability.data as Float32Array)[0]).toBeCloseTo(r.keep_probability, 6);
      }
    // Another team's rows in the same weights: other keep probabilities (the rows are read).
    const other = await goldenVectors(
      await deployPolicy(
        artifact(
          teamRows(
            loadCache(join(dir, 'adversarial'), () => {}),
            [0, 1, 2],
          ),
        ),
        bofEncoder(24),
      ),
      bofEncoder(24),
    );
    expect(other.decisions[0].rows.map((r) => r.keep_probability)).not.toEqual(golden.decisions[0].rows.map((r) => r.keep_probability));
  });

  it('saves its rows in policy.json, and a file without them is refused naming the field', () => {
    const a = artifact(new Float32Array(3 * ROW_WIDTH).fill(0.5));
    const file = join(dir, 'p.json');
    savePolicy(file, a);
    expect(loadPolicy(file).rows).toEqual(a.rows);
    const json = JSON.parse(readFileSync(file, 'utf8'));
    delete json.rows;
    writeFileSync(file, JSON.stringify(json));
    expect(() => loadPolicy(file)).toThrow(`${file}: rows: the policy reads behavior rows (shape.behaviorRows 1), and a team member's row is missing`);
  });

  it('a policy saved before the setting (its shape without behaviorRows) loads with it off', () => {
    const { behaviorRows: _, ...old } = { ...shape, behavior: 'mean' as const, sourceFeature: true, behaviorRows: 0 };
    const file = join(dir, 'old.json');
    savePolicy(file, {
      ...artifact(new Float32Array(3 * ROW_WIDTH)),
      shape: old as PolicyShape,
      rows: undefined,
      weights: initWeights({ ...old, behaviorRows: 0 }, 'old'),
    });
    expect(JSON.parse(readFileSync(file, 'utf8')).shape).not.toHaveProperty('behaviorRows');
    const loaded = loadPolicy(file);
    expect(loaded.shape.behaviorRows).toBe(0);
    expect(loaded.weights).not.toHaveProperty('rowProj');
  });
});

describe('training across teams', () => {
  it('refuses a per-seat behavior embedding, and a team cache of other questions', async () => {
    const base = { ...METHOD, cache: join(dir, 'world'), epochs: 1, hidden: 8, batchSize: 16, behaviorRows: 1, sourceFeature: false };
    expect(() => resolveConfig({ ...base, out: join(dir, 'r1'), teams: [join(dir, 'adversarial')] })).toThrow(
      'setting teams: training across teams reads agents by their behavior rows, and behavior describes a seat, not the agent in it',
    );
    await generateCache(join(dir, 'other'), { questions: 60, seed: 8 }, 'other');
    await expect(train(resolveConfig({ ...base, behavior: 'none', out: join(dir, 'r2'), teams: [join(dir, 'other')] }), { log: () => {} })).rejects.toThrow(
      /setting teams: .*other does not hold the run's train question/,
    );
  }, 120_000);
});
