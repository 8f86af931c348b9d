// One rule per input: a stored answer that `cache validate` rejects is rejected, with the same line,
// by every command that reads the cache (loading applies the rule, src/cache/load.ts unstoredAnswer);
// a grid refused so leaves no settings.json or train.log of runs that never started.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { cacheFilePath } from '../../src/cache/load.ts';
import { BUILT_CLI as CLI } from '../fixtures/cli.ts';
import { writeTinyGrid } from '../fixtures/tinyGrid.ts';
import { tinyRecords } from '../fixtures/tinyWorld.ts';

it("an answer 'banana' for a reply that says (C) is refused by validate, stats, baselines, train and ablate alike", () => {
  const dir = mkdtempSync(join(tmpdir(), 'cpp-one-rule-'));
  const cache = join(dir, 'cache');
  const lines = tinyRecords().map((r) =>
    r.type === 'response' && r.id === 'q0.a3.1' ? { ...r, text: 'agent a3 thinks it over. The answer is (C).', answer: 'banana' } : r,
  );
  const at = lines.findIndex((r) => r.type === 'response' && r.id === 'q0.a3.1') + 1;
  mkdirSync(cache);
  writeFileSync(cacheFilePath(cache), `${lines.map((r) => JSON.stringify(r)).join('\n')}\n`);
  writeTinyGrid(dir, cache, [{ name: 'v' }]);
  const said = `${cacheFilePath(cache)}:${at}: answer: 'banana' does not parse as a mcq answer; store the parsed form or null`;
  for (const args of [
    ['cache', 'validate', cache],
    ['cache', 'stats', cache],
    ['baselines', '--cache', cache, '--rounds', '2', '--split', 'validation'],
    ['train', '--cache', cache, '--rounds', '2', '--epochs', '1', '--out', join(dir, 'run')],
    ['ablate', '--grid', join(dir, 'grid.json'), '--out', join(dir, 'results'), '--workers', '1', '--split', 'validation'],
  ]) {
    const r = spawnSync(process.execPath, [...CLI, ...args], { encoding: 'utf8' });
    expect(r.stdout + r.stderr, args.join(' ')).toContain(said);
    expect(r.status, args.join(' ')).toBe(1);
  }
  // Nothing of a run is left where none started: the refused train's folder, the refused cell's.
  // (the grid remembers its failed cell, with the reason, in failed.json: train/failedCells.ts)
  expect(readdirSync(dir).sort()).toEqual(['cache', 'grid.json', 'results']);
  expect(readdirSync(join(dir, 'results'), { recursive: true })).toEqual(['failed.json']);
}, 120_000);
