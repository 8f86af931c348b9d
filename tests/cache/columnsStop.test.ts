// The stop points of the columns file's reader and writer (src/io/interrupt.ts: a command running
// them with stoppableSteps stops within one step): reading a columns file hashes it a step every
// 8 MB and builds the cache a step every 65,536 responses, and writing one copies the texts
// spilled while it was built a step every 8 MB, so neither holds the event loop for the whole file
// (a 100,000-question cache's columns are gigabytes, 4.6 million responses).
import { mkdtempSync, openSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { columnsHead, columnsPath, readColumnsSteps, sourceState } from '../../src/cache/columns.ts';
import { buildCache } from '../../src/cache/columnsCache.ts';
import { startColumns } from '../../src/cache/columnsWriter.ts';
import { cacheFilePath, cacheFromRecords } from '../../src/cache/load.ts';
import { writeCacheRecords } from '../../src/cache/write.ts';
import { generateWorld } from '../../src/sim/generate.ts';

/** The steps a generator yields before it returns, and what it returns. */
function stepsOf<T>(steps: Generator<unknown, T>): { steps: number; value: T } {
  let n = 0;
  for (;;) {
    const step = steps.next();
    if (step.done) return { steps: n, value: step.value };
    n++;
  }
}

const MB = 1 << 20;

it('reading a columns file of 30 MB yields a step at least every 8 MB while it checks its SHA-256', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cpp-columns-stop-'));
  const long = (i: number) => `note ${i} `.concat('x'.repeat(30 * MB));
  let first = true;
  const records = [...generateWorld({ questions: 3 }, 'stop')].map((r) => {
    if (r.type !== 'response' || !first) return r;
    first = false;
    return { ...r, text: `${long(0)} The answer is ${r.answer}.` };
  });
  writeCacheRecords(dir, records);
  const bytes = statSync(columnsPath(dir)).size;
  expect(bytes).toBeGreaterThan(30 * MB);
  const read = stepsOf(readColumnsSteps(dir, sourceState(cacheFilePath(dir)), cacheFilePath(dir)));
  expect(read.value && 'cache' in read.value).toBe(true);
  expect(read.steps).toBeGreaterThanOrEqual(Math.floor(bytes / (8 * MB)));
}, 120_000);

it('writing a columns file copies its 30 MB of spilled texts a step at least every 8 MB', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cpp-columns-stop-'));
  const cache = cacheFromRecords([...generateWorld({ questions: 1 }, 'stop')]);
  const build = startColumns(columnsPath(dir));
  for (const r of cache.responses) build.add({ ...r, text: 'y'.repeat(MB) }, r.q, r.a, r.ans, 'mcq');
  for (const r of cache.responses) build.resolved(r.index, [...r.ctx, ...r.ext.map((e) => -e - 1)], r.prevIndex);
  expect(cache.responses.length).toBeGreaterThan(30);
  const written = stepsOf(build.finish(cache, { size: 0, mtimeMs: 0, ino: 0, ends: '' }));
  expect(statSync(columnsPath(dir)).size).toBeGreaterThan(30 * MB);
  expect(written.steps).toBeGreaterThanOrEqual(Math.floor(cache.responses.length / 8));
}, 120_000);

it('serving a cache of 69,000 responses from its columns yields a step every 65,536 responses', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cpp-columns-stop-'));
  writeCacheRecords(dir, generateWorld({ questions: 1500 }, 'stop'));
  const { head, base } = columnsHead(readFileSync(columnsPath(dir)));
  expect(head.responses).toBeGreaterThan(65_536);
  // The file stays open while the cache lives (closed once it is collected), as a load's does.
  const built = stepsOf(buildCache(openSync(columnsPath(dir), 'r'), head, base, cacheFilePath(dir)));
  expect(built.value.responses.length).toBe(head.responses);
  expect(built.steps).toBe(Math.floor(head.responses / 65_536));
}, 180_000);
