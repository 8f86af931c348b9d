// The queue remembers, and so does a local grid: a cell that failed is remembered with its reason
// beside the grid's results (failed.json); a rerun reports it failed, untrained, unless asked to
// retry (--retry-failed); a cell of changed settings is another cell.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { ablateJob } from '../../jobs/ablate.ts';
import { defaultCompute } from '../../src/policy/backends.ts';
import { failedFile } from '../../train/failedCells.ts';
import { BUILT_CLI as CLI } from '../fixtures/cli.ts';
import { writeTinyGrid } from '../fixtures/tinyGrid.ts';
import { writeTinyCache } from '../fixtures/tinyWorld.ts';

it('a failed cell is remembered with its reason and not trained again unless --retry-failed', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'cpp-failed-cells-'));
  writeTinyCache(join(dir, 'cache'));
  // targetCost 0.1 is below what pruning every edge costs: the cell is refused when it starts training.
  const write = (bad: number) => writeTinyGrid(dir, join(dir, 'cache'), [{ name: 'ok' }, { name: 'bad', settings: { targetCost: bad } }]);
  const grid = join(dir, 'grid.json');
  const out = join(dir, 'results');
  const compute = { ...defaultCompute(), backend: 'cpu' as const };
  const ablate = async (retryFailed = false) => {
    const lines: string[] = [];
    const r = await ablateJob({ grid, out, workers: 2, split: 'validation', compute, retryFailed, log: (l) => lines.push(l) });
    return { ...r, lines };
  };
  const remembered = () => JSON.parse(readFileSync(failedFile(out), 'utf8')).cells as { id: string; reason: string; at: string }[];
  write(0.1);

  const first = await ablate();
  expect(first.failed).toBe(1);
  const [failure] = remembered();
  expect(failure.id).toBe(`bad | ${join(dir, 'cache')} | seed 0`);
  expect(failure.reason).toMatch(/targetCost: 0\.1 is below/);

  // Rerun (a restarted job): the failure is known, said with its reason, and nothing trains it.
  const again = await ablate();
  expect(again.failed).toBe(1);
  expect(again.lines).toContain(
    `cell not trained: ${failure.id}: failed in an earlier run (${failure.at}): ${failure.reason}; not trained again (--retry-failed trains it again)`,
  );
  expect(again.text).toMatch(/\(0 trained, 1 reused, 1 failed\)/);
  expect(remembered()).toEqual([failure]);

  // Asked to retry: it trains (and fails) again, remembered anew.
  const retried = await ablate(true);
  expect(retried.failed).toBe(1);
  expect(retried.lines.some((l) => l.startsWith('cell not trained'))).toBe(false);
  expect(remembered()[0].at).not.toBe(failure.at);

  // Settings changed: another cell, trained; it succeeds, and nothing is remembered failed.
  write(0.99);
  const fixed = await ablate();
  expect(fixed.failed).toBe(0);
  expect(remembered()).toEqual([]);
  expect(existsSync(join(out, 'bad', 'cache', 'seed-0', 'best.json'))).toBe(true);
}, 600_000);

it('a failure is remembered as it happens: ablate killed (SIGKILL) while its other cells train, the rerun knows it', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'cpp-failed-cells-'));
  writeTinyCache(join(dir, 'cache'));
  // One cell refused when it starts training, one that trains on for as long as the test needs.
  const grid = writeTinyGrid(dir, join(dir, 'cache'), [
    { name: 'bad', settings: { targetCost: 0.1 } },
    { name: 'long', settings: { epochs: 100_000 } },
  ]);
  const out = join(dir, 'results');
  /** `ablate` as a process, until its output shows `line`; then killed (SIGKILL, alone: its training processes stop themselves). */
  const ablateUntil = async (line: string) => {
    const job = spawn(process.execPath, [...CLI, 'ablate', '--grid', grid, '--out', out, '--workers', '2', '--split', 'validation'], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let err = '';
    await new Promise<void>((seen, fail) => {
      job.stderr.on('data', (d: Buffer) => {
        err += d.toString();
        if (err.includes(line)) seen();
      });
      job.on('exit', (code) => fail(new Error(`ablate exited (${code}) before printing ${line}:\n${err}`)));
    });
    job.kill('SIGKILL');
    return err;
  };
  const id = `bad | ${join(dir, 'cache')} | seed 0`;
  await ablateUntil(`cell failed: ${id}: `);
  const [failure] = JSON.parse(readFileSync(failedFile(out), 'utf8')).cells;
  expect(failure).toMatchObject({ id, reason: expect.stringMatching(/targetCost: 0\.1 is below/) });
  await ablateUntil(`cell not trained: ${id}: failed in an earlier run (${failure.at}): ${failure.reason}; not trained again (--retry-failed trains it again)`);
}, 600_000);
