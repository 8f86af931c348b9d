// `fidelity` end to end on a small simulated world: every method under both tiers, the table, the
// rankings' tau and the round-2 bias; the record replay answers from the simulator only.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fullDebate, randomPruning } from '../../eval/baselines.ts';
import { recordEnvironment } from '../../jobs/fidelity.ts';
import { loadCache } from '../../src/cache/load.ts';
import { writeCacheRecords } from '../../src/cache/write.ts';
import { splitQuestions } from '../../src/env/environment.ts';
import { generateCache } from '../../src/sim/generate.ts';
import { simulatorEndpoint } from '../../src/sim/simulator.ts';
import { resolveConfig } from '../../train/config.ts';
import { runFiles } from '../../train/runFolder.ts';
import { train } from '../../train/trainer.ts';
import { handRecords } from '../fixtures/handCache.ts';
import { builtCli as cli } from '../fixtures/cli.ts';
import { METHOD } from '../fixtures/method.ts';

async function smallWorld(): Promise<string> {
  const dir = join(mkdtempSync(join(tmpdir(), 'cpp-fidelity-')), 'cache');
  await generateCache(dir, { questions: 48, round1Samples: 2, randomTrajectories: 1 }, 'small-sim');
  return dir;
}

describe('fidelity', () => {
  it('the record replay answers every context the cache lacks from the simulator, ' +
    'never from an approximate tier, and leaves the cache on disk alone', async () => {
    const dir = await smallWorld();
    const cache = loadCache(dir);
    const before = cache.responses.length;
    const env = recordEnvironment(cache, {}, simulatorEndpoint(cache));
    const questions = splitQuestions(env, 'test').questions;
    const r = await randomPruning(env, questions, 0.5, 0);
    expect(r.tiers.record).toBeGreaterThan(0);
    expect(cache.responses.length).toBe(before + r.tiers.record);
    expect(r.tiers.model + r.tiers.signature).toBe(0);
    expect((await fullDebate(env, questions)).tiers.exact).toBe(questions.length * 3 * 2); // recorded debates are exact hits
    // Asking again is free: the same contexts are now recorded.
    const again = await randomPruning(env, questions, 0.5, 0);
    expect(again.tiers.record).toBe(0);
    expect(again.correct).toBe(r.correct);
    expect(loadCache(dir).responses.length).toBe(before); // nothing journaled
  }, 120_000);

  it('runs every method under miss = model and miss = record and prints the table, tau and the round-2 bias', async () => {
    const dir = await smallWorld();
    const run = join(dir, '..', 'policy');
    await train(resolveConfig({ ...METHOD, cache: dir, out: run, epochs: 1, batchSize: 8, hidden: 16, engine: 'onnx' }), { log: () => {} });
    const out = join(dir, '..', 'report');
    const r = cli('fidelity', '--cache', dir, '--policy', runFiles(run).best, '--keep-rates', '0.25,0.75', '--seeds', '2', '--samples', '1', '--out', out);
    expect(r.stderr.split('\n').filter((l) => l && !l.startsWith('npm warn') && !/generate|embed/.test(l))).toEqual([]);
    expect(r.status).toBe(0);
    const methods = [
      'Full-Debate',
      'No-communication',
      'Single atlas',
      'Single sage',
      'Single brisk',
      'Consistency atlas',
      'Consistency sage',
      'Consistency brisk',
      'Consistency-Best',
      'Consistency-Fuse',
      'Freeze (always)',
      'Freeze (when round-2 majority changed)',
      'Random pruning (keep 25%)',
      'Random pruning (keep 75%)',
      'Oracle: keeps only correct candidates (reads gold)',
      'Static learned mask',
      'CPP FuseGLU',
    ];
    for (const m of methods) expect(r.stdout).toContain(`| ${m}`);
    expect(r.stdout).toContain("Kendall's tau-b of the 17 methods ranked by accuracy under model and under record");
    expect(r.stdout).toContain('| wrong recipient, own response pruned');

    const csv = readFileSync(join(out, 'fidelity.csv'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => l.split(','));
    const column = (name: string) => csv[0].indexOf(name);
    const rows = new Map(csv.slice(1).map((c) => [c[0].replace(/^"|"$/g, ''), c]));
    expect(rows.size).toBe(17);
    const value = (method: string, name: string) => Number([...rows].find(([m]) => m.startsWith(method))![1][column(name)]);
    // Recorded debates and round-1 votes read the cache alike under both tiers.
    for (const m of ['Full-Debate', 'No-communication', 'Single atlas', 'Consistency sage', 'Freeze (always)']) {
      expect(value(m, 'delta_accuracy_pp')).toBe(0);
      expect(value(m, 'tier_model_pct')).toBe(0);
    }
    expect(value('Full-Debate', 'cost_pct_record')).toBe(100);
    // Pruned debates leave the recorded contexts: the model answers some of them.
    for (const m of ['Random pruning (keep 25%)', 'Random pruning (keep 75%)', 'Oracle']) {
      expect(value(m, 'tier_model_pct'), m).toBeGreaterThan(0);
      expect(value(m, 'delta_accuracy_ci_low')).toBeLessThanOrEqual(value(m, 'delta_accuracy_pp'));
      expect(value(m, 'delta_accuracy_ci_high')).toBeGreaterThanOrEqual(value(m, 'delta_accuracy_pp'));
      // Where it went: the endpoint asked at (at most 400 of) the lookups the model answered in its replay.
      expect(value(m, 'visited_lookups'), m).toBeGreaterThan(0);
      expect(value(m, 'visited_asked')).toBe(Math.min(400, value(m, 'visited_lookups')));
      expect(value(m, 'visited_bias_ci_low')).toBeLessThanOrEqual(value(m, 'visited_bias_pp'));
      expect(value(m, 'visited_bias_ci_high')).toBeGreaterThanOrEqual(value(m, 'visited_bias_pp'));
      expect(Math.abs(value(m, 'visited_bias_pp'))).toBeLessThan(15); // the model fitted to this world answers near it
    }
    expect(value('Full-Debate', 'visited_lookups')).toBe(0); // recorded debates: nothing for the model to answer
    expect(value('Random pruning (keep 25%)', 'runs')).toBe(2);
    // Tier shares of both replays, and the accuracy's spread over a method's runs (none for one run).
    for (const m of ['Random pruning (keep 25%)', 'Static learned mask']) {
      expect(value(m, 'tier_exact_pct') + value(m, 'tier_signature_pct') + value(m, 'tier_model_pct'), m).toBeCloseTo(100, 6);
      expect(value(m, 'record_tier_record_pct'), m).toBeGreaterThan(0);
      // Two runs on the 12 test questions: mean ± sd/√2 are the two runs' accuracies, each a whole number of questions.
      for (const tier of ['model', 'record'])
        for (const side of [1, -1]) {
          const questions = (12 / 100) * (value(m, `accuracy_${tier}`) + (side * value(m, `accuracy_${tier}_sd`)) / Math.SQRT2);
          expect(Math.abs(questions - Math.round(questions)), `${m}, ${tier}: ${questions} questions`).toBeLessThan(1e-9);
        }
    }
    expect(value('Full-Debate', 'tier_exact_pct')).toBe(100);
    expect(value('Full-Debate', 'record_tier_record_pct')).toBe(0);
    expect(rows.get('Full-Debate')![column('accuracy_model_sd')]).toBe('');
    expect(r.stdout).toMatch(/\| Random pruning \(keep 25%\) +\| +2 \| \d+\.\d ± \d+\.\d +\| \d+\.\d ± \d+\.\d +\|.*\| exact \d+%, record \d+% +\|/);
    // The trained policy answers at least as well as No-communication on the same 12 test questions
    // under the record tier: measured 66.7% each (8 of 12: after one epoch the policy keeps every
    // edge, so it replays the recorded debates); margin 0 questions.
    expect(value('CPP FuseGLU', 'accuracy_record')).toBeGreaterThanOrEqual(value('No-communication', 'accuracy_record'));
    const bias = readFileSync(join(out, 'context-bias.csv'), 'utf8').trim().split('\n');
    const test = 48 - 24 - 12;
    const contexts = bias.filter((l) => l.startsWith('every context,')).map((l) => Number(l.split(',')[1]));
    expect(contexts).toEqual([test * 3 * 8, test * 3 * 8, test * 3 * 8]); // 3 models
  }, 600_000);

  it('refuses --miss and a cache whose endpoint cannot answer every context', () => {
    const miss = cli('fidelity', '--miss', 'model');
    expect(miss.status).toBe(1);
    expect(miss.stderr).toContain('--miss: fidelity runs every method under both miss = model and miss = record');
    const dir = join(mkdtempSync(join(tmpdir(), 'cpp-fidelity-')), 'hand');
    writeCacheRecords(dir, handRecords());
    const hand = cli('fidelity', '--cache', dir);
    expect(hand.status).toBe(1);
    expect(hand.stderr).toContain('has no live endpoint for miss = record');
  }, 120_000);
});
