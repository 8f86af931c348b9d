// Ctrl-C inside the long parts of `cache stats`, `cache audit`, `cache to-parquet`,
// `cache from-parquet`, `cache fit`, `eval`, `baselines`, `record` and `train`'s setup: each part has stop points that name it
// (src/io/interrupt.ts stopPoint's `at`, a step's yielded name), and the command, sent a real SIGINT
// at the first stop point of that part (the preloaded fixture sigintAtFirstTurn.mjs, SIGINT_AT),
// stops there: exit 130, the "interrupted" line, what it says it saved, and its output folder or
// file as it was. Without the part's stop points the signal would come only after it, or the
// command would finish first.
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, expect, it } from 'vitest';
import { exportParquetJob } from '../../jobs/parquet.ts';
import { KEPT_FILES } from '../../reliability/tree.ts';
import { fitPath } from '../../src/sim/fitFile.ts';
import { generateCache } from '../../src/sim/generate.ts';
import { listing, stopped } from '../fixtures/stopped.ts';
import { recordedWorld } from '../fixtures/recordedWorld.ts';

let root = '';
let made = '';

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'cpp-command-stop-'));
  made = join(root, 'made');
  await generateCache(made, { questions: 100 }, 'w');
  await exportParquetJob(made, join(root, 'made.parquet'));
}, 120_000);

/** A fresh copy of the generated cache (a command that records may write into it). */
function cacheCopy(name: string): string {
  const dir = join(root, name);
  cpSync(made, dir, { recursive: true, preserveTimestamps: true });
  return dir;
}

/** The folder's listing, less what a run keeps for the next process as it goes (reliability/tree.ts KEPT_FILES: the hashes its provenance keeps at its start, before any long work, the response model's fit, the lookup indexes and the behavior start's rows). */
const outputs = (dir: string) => listing(dir).filter((f) => !KEPT_FILES.some((kept) => f.startsWith(`${kept} `)));

/** The command stopped at the first stop point of `at`: exit 130, the interrupted line, `says`, and `dir` as it was. */
async function stopsAt(args: string[], at: string, says: string, dir: string): Promise<string> {
  const before = outputs(dir);
  const r = await stopped(args, { at });
  expect(r.err).toMatch(/interrupted \(SIGINT\): stopping/);
  expect(r.err).toContain(says);
  expect(r.code).toBe(130);
  expect(outputs(dir)).toEqual(before);
  return r.out;
}

const reads = (what: string) => `${what} stopped before it printed anything; nothing was written (it only reads): a rerun starts over`;

for (const at of ['cache stats tables', 'debate statistics', 'response model fit'])
  it(`cache stats stopped in its ${at} prints nothing, writes nothing, exits 130`, async () => {
    const dir = cacheCopy(`stats-${at.replace(/\W/g, '-')}`);
    expect(await stopsAt(['cache', 'stats', dir], at, reads(`cache stats ${dir}`), dir)).toBe('');
  }, 120_000);

it('cache audit stopped in its misread audit prints nothing, writes nothing, exits 130', async () => {
  const dir = cacheCopy('audit');
  expect(await stopsAt(['cache', 'audit', dir], 'misread audit', reads(`cache audit ${dir}`), dir)).toBe('');
}, 120_000);

for (const at of ['cache records', 'parquet write'])
  it(`cache to-parquet stopped in its ${at} writes no table`, async () => {
    const dir = cacheCopy(`to-parquet-${at.replace(/\W/g, '-')}`);
    const out = join(root, `${at.replace(/\W/g, '-')}.parquet`);
    await stopsAt(['cache', 'to-parquet', dir, '--out', out], at, `cache to-parquet ${dir} stopped before it wrote ${out}; nothing was written`, dir);
    expect(existsSync(out)).toBe(false);
  }, 120_000);

for (const at of ['parquet read', 'parquet rows'])
  it(`cache from-parquet stopped in its ${at} writes no cache`, async () => {
    const out = join(root, `from-${at.replace(/\W/g, '-')}`);
    await stopsAt(
      ['cache', 'from-parquet', join(root, 'made.parquet'), '--out', out],
      at,
      `cache from-parquet stopped; nothing was written: ${out} holds no cache; a rerun imports from the start`,
      made,
    );
    expect(existsSync(out)).toBe(false);
  }, 120_000);

for (const at of ['environment index', 'response model fit', 'replay'])
  it(`eval stopped in its ${at} writes no report`, async () => {
    const dir = cacheCopy(`eval-${at.replace(/\W/g, '-')}`);
    const out = join(root, `eval-${at.replace(/\W/g, '-')}-report`);
    const said = `stopped before the comparison's table was made; nothing was written: ${out} is as it was; a rerun starts over`;
    expect(await stopsAt(['eval', '--cache', dir, '--methods', 'full,random', '--out', out], at, said, dir)).toBe('');
    expect(existsSync(out)).toBe(false);
  }, 120_000);

it('baselines stopped in its replays prints no table', async () => {
  const dir = cacheCopy('baselines');
  const said = `stopped before the comparison's table was made; nothing was written; a rerun starts over`;
  expect(await stopsAt(['baselines', '--cache', dir], 'replay', said, dir)).toBe('');
}, 120_000);

for (const at of ['environment index', 'response model fit'])
  it(`record stopped in its ${at} (before it asks the endpoint) leaves the cache's folder as it was (no journal)`, async () => {
    const dir = cacheCopy(`record-${at.replace(/\W/g, '-')}`);
    const said = `record stopped before it asked the endpoint anything; nothing was written: the cache in ${dir} is as it was`;
    await stopsAt(['record', '--cache', dir, '--method', 'random'], at, said, dir);
    expect(readdirSync(dir)).not.toContain('journal.jsonl');
  }, 120_000);

it('record stopped between its calls keeps what it journaled and leaves cache.jsonl as it was', async () => {
  const dir = cacheCopy('record-replies');
  const cacheFile = listing(dir).find((f) => f.startsWith('cache.jsonl '));
  const r = await stopped(['record', '--cache', dir, '--method', 'random'], { at: 'record replies' });
  expect(r.err).toMatch(/interrupted \(SIGINT\): stopping/);
  expect(r.err).toContain(`journaled in ${join(dir, 'journal.jsonl')}: a rerun asks none of them again`);
  expect(r.code).toBe(130);
  expect(listing(dir).find((f) => f.startsWith('cache.jsonl '))).toBe(cacheFile);
  // Stopped after its first reply: that reply is in the journal, whole.
  const journaled = readFileSync(join(dir, 'journal.jsonl'), 'utf8')
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l));
  expect(journaled.filter((l) => l.type === 'response').length).toBeGreaterThan(0);
}, 120_000);

for (const at of ['environment index', 'response model fit'])
  it(`train stopped in its setup's ${at} makes no run folder and says how to continue`, async () => {
    const dir = cacheCopy(`train-${at.replace(/\W/g, '-')}`);
    const out = join(root, `train-${at.replace(/\W/g, '-')}-run`);
    const said = `${out}: no checkpoint yet (stopped before the first): the run starts anew`;
    await stopsAt(['train', '--cache', dir, '--out', out, '--epochs', '1'], at, said, dir);
    expect(existsSync(out)).toBe(false);
  }, 120_000);

it('cache fit stopped in its fit writes no fit', async () => {
  const dir = recordedWorld(40);
  await stopsAt(['cache', 'fit', dir], 'simulator fit', `cache fit ${dir} stopped before it wrote ${fitPath(dir)}; nothing was written`, dir);
  expect(existsSync(fitPath(dir))).toBe(false);
}, 120_000);
