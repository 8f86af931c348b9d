// Each documented flag and exit code not run elsewhere, once through the command line: exit 70 for
// a bug; --round1-sample and --tie-break; cache gen --adversary; cache embed --encoder use;
// record --budget-usd.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, expect, it } from 'vitest';
import { cacheFilePath } from '../../src/cache/load.ts';
import { embeddingsPath } from '../../src/cache/embeddings.ts';
import { CLI } from '../fixtures/cli.ts';
import { writeTinyCache } from '../fixtures/tinyWorld.ts';

const dir = mkdtempSync(join(tmpdir(), 'cpp-flags-'));
const tiny = join(dir, 'tiny');
const run = (args: string[], preload: string[] = []) => {
  const r = spawnSync(process.execPath, [...preload, ...CLI, ...args], { encoding: 'utf8' });
  return { code: r.status, out: r.stdout, err: r.stderr };
};

beforeAll(() => writeTinyCache(tiny));

it('a bug exits 70 with its stack and a line asking to report it', () => {
  const r = run(['cache', 'stats', tiny], ['--import', new URL('../fixtures/bug.mjs', import.meta.url).href]);
  expect(r.err).toContain("TypeError: Cannot read properties of undefined (reading 'header')");
  expect(r.err).toMatch(/This is a bug in cpp-workbench: please report it/);
  expect(r.code).toBe(70);
}, 60_000);

it('--round1-sample and --tie-break reach the settings, and a replay runs with them', () => {
  const flags = ['baselines', '--cache', tiny, '--rounds', '2', '--split', 'validation', '--round1-sample', 'random', '--tie-break', 'random'];
  const printed = JSON.parse(run([...flags, '--print-config']).out);
  expect(JSON.stringify(printed)).toMatch(/"round1Sample":"random","tieBreak":"random"/);
  const replayed = run(flags);
  expect(replayed.out).toContain('Full-Debate');
  expect(replayed.code).toBe(0);
}, 60_000);

it('cache gen --adversary adds the adversary; record --budget-usd stops at its budget', () => {
  const gen = join(dir, 'gen');
  expect(run(['cache', 'gen', '--questions', '30', '--seed', '2', '--adversary', '--out', gen]).code).toBe(0);
  const agents = readFileSync(cacheFilePath(gen), 'utf8')
    .split('\n')
    .filter((l) => l.includes('"type":"agent"'))
    .map((l) => JSON.parse(l).model);
  expect(agents).toEqual(['sim/atlas-large', 'sim/sage-medium', 'sim/brisk-mini', 'sim/mallory-adversary']);
  const r = run(['record', '--cache', gen, '--method', 'random', '--keep-rate', '0.3', '--split', 'validation', '--budget-usd', '0.00001']);
  expect(r.out + r.err).toMatch(/stopped: budget of 0\.00001 reached \([\d.]+ spent on received replies\)/);
  expect(r.out + r.err).toContain('the method did not finish: a rerun continues where this one stopped');
  expect(r.code).toBe(0);
}, 120_000);

it('cache embed --encoder use embeds with the Universal Sentence Encoder (512 dimensions)', () => {
  const r = run(['cache', 'embed', tiny, '--encoder', 'use']);
  expect(r.out).toContain(`${tiny}: 24 question and 648 response embeddings under use-lite-512 (dim 512)`);
  expect(r.code).toBe(0);
  expect(JSON.parse(readFileSync(embeddingsPath(tiny, 'use-lite-512'), 'utf8').split('\n')[0])).toMatchObject({ encoder: 'use-lite-512', dim: 512 });
}, 120_000);
