// Words that help, through the command line: a checkpoint whose team names an agent its cache lacks
// is refused by `train --resume`, and `export` says which cache its team came from; `export` with
// no checkpoint says that one is missing; `cache validate` names the temporary file an interrupted
// write left.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, expect, it } from 'vitest';
import { cacheFilePath } from '../../src/cache/load.ts';
import { runFiles } from '../../train/runFolder.ts';
import { BUILT_CLI as CLI } from '../fixtures/cli.ts';
import { writeTinyCache } from '../fixtures/tinyWorld.ts';

const dir = mkdtempSync(join(tmpdir(), 'cpp-words-'));
const cache = join(dir, 'cache');
const run = join(dir, 'run');
const cli = (...args: string[]) => {
  const r = spawnSync(process.execPath, [...CLI, ...args], { encoding: 'utf8' });
  return { code: r.status, out: r.stdout, err: r.stderr };
};

beforeAll(() => {
  writeTinyCache(cache);
  expect(cli('train', '--cache', cache, '--rounds', '2', '--miss', 'error', '--epochs', '2', '--batch-size', '6', '--hidden', '8', '--out', run).code).toBe(0);
}, 600_000);

it("train --resume refuses a checkpoint whose team names an agent its cache lacks; export names the team's cache", () => {
  const exported = cli('export', runFiles(run).best, '--out', join(dir, 'export'));
  expect(exported.code).toBe(0);
  expect(exported.out).toContain(`team a1, a2, a3, as trained on cache ${cache}`);
  const checkpoint = JSON.parse(readFileSync(runFiles(run).checkpoint, 'utf8'));
  writeFileSync(runFiles(run).checkpoint, JSON.stringify({ ...checkpoint, epoch: 1, team: ['zz', 'a2', 'a3'] }));
  const resumed = cli('train', '--resume', '--out', run);
  expect(resumed.err).toContain(`${runFiles(run).checkpoint}: does not fit its own run: team zz, a2, a3, the run's settings give a1, a2, a3`);
  expect(resumed.code).toBe(1);
}, 600_000);

it('export with no checkpoint says a checkpoint is missing; given a run folder, it names the checkpoint to export', () => {
  const none = cli('export', join(dir, 'nothing.json'));
  expect(none.err).toMatch(new RegExp(`^no checkpoint at ${join(dir, 'nothing.json')}: train one first`, 'mi'));
  expect(none.code).toBe(1);
  const folder = cli('export', run);
  expect(folder.err).toContain(`${run} is a run folder, not a checkpoint: export ${runFiles(run).best}`);
  expect(folder.code).toBe(1);
}, 600_000);

it('cache validate names the temporary file an interrupted write left (of a process that is gone)', () => {
  const left = `${cacheFilePath(cache)}.999999999.tmp`;
  copyFileSync(cacheFilePath(cache), left);
  const r = cli('cache', 'validate', cache);
  expect(r.err + r.out).toContain(`${left}: warning: a temporary file of an interrupted write (its process is gone): not part of the cache`);
  expect(r.code).toBe(0);
}, 600_000);
