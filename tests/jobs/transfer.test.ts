// The transfer job end to end on small data: a simulated world with one agent replaced (cache gen
// --replace), and two imports of the same DyLAN MATH debates whose teams differ in one model.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { genJob } from '../../jobs/cache.ts';
import { importJob, type ImportOptions } from '../../jobs/import.ts';
import { transferJob, type TransferOptions } from '../../jobs/transfer.ts';
import { ensureEmbeddings } from '../../src/cache/embeddings.ts';
import { loadCache } from '../../src/cache/load.ts';
import { makeEncoder } from '../../src/encoders/index.ts';
import { loadAnyPolicy, loadCheckpoint, saveCheckpoint } from '../../src/policy/artifact.ts';
import { behaviorInit } from '../../src/policy/behavior.ts';
import { resolveConfig, type TrainConfig } from '../../train/config.ts';
import { readLog, runFiles } from '../../train/runFolder.ts';
import { train } from '../../train/trainer.ts';
import { dylanMathFile } from '../fixtures/dylanMath.ts';
import { mathImport } from '../fixtures/duLayout.ts';

const quiet = { log: () => {} };
const SMALL: Partial<TrainConfig> = { epochs: 1, batchSize: 10, hidden: 16, backend: 'cpu', seed: 0 };
const compute = { engine: 'auto' as const, threads: 1, backend: 'cpu' as const };

/** Train the old policy; returns its best checkpoint. */
async function oldPolicy(settings: Partial<TrainConfig> & { out: string }): Promise<string> {
  await train(resolveConfig(settings), quiet);
  return runFiles(settings.out).best;
}

const options = (policy: string, cache: string, out: string): TransferOptions => ({
  policies: [policy],
  cache,
  steps: 4,
  traceEvery: 2,
  workers: 2,
  compute,
  out,
});

describe('transfer on a simulated world with one agent replaced', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cpp-transfer-'));
  const world = { out: join(dir, 'world'), questions: 120, name: 'small' };

  it("starts the newcomer's embedding from its validation responses, fine-tunes and trains from scratch, and compares the five ways on test", async () => {
    await genJob(world);
    await genJob({ ...world, out: join(dir, 'stronger'), replace: { agent: 'brisk', ability: 'stronger' } });
    const policy = await oldPolicy({ ...SMALL, cache: world.out, out: join(dir, 'old') });
    const out = join(dir, 'job');
    const printed = await transferJob(options(policy, join(dir, 'stronger'), out));
    expect(printed).toContain('brisk (sim/brisk-mini) replaced by brisk-stronger (sim/brisk-mini-stronger); team atlas, sage, brisk-stronger');
    for (const label of [
      "(a) newcomer's embedding, no training",
      '(b) fine-tune the behavior embedding, 4 steps',
      '(c) fine-tune everything, 4 steps',
      '(d) from scratch, 6 steps', // 60 train questions, batches of 10, one epoch
      "(e) the replaced member's embedding",
    ])
      expect(printed).toContain(`| ${label}`);
    expect(printed).toMatch(/- \(a\) keeps .* Claim, at least 80%: \(a\)'s gain minus 80% of \(d\)'s is [+-]\d/);

    // The start: the old weights, the newcomer's row from its validation responses in the new cache.
    const old = loadAnyPolicy(policy);
    const start = loadAnyPolicy(join(out, 'start', 'seed-0.json'));
    const cache = loadCache(join(dir, 'stronger'));
    const emb = await ensureEmbeddings(join(dir, 'stronger'), cache, await makeEncoder('bof'));
    const D = old.shape.dim;
    expect(start.team).toEqual(['atlas', 'sage', 'brisk-stronger']);
    expect(start.weights.behavior.data.subarray(2 * D)).toEqual(behaviorInit(cache, emb, [2], null, '0'));
    expect(start.weights.behavior.data.subarray(0, 2 * D)).toEqual(old.weights.behavior.data.subarray(0, 2 * D));
    expect(start.weights['head.w'].data).toEqual(old.weights['head.w'].data);
    // (b) moved the behavior embedding alone, (c) everything, both from the start.
    const b = loadCheckpoint(runFiles(join(out, 'embedding', 'seed-0')).checkpoint);
    const c = loadCheckpoint(runFiles(join(out, 'all', 'seed-0')).checkpoint);
    expect(b.step).toBe(4);
    expect(b.engine.weights['b1.Wg'].data).toEqual(start.weights['b1.Wg'].data);
    expect(b.engine.weights.behavior.data).not.toEqual(start.weights.behavior.data);
    expect(c.engine.weights['b1.Wg'].data).not.toEqual(start.weights['b1.Wg'].data);
    // The curves: every run traced on test at its start, every 2 steps and at its end; (b) and (c) start where (a) is.
    const traced = (run: string) =>
      readLog(join(out, run, 'seed-0'))
        .filter((l) => l.type === 'trace')
        .map((l) => l.step);
    expect(traced('embedding')).toEqual([0, 2, 4]);
    expect(traced('scratch')).toEqual([0, 2, 4, 6]);
    const curves = readFileSync(join(out, 'report', 'curves.csv'), 'utf8');
    expect(curves.split('\n')[0]).toBe('series,run,step,metric,value');
    expect(curves).toContain('"(b) fine-tune the behavior embedding, 4 steps",seed 0,0,accuracy (%),');
    const at0 = (label: string) =>
      curves
        .split('\n')
        .find((l) => l.startsWith(`"${label}",seed 0,0,accuracy`))!
        .split(',')
        .at(-1);
    expect(at0('(b) fine-tune the behavior embedding, 4 steps')).toBe(at0('(c) fine-tune everything, 4 steps'));
    // ... and where the table reads (a): the same policy, the same replay draws of the seed.
    const a = readFileSync(join(out, 'report', 'transfer.csv'), 'utf8')
      .split('\n')
      .find((l) => l.startsWith(`"(a) newcomer's embedding, no training"`))!;
    expect(Number(a.split('",')[1].split(',')[2])).toBeCloseTo(Number(at0('(b) fine-tune the behavior embedding, 4 steps')), 1);

    // A rerun reuses every run; a retrained old policy makes the fine-tunes another start: refused, or with force trained anew.
    expect(await transferJob(options(policy, join(dir, 'stronger'), out))).toMatch(/runs: (\S+ reused, ){2}\S+ reused/);
    const checkpoint = loadCheckpoint(policy);
    checkpoint.engine.weights['head.b'].data[0] += 1;
    saveCheckpoint(policy, checkpoint);
    await expect(transferJob(options(policy, join(dir, 'stronger'), out))).rejects.toThrow(
      /was fine-tuned from another .*start.*seed-0\.json than now: pass --force/,
    );
    expect(await transferJob({ ...options(policy, join(dir, 'stronger'), out), force: true })).toMatch(/embedding\/seed-0 trained/);

    // The old world itself is no new team.
    await expect(transferJob(options(policy, world.out, join(dir, 'same')))).rejects.toThrow(/differ in no member/);
  }, 1_200_000); // three jobs, five training children: 7 minutes at load 25
});

describe('transfer between two imports of the same questions whose teams differ in one model', () => {
  const importOf = (out: string, models: string[]): ImportOptions => ({
    ...mathImport,
    files: [dylanMathFile('algebra_1_248_4_3')],
    out,
    name: 'algebra',
    models,
    prices: { ...mathImport.prices, 'gpt-4o-mini': { in: 0.15, out: 0.6 } },
  });

  it('finds the member whose model changed (same id) and compares the five ways on the second import', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cpp-transfer-import-'));
    await importJob(importOf(join(dir, 'before'), ['gpt-3.5-turbo']));
    // The second import: position a2 answered by another model (here relabelled; with real data, another recording).
    await importJob(importOf(join(dir, 'after'), ['gpt-3.5-turbo', 'gpt-4o-mini', 'gpt-3.5-turbo']));
    const policy = await oldPolicy({ ...SMALL, cache: join(dir, 'before'), agents: ['a1', 'a2', 'a3'], rounds: 2, out: join(dir, 'old') });
    const out = join(dir, 'job');
    const printed = await transferJob(options(policy, join(dir, 'after'), out));
    expect(printed).toContain('algebra: a2 (gpt-3.5-turbo) replaced by a2 (gpt-4o-mini); team a1, a2, a3');
    expect(printed).not.toContain('warning:'); // the same split seed: no test question of the second import was a train question of the first
    expect(printed).toContain("| (e) the replaced member's embedding");
    // The relabelled member's responses are the old ones: its row starts where the old policy's training started it.
    const cache = loadCache(join(dir, 'after'));
    const emb = await ensureEmbeddings(join(dir, 'after'), cache, await makeEncoder('bof'));
    const D = loadAnyPolicy(policy).shape.dim;
    expect(loadAnyPolicy(join(out, 'start', 'seed-0.json')).weights.behavior.data.subarray(D, 2 * D)).toEqual(behaviorInit(cache, emb, [1], null, '0'));
  }, 900_000);
});
