// --print-config and --dry-run: what they print, and that they write nothing (run as a user runs
// them: the `cpp-workbench` bin, from an empty folder where the default cache does not exist yet).
// Their cache is large enough (COLUMNS_MIN_BYTES) that loading it would write its derived
// cache.columns, so that a plan which loaded the cache would be caught writing.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { COLUMNS_MIN_BYTES, columnsPath } from '../../src/cache/columns.ts';
import { writeCacheRecords } from '../../src/cache/write.ts';
import { resolveConfig } from '../../train/config.ts';
import { train } from '../../train/trainer.ts';
import { tinyRecords, writeTinyCache } from '../fixtures/tinyWorld.ts';
import { BUILT_CLI as CLI } from '../fixtures/cli.ts';
import { METHOD } from '../fixtures/method.ts';

const repo = resolve(import.meta.dirname, '../..');

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
  const large = join(dir, 'large');
  const cli = (...args: string[]) => execFileSync(process.execPath, [...CLI, ...args], { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  let before: Record<string, string>;
  beforeAll(async () => {
    writeTinyCache(cache);
    // An interrupted run: 1 of 3 epochs done.
    await train(resolveConfig({ ...METHOD, cache, out: run, rounds: 2, miss: 'error', batchSize: 6, hidden: 16, epochs: 3, lr: 0.01 }), {
      log: () => {},
      stopAfterEpochs: 1,
    });
    // The tiny world with one response padded past COLUMNS_MIN_BYTES, and without the columns its writing made.
    const pad = 'x'.repeat(COLUMNS_MIN_BYTES);
    writeCacheRecords(
      large,
      tinyRecords().map((r) => (r.type === 'response' && r.id === 'q0.a1.1' ? { ...r, text: `${pad} ${r.text}` } : r)),
    );
    rmSync(columnsPath(large));
    before = snapshot(dir);
  }, 600_000);

  it('train --print-config prints the resolved settings as JSON', () => {
    const printed = JSON.parse(cli('train', '--config', join(repo, 'train/configs/main.json'), '--epochs', '4', '--print-config'));
    expect(printed).toEqual(resolveConfig(JSON.parse(readFileSync(join(repo, 'train/configs/main.json'), 'utf8')), { epochs: 4 }));
    // A resumed run prints the settings it would continue with: its saved ones, and the compute flags given.
    const resumed = JSON.parse(cli('train', '--resume', '--out', run, '--threads', '2', '--print-config'));
    expect(resumed).toMatchObject({ cache, out: run, epochs: 3, lr: 0.01, hidden: 16, threads: 2 });
  }, 600_000);

  it('train --dry-run says what the run would do', () => {
    expect(cli('train', '--resume', '--out', run, '--dry-run')).toContain(`resume ${run}: epochs 2-3 (checkpoint at epoch 1)`);
    expect(cli('train', '--out', run, '--dry-run')).toContain(`refuse: ${run} already holds a run`);
    const fresh = cli('train', '--out', join(dir, 'new'), '--epochs', '5', '--dry-run');
    expect(fresh).toContain(`start ${join(dir, 'new')}: 5 epochs`);
    expect(fresh).toContain('cache: cache/default is missing; generate the default simulated world there first');
    expect(fresh).toMatch(/engine: (onnx|tfjs) \(auto picked (onnx|tfjs): /);
  }, 600_000);

  it("main, ablate, eval, baselines and train plan without writing, not even a large cache's columns", () => {
    const config = join(repo, 'train/configs/main.json');
    const epochs = resolveConfig(JSON.parse(readFileSync(config, 'utf8'))).epochs;
    const main = cli('main', '--cache', large, '--config', config, '--out', 'job', '--seeds', '2', '--dry-run');
    expect(main).toContain(`cache: read ${join(large, 'cache.jsonl')}`);
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
      large,
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
    expect(JSON.parse(cli('baselines', '--cache', large, '--print-config')).methods).toEqual(['full', 'none', 'single']);
    expect(cli('baselines', '--cache', large, '--dry-run')).toContain('row: Full-Debate');
    expect(cli('train', '--cache', large, '--out', join(dir, 'new'), '--dry-run')).toContain(`cache: read ${join(large, 'cache.jsonl')}`);
    expect(existsSync(columnsPath(large))).toBe(false);
    expect(snapshot(dir)).toEqual(before); // nothing written, not even the default cache or the large one's columns
  }, 600_000);
});
