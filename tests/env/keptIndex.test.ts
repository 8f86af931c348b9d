// The lookup indexes kept beside the cache (src/env/keptIndex.ts): taken by the next process while
// they check (bound to cache.jsonl as it is, their SHA-256, today's keys), else said and built again.
import { createHash } from 'node:crypto';
import { appendFileSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { loadCache } from '../../src/cache/load.ts';
import { writeCacheRecords } from '../../src/cache/write.ts';
import { makeEnvironment } from '../../src/env/environment.ts';
import { INDEX_FILE, keptIndexSteps } from '../../src/env/keptIndex.ts';
import { buildIndexSteps, type LookupIndex } from '../../src/env/lookupIndex.ts';
import { runSteps } from '../../src/io/interrupt.ts';
import { tinyRecords } from '../fixtures/tinyWorld.ts';

const LISTS = ['exact', 'signature', 'round1', 'byAnswer'] as const;

/** A cache folder whose first environment wrote its kept index. */
function indexed() {
  const dir = mkdtempSync(join(tmpdir(), 'cpp-keptindex-'));
  writeCacheRecords(dir, tinyRecords(6));
  makeEnvironment(loadCache(dir), { miss: 'model', rounds: 2 });
  return { dir, file: join(dir, INDEX_FILE) };
}

/** The kept index of a fresh load of `dir`, whether it was built, and what was said. */
function keptOfFreshLoad(dir: string) {
  const cache = loadCache(dir);
  const build = vi.fn(() => buildIndexSteps(cache, cache.responses.length, 64));
  const said = vi.spyOn(console, 'error').mockImplementation(() => {});
  try {
    const index = runSteps(keptIndexSteps(cache, build));
    return { cache, index, built: build.mock.calls.length > 0, said: said.mock.calls.map((c) => String(c[0])) };
  } finally {
    said.mockRestore();
  }
}

/** Each list's arrays, copied, for comparing two indexes. */
const arrays = (index: LookupIndex) =>
  LISTS.map((name) => {
    const p = index[name].parts();
    return { mask: p.mask, start: Array.from(p.start), items: Array.from(p.items), hashes: Array.from(p.hashes) };
  });

/** Rewrite `file` with `edit` applied to its bytes before the SHA-256, and the SHA-256 made again (a file a workbench wrote, not a damaged one). */
function rewritten(file: string, edit: (bytes: Buffer, body: number) => void) {
  const bytes = readFileSync(file);
  const head = 12 + bytes.readUInt32LE(8);
  edit(bytes, head + ((8 - (head % 8)) % 8));
  createHash('sha256')
    .update(bytes.subarray(0, bytes.length - 32))
    .digest()
    .copy(bytes, bytes.length - 32);
  writeFileSync(file, bytes);
}

describe('the lookup indexes kept beside the cache', () => {
  it('are written by the first environment and taken by the next process: the same lists, nothing built', () => {
    const { dir, file } = indexed();
    expect(existsSync(file)).toBe(true);
    const kept = keptOfFreshLoad(dir);
    expect(kept.built).toBe(false);
    expect(kept.said).toEqual([]);
    expect(arrays(kept.index)).toEqual(arrays(runSteps(buildIndexSteps(kept.cache, kept.cache.responses.length, 64))));
    // Lookups through the kept lists: a revision found by its exact key, a round-1 list by its sample order.
    const r = kept.cache.responses.find((x) => x.round === 2)!;
    expect(kept.index.exact.get(`${r.q}|${r.a}|${r.round}|${r.prevIndex}|${[...r.ctx].sort((x, y) => x - y).join(',')}`)).toContain(r.index);
  });

  it('are built again, said and replaced once cache.jsonl changed', () => {
    const { dir, file } = indexed();
    appendFileSync(join(dir, 'cache.jsonl'), '\n');
    const stale = keptOfFreshLoad(dir);
    expect(stale.built).toBe(true);
    expect(stale.said).toEqual([`${file}: stale: made from another ${join(dir, 'cache.jsonl')}: the lookup indexes are built again`]);
    expect(keptOfFreshLoad(dir)).toMatchObject({ built: false, said: [] });
  });

  it('are built again and said when a byte changed, or when today’s keys hash otherwise than the file holds', () => {
    const { dir, file } = indexed();
    const bytes = readFileSync(file);
    bytes[bytes.length >> 1] ^= 0x10;
    writeFileSync(file, bytes);
    expect(keptOfFreshLoad(dir)).toMatchObject({
      built: true,
      said: [`${file}: damaged: its content does not match its SHA-256: the lookup indexes are built again`],
    });
    // The first list's first item's hash changed, as a file made with other keys would hold it: its SHA-256 checks.
    rewritten(file, (b, body) => {
      const { buckets, items } = JSON.parse(b.toString('utf8', 12, 12 + b.readUInt32LE(8))).lists[0];
      const pad = (n: number) => n + ((8 - (n % 8)) % 8);
      const hashes = body + pad(4 * buckets) + pad(4 * items);
      b.writeInt32LE(b.readInt32LE(hashes) ^ 0x100, hashes);
    });
    expect(keptOfFreshLoad(dir)).toMatchObject({
      built: true,
      said: [`${file}: stale: the exact list's keys are made otherwise today: the lookup indexes are built again`],
    });
  });
});
