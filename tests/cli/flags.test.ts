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
import { BUILT_CLI as CLI } from '../fixtures/cli.ts';
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
}, 600_000);

it('--round1-sample and --tie-break reach the settings and change what a replay reads', () => {
  const base = ['baselines', '--split', 'validation'];
  const printed = JSON.parse(run([...base, '--cache', tiny, '--round1-sample', 'random', '--tie-break', 'random', '--print-config']).out);
  expect(JSON.stringify(printed)).toMatch(/"round1Sample":"random","tieBreak":"random"/);
  const accuracy = (out: string, method: string) => Number(/\| ([\d.]+) \(n = 1\)/.exec(out.split('\n').find((l) => l.startsWith(`| ${method}`)) ?? '')?.[1]);
  // tiny: a1, a2, a3 answer A, B, C and Full-Debate keeps every answer, so each final vote is a three-way tie,
  // broken by the lowest agent (a1's A: wrong) unless the tie-break is random.
  const tiny2 = [...base, '--cache', tiny, '--rounds', '2'];
  expect(accuracy(run(tiny2).out, 'Full-Debate')).toBe(0);
  const random = run([...tiny2, '--tie-break', 'random']);
  expect(random.code).toBe(0);
  expect(accuracy(random.out, 'Full-Debate')).toBeGreaterThan(0);
  // A generated world holds 8 round-1 samples an agent: the first of each, or one drawn by the seed.
  const world = join(dir, 'samples');
  expect(run(['cache', 'gen', '--questions', '40', '--seed', '3', '--out', world]).code).toBe(0);
  const first = run([...base, '--cache', world]).out;
  const drawn = run([...base, '--cache', world, '--round1-sample', 'random']).out;
  const singles = (out: string) => ['Single atlas', 'Single sage', 'Single brisk'].map((m) => accuracy(out, m));
  expect(singles(first).every(Number.isFinite)).toBe(true);
  expect(singles(drawn)).not.toEqual(singles(first));
}, 600_000);

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
}, 600_000);

it('cache embed --encoder use embeds with the Universal Sentence Encoder (512 dimensions)', () => {
  const r = run(['cache', 'embed', tiny, '--encoder', 'use']);
  expect(r.out).toContain(`${tiny}: 24 question and 648 response embeddings under use-lite-512 (dim 512)`);
  expect(r.code).toBe(0);
  expect(JSON.parse(readFileSync(embeddingsPath(tiny, 'use-lite-512'), 'utf8').split('\n')[0])).toMatchObject({ encoder: 'use-lite-512', dim: 512 });
}, 600_000);
