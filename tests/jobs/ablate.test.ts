// One job at a time writes a grid's results folder or a main job's folder: a second is refused,
// naming the holder, before it trains or writes anything.
import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ablateJob } from '../../jobs/ablate.ts';
import { mainJob } from '../../jobs/main.ts';
import { defaultCompute } from '../../src/policy/backends.ts';
import { killHolder, lockHolder } from '../fixtures/lockHolder.ts';
import { writeTinyCache } from '../fixtures/tinyWorld.ts';

describe('jobs writing one folder', () => {
  it('a second ablate or main into a folder being written is refused, naming the holder', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cpp-ablate-'));
    writeTinyCache(join(dir, 'cache'));
    const grid = join(dir, 'grid.json');
    writeFileSync(
      grid,
      JSON.stringify({
        name: 'g',
        base: { rounds: 2, miss: 'error', epochs: 1, batchSize: 6, hidden: 8 },
        seeds: 1,
        caches: [join(dir, 'cache')],
        variants: [{ name: 'v', settings: {} }],
      }),
    );
    const config = join(dir, 'main.json');
    writeFileSync(config, JSON.stringify({ rounds: 2, miss: 'error', epochs: 1, batchSize: 6, hidden: 8 }));
    const out = join(dir, 'out');
    const holder = await lockHolder(out);
    const compute = { ...defaultCompute(), backend: 'cpu' as const };
    try {
      const named = `${out} is being written by another process (a test holder: pid ${holder.pid} on `;
      await expect(ablateJob({ grid, out, workers: 1, split: 'validation', compute, log: () => {} })).rejects.toThrow(named);
      await expect(mainJob({ cache: join(dir, 'cache'), split: 'validation', settings: {}, config, seeds: 1, out, workers: 1, compute })).rejects.toThrow(
        named,
      );
      expect(readdirSync(out)).toEqual(['.lock']);
    } finally {
      await killHolder(holder);
    }
    // The holder killed, its lock is taken over: the grid trains, and says its wall time per cell.
    const done = await ablateJob({ grid, out, workers: 1, split: 'validation', compute, log: () => {} });
    expect(done.failed).toBe(0);
    expect(done.text).toMatch(/wall time [\d.]+ min for 1 cells, [\d.]+ s a cell \(1 trained, 0 reused, 0 failed\)/);
  }, 180_000);

  it("a grid's missing cache is an error naming the grid file, before any folder is made", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cpp-ablate-'));
    const grid = join(dir, 'grid.json');
    writeFileSync(grid, JSON.stringify({ name: 'g', caches: [join(dir, 'nocache')], variants: [{ name: 'v' }] }));
    const out = join(dir, 'out');
    await expect(ablateJob({ grid, out, workers: 1, split: 'validation', compute: defaultCompute(), log: () => {} })).rejects.toThrow(
      `${grid}: caches.0: no cache at ${join(dir, 'nocache')} (${join(dir, 'nocache', 'cache.jsonl')} not found)`,
    );
    expect(readdirSync(dir)).toEqual(['grid.json']);
  });
});
