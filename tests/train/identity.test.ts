// A run is its resolved settings and its cache's content (train/identity.ts): jobs reuse or resume
// a run folder only when both match, and otherwise refuse naming what differs, or retrain (force).
import { appendFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { mainDescription, mainJob } from '../../jobs/main.ts';
import { cacheHash } from '../../src/cache/hash.ts';
import { cacheFilePath } from '../../src/cache/load.ts';
import { loadCheckpoint } from '../../src/policy/artifact.ts';
import { defaultCompute } from '../../src/policy/backends.ts';
import { resolveConfig } from '../../train/config.ts';
import { expandGrid, GridFile, reuseNote, runGrid } from '../../train/grid.ts';
import { identityDifferences, runContentHashes } from '../../train/identity.ts';
import { runFiles } from '../../train/runFolder.ts';
import { train } from '../../train/trainer.ts';
import { writeTinyCache } from '../fixtures/tinyWorld.ts';
import { METHOD } from '../fixtures/method.ts';

const quiet = { log: () => {} };
const base = { ...METHOD, rounds: 2, miss: 'error' as const, k: -1, batchSize: 6, hidden: 8, backend: 'cpu' as const, epochs: 1 };

function tiny() {
  const dir = mkdtempSync(join(tmpdir(), 'cpp-identity-'));
  writeTinyCache(join(dir, 'cache'));
  return { dir, cache: join(dir, 'cache') };
}

describe('run identity', () => {
  it('names each setting that differs and the cache content; how a run computes and where it is are not part of it', () => {
    const saved = { config: { ...base, out: 'a', threads: 4 }, cacheHash: 'a'.repeat(64) };
    expect(identityDifferences(saved, { settings: { ...base, out: 'b', threads: 1 }, cacheHash: 'a'.repeat(64) })).toEqual([]);
    expect(identityDifferences(saved, { settings: { ...base, k: 1, epochs: 3, cache: 'c' }, cacheHash: 'b'.repeat(64) })).toEqual([
      'epochs 1 there, 3 asked',
      'k -1 there, 1 asked',
      'cache content sha256 aaaaaaaaaaaa there, bbbbbbbbbbbb in c now',
    ]);
  });

  it("a run across teams is identified by its teams' cache content too: a team cache rewritten under the same path is another run", async () => {
    const { dir, cache } = tiny();
    const team = join(dir, 'team');
    writeTinyCache(team);
    const settings = { ...base, cache, teams: [team], behavior: 'none' as const, sourceFeature: false };
    const alone = await runContentHashes()({ ...settings, teams: [] });
    const before = await runContentHashes()(settings);
    expect(alone).toBe(await cacheHash(cache));
    expect(before).not.toBe(alone);
    appendFileSync(cacheFilePath(team), '\n');
    const after = await runContentHashes()(settings);
    expect(after).not.toBe(before);
    expect(identityDifferences({ config: settings, cacheHash: before }, { settings, cacheHash: after })).toEqual([
      `cache content sha256 ${before.slice(0, 12)} there, ${after.slice(0, 12)} in ${cache} and its teams caches now`,
    ]);
  });

  it('a grid edited under the same row names, or given more epochs, is refused ' +
    'naming what differs; force trains it anew; the table says what was reused', async () => {
    const { dir, cache } = tiny();
    const grid = (settings: object) =>
      GridFile.parse({ name: 'g', base: { ...base, ...settings }, seeds: 1, caches: [cache], variants: [{ name: 'full method', settings: {} }] });
    const results = join(dir, 'results');
    const cells = expandGrid(grid({}), results);
    await train(resolveConfig(cells[0].settings), quiet);
    const reused = await runGrid(cells, 1, () => {});
    expect(reused.map((o) => o.status)).toEqual(['reused']);
    expect(reuseNote(reused)).toBe(
      `Runs: 0 trained by this run, 1 reused (finished earlier with the same settings and cache content): full method | ${cache} | seed 0.`,
    );
    const out = cells[0].settings.out;
    await expect(runGrid(expandGrid(grid({ k: 1 }), results), 1, () => {})).rejects.toThrow(
      `${out} holds a run of other settings or another cache (k -1 there, 1 asked): pass --force to train it anew there, or choose another folder`,
    );
    const longer = expandGrid(grid({ epochs: 2 }), results);
    await expect(runGrid(longer, 1, () => {})).rejects.toThrow(`${out} holds a run of other settings or another cache (epochs 1 there, 2 asked)`);
    const forced = await runGrid(longer, 1, () => {}, true);
    expect(forced.map((o) => o.status)).toEqual(['trained']);
    expect(reuseNote(forced)).toBe('Runs: all 1 trained by this run.');
    expect(loadCheckpoint(runFiles(out).checkpoint).epoch).toBe(2);
  }, 600_000);

  it('main refuses seeds trained under another config, naming the difference, before training or comparing anything', async () => {
    const { dir, cache } = tiny();
    const config = join(dir, 'main.json');
    writeFileSync(config, JSON.stringify({ ...base, lr: 0.002 }));
    const o = {
      cache,
      split: 'validation' as const,
      settings: {},
      config,
      seeds: 1,
      out: join(dir, 'main'),
      workers: 1,
      compute: { ...defaultCompute(), backend: 'cpu' as const },
    };
    await train(resolveConfig({ ...base, cache, seed: 0, out: join(o.out, 'seed-0') }), quiet);
    await expect(mainJob(o)).rejects.toThrow(
      `${join(o.out, 'seed-0')} holds a run of other settings or another cache (lr 0.001 there, 0.002 asked): pass --force to train it anew there`,
    );
    expect(await mainDescription(o).plan()).toContain(
      `  refuse ${join(o.out, 'seed-0')}: it holds a run of other settings or another cache (lr 0.001 there, 0.002 asked)`,
    );
    expect(await mainDescription({ ...o, force: true }).plan()).toContain(
      `  train anew (--force) ${join(o.out, 'seed-0')}: it holds a run of other settings or another cache (lr 0.001 there, 0.002 asked)`,
    );
  }, 600_000);

  it('train --resume on a cache whose content changed is refused, naming it, with what to run instead', async () => {
    const { dir, cache } = tiny();
    const c = resolveConfig({ ...base, epochs: 2, cache, out: join(dir, 'run') });
    await train(c, { ...quiet, stopAfterEpochs: 1 });
    const before = await cacheHash(cache);
    appendFileSync(cacheFilePath(cache), '\n');
    const after = await cacheHash(cache);
    await expect(train(c, { ...quiet, resume: true })).rejects.toThrow(
      `${c.out} cannot resume: cache content sha256 ${before.slice(0, 12)} there, ${after.slice(0, 12)} in ${cache} now; it would go on with ` +
        `other data: restore the cache, or train anew there with --force (train --config ${runFiles(c.out).config} --out ${c.out} --force)`,
    );
  }, 600_000);
});
