// --print-config and --dry-run: what they print, and that they write nothing (run as a user runs
// them: the `cpp-workbench` bin, from an empty folder where the default cache does not exist yet).
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { resolveConfig } from '../../train/config.ts';
import { train } from '../../train/trainer.ts';
import { writeTinyCache } from '../fixtures/tinyWorld.ts';
import { METHOD } from '../fixtures/method.ts';

const repo = resolve(import.meta.dirname, '../..');
const bin = join(repo, 'bin/cpp-workbench.mjs');

/** Every file under `dir` with its content hash and modification time. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else out[p] = `${createHash('sha256').update(readFileSync(p)).digest('hex')} ${statSync(p).mtimeMs}`;
    }
  };
  walk(dir);
  return out;
}

describe('--print-config and --dry-run', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cpp-plan-'));
  const cache = join(dir, 'tiny');
  const run = join(dir, 'run');
  const cli = (...args: string[]) => execFileSync(process.execPath, [bin, ...args], { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  let before: Record<string, string>;
  beforeAll(async () => {
    writeTinyCache(cache);
    // An interrupted run: 1 of 3 epochs done.
    await train(resolveConfig({ ...METHOD, cache, out: run, rounds: 2, miss: 'error', batchSize: 6, hidden: 16, epochs: 3, lr: 0.01 }), {
      log: () => {},
      stopAfterEpochs: 1,
    });
    before = snapshot(dir);
  }, 120_000);

  it('train --print-config prints the resolved settings as JSON', () => {
    const printed = JSON.parse(cli('train', '--config', join(repo, 'train/configs/main.json'), '--epochs', '4', '--print-config'));
    expect(printed).toEqual(resolveConfig(JSON.parse(readFileSync(join(repo, 'train/configs/main.json'), 'utf8')), { epochs: 4 }));
    // A resumed run prints the settings it would continue with: its saved ones, and the compute flags given.
    const resumed = JSON.parse(cli('train', '--resume', '--out', run, '--threads', '2', '--print-config'));
    expect(resumed).toMatchObject({ cache, out: run, epochs: 3, lr: 0.01, hidden: 16, threads: 2 });
  }, 60_000);

  it('train --dry-run says what the run would do', () => {
    expect(cli('train', '--resume', '--out', run, '--dry-run')).toContain(`resume ${run}: epochs 2-3 (checkpoint at epoch 1)`);
    expect(cli('train', '--out', run, '--dry-run')).toContain(`refuse: ${run} already holds a run`);
    const fresh = cli('train', '--out', join(dir, 'new'), '--epochs', '5', '--dry-run');
    expect(fresh).toContain(`start ${join(dir, 'new')}: 5 epochs`);
    expect(fresh).toContain('cache: cache/default is missing; generate the default simulated world there first');
    expect(fresh).toMatch(/engine: (onnx|tfjs) \(auto\)/);
  }, 60_000);

  it('main, ablate, eval and baselines plan without writing', () => {
    const config = join(repo, 'train/configs/main.json');
    const epochs = resolveConfig(JSON.parse(readFileSync(config, 'utf8'))).epochs;
    const main = cli('main', '--cache', cache, '--config', config, '--out', 'job', '--seeds', '2', '--dry-run');
    expect(main).toContain(`cache: read ${join(cache, 'cache.jsonl')}`);
    expect(main).toContain(`start job/seed-0: ${epochs} epochs`);
    expect(main).toContain('writes in job/report: comparison.md');
    const settings = JSON.parse(cli('main', '--config', config, '--seeds', '2', '--print-config'));
    expect(settings.runs).toEqual([
      { seed: 0, out: 'checkpoints/main/seed-0' },
      { seed: 1, out: 'checkpoints/main/seed-1' },
    ]);
    expect(settings.training.epochs).toBe(epochs);
    const ablate = cli('ablate', '--grid', join(repo, 'train/grids/table6.json'), '--dry-run');
    expect(ablate).toMatch(/^train \d+ cells, 2 at a time:$/m);
    expect(ablate).toMatch(/start results\/table6\/k-minus1\/default\/seed-0: \d+ epochs \[k = -1 \| cache\/default \| seed 0\]/);
    const evalPlan = cli(
      'eval',
      '--cache',
      cache,
      '--policy',
      join(run, 'best.json'),
      '--policy',
      'missing.json',
      '--methods',
      'full,random',
      '--out',
      'cmp',
      '--dry-run',
    );
    expect(evalPlan).toContain("row: Random pruning at the policies' mean keep rate, 3 seeds");
    expect(evalPlan).toContain('missing.json (missing: the command would stop there)');
    expect(evalPlan).toContain('replay: split test, team a1, a2, a3, 2 rounds');
    expect(JSON.parse(cli('baselines', '--cache', cache, '--print-config')).methods).toEqual(['full', 'none', 'single']);
    expect(snapshot(dir)).toEqual(before); // nothing written, not even the default cache
  }, 120_000);
});
