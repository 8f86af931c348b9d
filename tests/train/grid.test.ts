import { mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadCheckpoint } from '../../src/policy/artifact.ts';
import { resolveConfig } from '../../train/config.ts';
import { expandGrid, GridFile, readGrid, runGrid } from '../../train/grid.ts';
import { readProvenance } from '../../src/provenance.ts';
import { runFiles } from '../../train/runFolder.ts';
import { train } from '../../train/trainer.ts';
import { writeTinyCache } from '../fixtures/tinyWorld.ts';
import { METHOD } from '../fixtures/method.ts';

function tinyGrid() {
  const dir = mkdtempSync(join(tmpdir(), 'cpp-grid-'));
  writeTinyCache(join(dir, 'tiny'));
  const grid = GridFile.parse({
    name: 'tiny',
    base: { ...METHOD, rounds: 2, miss: 'error', k: -1, batchSize: 6, hidden: 8, backend: 'cpu', epochs: 2 },
    seeds: 2,
    caches: [join(dir, 'tiny')],
    variants: [
      { name: 'full method', settings: {} },
      { name: 'no conditioning', settings: { conditioning: false } },
      { name: 'broken', settings: { miss: 'record' } }, // a recorded cache has no live endpoint
    ],
  });
  return { grid, results: join(dir, 'results') };
}
const quiet = () => {};

describe('ablation grids', () => {
  it('expand to one cell per variant, cache and seed, each in its own folder with merged settings', () => {
    const { grid, results } = tinyGrid();
    const cells = expandGrid(grid, results);
    expect(cells.length).toBe(3 * 1 * 2);
    expect(new Set(cells.map((c) => c.settings.out)).size).toBe(6);
    const c = cells.find((x) => x.variant === 'no conditioning' && x.seed === 1)!;
    expect(c.settings).toMatchObject({ conditioning: false, k: -1, seed: 1, epochs: 2 });
    expect(c.settings.out).toBe(join(results, 'no-conditioning', 'tiny', 'seed-1'));
  });

  it("a grid file's duplicate variant names and unknown reference are errors naming the file", () => {
    const dir = mkdtempSync(join(tmpdir(), 'cpp-grid-'));
    const file = join(dir, 'grid.json');
    writeFileSync(file, JSON.stringify({ name: 'g', variants: [{ name: 'full method' }, { name: 'Full  method!' }] }));
    expect(() => readGrid(file)).toThrow(
      `${file}: variants.1.name: two variants named 'full method' and 'Full  method!' (one folder, full-method): name them apart`,
    );
    writeFileSync(file, JSON.stringify({ name: 'g', reference: 'ful', variants: [{ name: 'full' }, { name: 'no k' }] }));
    expect(() => readGrid(file)).toThrow(`${file}: reference: 'ful' is not a variant of this grid ('full', 'no k')`);
  });

  it('isolate a failing cell, skip finished cells on rerun and resume an interrupted one', async () => {
    const { grid, results } = tinyGrid();
    const cells = expandGrid(grid, results);
    // An interrupted cell: one epoch of two, checkpoint on disk.
    const interrupted = cells.find((c) => c.variant === 'no conditioning' && c.seed === 0)!;
    await train(resolveConfig(interrupted.settings), { stopAfterEpochs: 1, log: quiet });
    const first = await runGrid(cells, 2, quiet);
    const status = (o: typeof first, variant: string, seed: number) => o.find((x) => x.cell.variant === variant && x.cell.seed === seed)!;
    expect(first.filter((o) => o.status === 'failed').map((o) => o.cell.variant)).toEqual(['broken', 'broken']);
    expect(status(first, 'broken', 0).error).toMatch(/has no live endpoint for miss = record/);
    expect(first.filter((o) => o.status === 'trained').length).toBe(4);
    expect(loadCheckpoint(runFiles(interrupted.settings.out).checkpoint).epoch).toBe(2);
    // The resumed cell's provenance: the test's session, then the child's, which names its parent job.
    const sessions = readProvenance(runFiles(interrupted.settings.out).provenance).sessions;
    expect(sessions.map((s) => s.launchedBy)).toEqual([null, process.argv.slice(1)]);
    expect(sessions[1].command.at(-1)).toBe('--resume');
    const done = runFiles(status(first, 'full method', 0).cell.settings.out).checkpoint;
    const before = statSync(done).mtimeMs;
    const second = await runGrid(cells, 2, quiet);
    expect(second.filter((o) => o.status === 'reused').length).toBe(4);
    expect(statSync(done).mtimeMs).toBe(before);
  }, 600_000);

  it('settings that contradict each other once a variant is merged over the base are an error naming the file and the variant', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cpp-grid-'));
    const file = join(dir, 'grid.json');
    writeFileSync(
      file,
      JSON.stringify({
        name: 'g',
        base: { rollouts: 1 },
        variants: [
          { name: 'full', settings: { baseline: 'running' } },
          { name: 'leave one out', settings: { baseline: 'rloo' } },
        ],
      }),
    );
    expect(() => readGrid(file)).toThrow(
      `${file}: variants.1.settings: variant 'leave one out' (its settings over base): setting baseline: rloo needs rollouts >= 2 (found 1)`,
    );
  });

  it('a grid with no seeds is an error naming the file and field (was: an empty table, exit 0)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cpp-grid-'));
    const file = join(dir, 'grid.json');
    writeFileSync(file, JSON.stringify({ name: 'g', seeds: [], variants: [{ name: 'v' }] }));
    expect(() => readGrid(file)).toThrow(`${file}`);
    expect(() => readGrid(file)).toThrow('seeds: needs at least one seed: a grid without seeds trains nothing');
  });
});
