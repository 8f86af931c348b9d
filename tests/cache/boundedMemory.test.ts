// `cache embed`, `cache validate`, `cache gen` and `cache import` stream a cache: their memory does
// not grow with its texts. Each runs in a child process whose V8 heap is capped
// (--max-old-space-size) far below what the cache's records take when held at once: the embedded
// texts (about 26 MB of them) are read one batch at a time and their vectors written as they are
// made; validate checks records (about 28 MB of response meta) one line at a time, with loading's
// checks from the columns file; gen and import write records as they are made and check the file
// they wrote by parsing it into its columns (texts, ids and meta spilled to disk as they are parsed).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { columnsPath } from '../../src/cache/columns.ts';
import { embeddingsPath } from '../../src/cache/embeddings.ts';
import type { CacheLine } from '../../src/cache/format.ts';
import { writeCacheRecords } from '../../src/cache/write.ts';
import { generateWorld } from '../../src/sim/generate.ts';
import { CLI } from '../fixtures/cli.ts';
import { arithmeticRevision, twoRoundDebate } from '../fixtures/duLayout.ts';

/** The heap cap of the child, in MB: what the command needs without the cache, with room, and far below the cache's texts. */
const HEAP_MB = 32;

/** A small world (30 questions, about 1,400 responses) with every response made large by `grow`. */
function bigCache(grow: (r: CacheLine & { type: 'response' }, i: number) => CacheLine): { dir: string; bytes: number } {
  const dir = mkdtempSync(join(tmpdir(), 'cpp-bounded-'));
  const records = [...generateWorld({ questions: 30 }, 'bounded')].map((r, i) => (r.type === 'response' ? grow(r, i) : r));
  writeCacheRecords(dir, records);
  return { dir, bytes: readFileSync(join(dir, 'cache.jsonl')).length };
}

/** Words without sentence ends, distinct per record: bulk that the answer reader passes over quickly. */
const filler = (i: number, chars: number) => `note ${i} `.concat('factor identity weighed against each other '.repeat(Math.ceil(chars / 42)));

const capped = (...args: string[]) => spawnSync(process.execPath, [`--max-old-space-size=${HEAP_MB}`, ...CLI, ...args], { encoding: 'utf8' });

it(`cache embed of a cache whose texts take about 26 MB runs in a ${HEAP_MB} MB heap, writing one vector a text`, () => {
  const { dir, bytes } = bigCache((r, i) => ({ ...r, text: `${filler(i, 18_000)}\n\n${r.text}` }));
  expect(bytes).toBeGreaterThan(25e6);
  const r = capped('cache', 'embed', dir);
  expect(r.stderr).not.toMatch(/heap out of memory/);
  expect(r.status).toBe(0);
  const texts = Number(/(\d+) distinct texts, \1 embedded now/.exec(r.stdout)?.[1]);
  expect(texts).toBeGreaterThan(1400);
  expect(readFileSync(embeddingsPath(dir, 'bof-256'), 'utf8').trim().split('\n').length).toBe(texts + 1); // a header, then a vector a text
}, 120_000);

it(`cache validate of a cache of about 28 MB runs in a ${HEAP_MB} MB heap and finds it valid`, () => {
  const { dir, bytes } = bigCache((r, i) => ({ ...r, meta: { ...r.meta, note: filler(i, 20_000) } }));
  expect(bytes).toBeGreaterThan(28e6);
  const r = capped('cache', 'validate', dir);
  expect(r.stderr).not.toMatch(/heap out of memory/);
  expect(r.stdout).toMatch(/cache\.jsonl: valid \(30 questions, 3 agents, \d+ responses\)$/m);
  expect(r.status).toBe(0);
}, 120_000);

/** Heap cap of gen and import, in MB: they load more code (the tokenizers, the answer reader) than embed and validate. */
const WRITE_HEAP_MB = 64;
const cappedWrite = (...args: string[]) => spawnSync(process.execPath, [`--max-old-space-size=${WRITE_HEAP_MB}`, ...CLI, ...args], { encoding: 'utf8' });

it(`cache gen of 2,000 questions (a 40 MB cache.jsonl, 92,000 records) runs in a ${WRITE_HEAP_MB} MB heap and writes the cache with its columns`, () => {
  const dir = join(mkdtempSync(join(tmpdir(), 'cpp-bounded-gen-')), 'cache');
  const r = cappedWrite('cache', 'gen', '--questions', '2000', '--out', dir);
  expect(r.stderr).not.toMatch(/heap out of memory/);
  expect(r.status).toBe(0);
  expect(readFileSync(join(dir, 'cache.jsonl')).length).toBeGreaterThan(40e6);
  expect(existsSync(columnsPath(dir))).toBe(true);
  expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]); // no spill or temporary file left
}, 300_000);

it(`cache import of debates whose records take about 30 MB of texts runs in a ${WRITE_HEAP_MB} MB heap`, () => {
  const root = mkdtempSync(join(tmpdir(), 'cpp-bounded-import-'));
  const debate = twoRoundDebate(arithmeticRevision);
  // One problem a file (a file is read whole): 200 problems of 6 replies of 25 kB each.
  const files = Array.from({ length: 200 }, (_, k) => {
    const reply = (agent: number, round: number, answer: number) => `${filler(k * 10 + agent * 2 + round, 25_000)}\n\nThe answer is ${answer}.`;
    const file = join(root, `p${k}.json`);
    const [agents, gold] = debate(
      `What is ${k} + 1?`,
      k + 1,
      [0, 1, 2].map((a) => reply(a, 1, k + 1)),
      [0, 1, 2].map((a) => reply(a, 2, k + 1)),
    );
    writeFileSync(file, JSON.stringify({ [`What is ${k} + 1?`]: [agents, gold] }));
    return file;
  });
  const out = join(root, 'cache');
  const r = cappedWrite('cache', 'import', ...files, '--out', out, '--format', 'du', '--model', 'gpt-3.5-turbo', '--price-in', '0.5', '--price-out', '1.5');
  expect(r.stderr).not.toMatch(/heap out of memory/);
  expect(r.status).toBe(0);
  expect(r.stdout).toContain(`imported 200 of 200 problems from 200 files into ${join(out, 'cache.jsonl')}`);
  expect(readFileSync(join(out, 'cache.jsonl')).length).toBeGreaterThan(30e6);
  expect(existsSync(columnsPath(out))).toBe(true);
  expect(readdirSync(out).filter((f) => f.endsWith('.tmp'))).toEqual([]);
}, 300_000);
