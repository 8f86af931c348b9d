// Ctrl-C during `cache validate`, `cache import`, `cache from-parquet`, `cache to-parquet`, `cache compact`, `cache stats` and `cache audit`, long synchronous
// work written as steps with stop points between them (src/io/interrupt.ts stoppableSteps): each
// stops at once instead of finishing first, says how far it got, writes nothing and exits 130. The SIGINT is real, sent by the command
// to itself at the first turn its work gives the event loop (the preloaded fixture
// sigintAtFirstTurn.mjs, as tests/cache/embedStop.test.ts), so where it lands does not depend on the
// machine's speed.
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { exportParquetJob } from '../../jobs/parquet.ts';
import { journalPath } from '../../src/cache/journal.ts';
import { cacheFilePath } from '../../src/cache/load.ts';
import { writeCacheRecords } from '../../src/cache/write.ts';
import { generateCache } from '../../src/sim/generate.ts';
import { dylanMathFile } from '../fixtures/dylanMath.ts';
import { tinyRecords } from '../fixtures/tinyWorld.ts';
import { listing, stopped } from '../fixtures/stopped.ts';

it('cache validate stopped while reading the file says how many of its lines it read, writes nothing, exits 130', async () => {
  const dir = join(mkdtempSync(join(tmpdir(), 'cpp-validate-stop-')), 'cache');
  await generateCache(dir, { questions: 100 }, 'w');
  const lines = readFileSync(cacheFilePath(dir), 'utf8').trimEnd().split('\n').length;
  const before = listing(dir);
  const r = await stopped(['cache', 'validate', dir]);
  expect(r.err).toMatch(/interrupted \(SIGINT\): stopping/);
  const read = Number(
    new RegExp(
      `cache validate stopped after reading (\\d+) of its ${lines} lines \\(loading's checks\\); the answer and token checks had not begun; nothing was written`,
    ).exec(r.err)?.[1],
  );
  expect(read).toBeGreaterThan(0);
  expect(read).toBeLessThan(lines);
  expect(r.out).toBe(''); // no verdict on a cache it did not read whole
  expect(r.code).toBe(130);
  expect(listing(dir)).toEqual(before);
}, 120_000);

it('cache validate stopped while checking the records says how many it checked', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'cpp-validate-stop-'));
  const records = tinyRecords(4); // fewer lines than a step of reading: the first stop point is in the checks
  writeCacheRecords(dir, records);
  const before = listing(dir);
  const r = await stopped(['cache', 'validate', dir]);
  expect(r.err).toContain(
    `${cacheFilePath(dir)}: cache validate stopped after checking 0 of its ${records.length} records (answers, tokens; all ${records.length} lines read); nothing was written`,
  );
  expect(r.code).toBe(130);
  expect(listing(dir)).toEqual(before);
}, 120_000);

const importArgs = (out: string, ...more: string[]) => [
  'cache',
  'import',
  dylanMathFile('algebra_1_248_4_3'),
  dylanMathFile('geometry_0_199_4_3'),
  '--out',
  out,
  '--format',
  'du',
  '--model',
  'gpt-3.5-turbo',
  '--price-in',
  '0.5',
  '--price-out',
  '1.5',
  ...more,
];

it('cache import stopped while reading the files writes nothing (a new folder is not left behind; a cache it would replace is unchanged)', async () => {
  const root = mkdtempSync(join(tmpdir(), 'cpp-import-stop-'));
  const out = join(root, 'out');
  const fresh = await stopped(importArgs(out));
  expect(fresh.err).toMatch(/interrupted \(SIGINT\): stopping/);
  expect(fresh.err).toContain(
    `cache import stopped after reading 1 problem (0 of 2 files whole); nothing was written: ${out} holds no cache; a rerun imports every file from the start`,
  );
  expect(fresh.code).toBe(130);
  expect(readdirSync(root)).toEqual([]);
  // Over a cache with --force: the cache and its import report stay as they were.
  writeCacheRecords(out, tinyRecords(4));
  const before = listing(out);
  const replacing = await stopped(importArgs(out, '--force'));
  expect(replacing.err).toContain(`nothing was written: the cache in ${out} is unchanged`);
  expect(replacing.code).toBe(130);
  expect(listing(out)).toEqual(before);
}, 120_000);

it('cache import stopped while it checks the cache it wrote (before the rename) writes nothing either', async () => {
  const root = mkdtempSync(join(tmpdir(), 'cpp-import-stop-'));
  const out = join(root, 'out');
  // The first turn of the written cache's check (its steps are run by stoppableSteps within writeFileAtomicYielding).
  const r = await stopped(importArgs(out), { within: 'writeFileAtomicYielding,stoppableSteps' });
  expect(r.err).toContain(
    `cache import stopped while writing the cache, after reading 200 problems (2 of 2 files whole); nothing was written: ${out} holds no cache`,
  );
  expect(r.code).toBe(130);
  expect(readdirSync(root)).toEqual([]);
}, 120_000);

for (const command of ['stats', 'audit'])
  it(`cache ${command} stopped while it loads the cache or makes its report prints nothing, writes nothing, exits 130`, async () => {
    const dir = join(mkdtempSync(join(tmpdir(), `cpp-${command}-stop-`)), 'cache');
    await generateCache(dir, { questions: 100 }, 'w');
    const before = listing(dir);
    const r = await stopped(['cache', command, dir]);
    expect(r.err).toMatch(/interrupted \(SIGINT\): stopping/);
    expect(r.err).toContain(`cache ${command} ${dir} stopped before it printed anything; nothing was written (it only reads): a rerun starts over`);
    expect(r.err).toContain(`to continue: npx cpp-workbench cache ${command} ${dir}`);
    expect(r.out).toBe('');
    expect(r.code).toBe(130);
    expect(listing(dir)).toEqual(before);
  }, 120_000);

it('cache from-parquet stopped while it writes the cache or its report writes nothing; cache to-parquet stopped while it loads writes no file', async () => {
  const root = mkdtempSync(join(tmpdir(), 'cpp-parquet-stop-'));
  const dir = join(root, 'cache');
  await generateCache(dir, { questions: 100 }, 'w');
  const exported = await stopped(['cache', 'to-parquet', dir, '--out', join(root, 'stopped.parquet')]);
  expect(exported.err).toContain(`cache to-parquet ${dir} stopped before it wrote ${join(root, 'stopped.parquet')}; nothing was written: a rerun starts over`);
  expect(exported.code).toBe(130);
  expect(existsSync(join(root, 'stopped.parquet'))).toBe(false);
  const file = join(root, 'cache.parquet');
  await exportParquetJob(dir, file);
  const out = join(root, 'imported');
  const imported = await stopped(['cache', 'from-parquet', file, '--out', out]);
  expect(imported.err).toMatch(/interrupted \(SIGINT\): stopping/);
  expect(imported.err).toContain(`cache from-parquet stopped; nothing was written: ${out} holds no cache; a rerun imports from the start`);
  expect(imported.code).toBe(130);
  expect(readdirSync(root).sort()).toEqual(['cache', 'cache.parquet']);
}, 120_000);

it('cache compact stopped while it loads or rewrites the cache leaves the cache and its journal as they were', async () => {
  const dir = join(mkdtempSync(join(tmpdir(), 'cpp-compact-stop-')), 'cache');
  await generateCache(dir, { questions: 100 }, 'w');
  // The last responses, as if the record tier had journaled them (the journal holds response lines).
  const lines = readFileSync(cacheFilePath(dir), 'utf8').trimEnd().split('\n');
  writeFileSync(cacheFilePath(dir), `${lines.slice(0, -10).join('\n')}\n`);
  writeFileSync(journalPath(dir), `${lines.slice(-10).join('\n')}\n`);
  const before = listing(dir);
  const r = await stopped(['cache', 'compact', dir]);
  expect(r.err).toMatch(/interrupted \(SIGINT\): stopping/);
  expect(r.err).toContain(
    'cache compact stopped before it renamed the new cache.jsonl into place: nothing was written; the cache and its journal are as they were',
  );
  expect(r.code).toBe(130);
  expect(listing(dir)).toEqual(before);
}, 120_000);
