// `cache embed` and `cache validate` stream a cache: their memory does not grow with its texts.
// Each runs in a child process whose V8 heap is capped (--max-old-space-size) far below what the
// cache's texts take when held at once: the embedded texts (about 26 MB of them) are read one
// batch at a time and their vectors written as they are made; validate checks records (about 28 MB
// of response meta) one line at a time, with loading's checks from the columns file.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { embeddingsPath } from '../../src/cache/embeddings.ts';
import type { CacheLine } from '../../src/cache/format.ts';
import { writeCacheRecords } from '../../src/cache/write.ts';
import { generateWorld } from '../../src/sim/generate.ts';
import { CLI } from '../fixtures/cli.ts';

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
