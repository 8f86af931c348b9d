// The binary vectors file (src/cache/vectorsFile.ts) derived from an embeddings file: used while it
// is bound to today's cache and embeddings file and its index checks; its rows are read by slot as
// they are asked for (src/cache/vectorReader.ts), each page checked then. A stale or damaged file
// is said and rebuilt, never used; a damaged page met during a run stops it and removes the file.
import { existsSync, mkdtempSync, readFileSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { embedCache, embeddingsPath, ensureEmbeddings, type Embeddings } from '../../src/cache/embeddings.ts';
import { keptCacheSteps, keptEmbeddings } from '../../src/cache/kept.ts';
import { loadCache } from '../../src/cache/load.ts';
import type { Cache } from '../../src/cache/types.ts';
import { vectorReader } from '../../src/cache/vectorReader.ts';
import { openVectors, PAGE_ROWS, vectorsPath, vectorsWriter } from '../../src/cache/vectorsFile.ts';
import { writeCacheRecords } from '../../src/cache/write.ts';
import { makeEncoder } from '../../src/encoders/index.ts';
import { tinyRecords } from '../fixtures/tinyWorld.ts';

const EDITED = 'Tiny question 0, now asked about something else?';

async function embedded() {
  const dir = mkdtempSync(join(tmpdir(), 'cpp-vectors-'));
  writeCacheRecords(dir, tinyRecords(4));
  const bof = await makeEncoder('bof');
  const first = await ensureEmbeddings(dir, loadCache(dir), bof);
  return { dir, bof, first, file: vectorsPath(dir, bof.id), jsonl: embeddingsPath(dir, bof.id) };
}

/** The tiny cache's vectors file rewritten with pages of 2 rows, so that its texts fill several pages. */
async function twoRowPages() {
  const { dir, bof, jsonl } = await embedded();
  const cache = loadCache(dir);
  const writer = vectorsWriter(dir, jsonl, bof, 2);
  writer.finish((await embedCache(dir, cache, bof, {}, writer.set)).index);
  const opened = openVectors(dir, jsonl, cache, bof);
  if (!opened || !('vectors' in opened)) throw new Error(`not read: ${JSON.stringify(opened)}`);
  return { cache, bof, jsonl, vectors: opened.vectors };
}

/** Every question's and response's vector, copied out of `e`. */
function all(e: Embeddings, cache: Cache) {
  return {
    questions: Array.from(cache.questions, (_, i) => e.question(i).slice()),
    responses: Array.from(cache.responses, (_, j) => e.response(j).slice()),
  };
}

/** The vectors the encoder gives the cache's texts. */
async function encoded(cache: Cache) {
  const bof = await makeEncoder('bof');
  return { questions: await bof.encode(cache.questions.map((q) => q.text)), responses: await bof.encode(cache.responses.map((r) => r.text)) };
}

/** What ensureEmbeddings said on stderr. */
function said() {
  const error = vi.spyOn(console, 'error').mockImplementation(() => {});
  return () => error.mock.calls.map((c) => String(c[0]));
}

/** Flip a bit of byte `at` (negative: from the end) of `file`, in place (the same inode, as a disk's damage would). */
function damage(file: string, at: number) {
  const bytes = readFileSync(file);
  bytes[at < 0 ? bytes.length + at : at] ^= 0x40;
  writeFileSync(file, bytes);
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('the binary vectors file', () => {
  it('is written by the first use and read by the next: the encoder’s vectors, by question and by response', async () => {
    const { dir, bof, first } = await embedded();
    const cache = loadCache(dir);
    expect(all(first, cache)).toEqual(await encoded(cache));
    const lines = said();
    const encode = vi.spyOn(bof, 'encode');
    const second = await ensureEmbeddings(dir, loadCache(dir), bof);
    expect(all(second, cache)).toEqual(await encoded(cache));
    expect(encode).not.toHaveBeenCalled();
    expect(lines()).toEqual([]);
  });

  it('reads rows by slot through a bounded set of pages: a reader keeping one page gives every vector', async () => {
    const { cache, bof, jsonl, vectors } = await twoRowPages();
    expect(vectors.pageRows).toBe(2);
    expect(vectors.slots).toBeGreaterThan(3 * 2);
    const row = vectorReader(vectors, jsonl, 2 * bof.dim * 4); // room for one page: each read of another evicts it
    const want = await encoded(cache);
    // Back and forth across pages, so that rows are read again after their page was evicted.
    for (const j of [...cache.responses.keys()].reverse()) expect(row(vectors.responses[j])).toEqual(want.responses[j]);
    cache.questions.forEach((_, i) => expect(row(vectors.questions[i])).toEqual(want.questions[i]));
    cache.responses.forEach((_, j) => expect(row(vectors.responses[j])).toEqual(want.responses[j]));
  });

  it('a page that fails its check holds no frame: neither it nor the page its frame held is given from there', async () => {
    const { cache, bof, jsonl, vectors } = await twoRowPages();
    const row = vectorReader(vectors, jsonl, 2 * bof.dim * 4); // one frame: the second page is read into the first's
    const want = await encoded(cache);
    const first = vectors.questions[0];
    const other = vectors.responses.findIndex((slot) => Math.floor(slot / 2) !== Math.floor(first / 2));
    expect(row(first)).toEqual(want.questions[0]);
    damage(vectors.path, 4 * bof.dim * vectors.responses[other] + 1);
    expect(() => row(vectors.responses[other])).toThrow('does not match its SHA-256: damaged');
    expect(() => row(vectors.responses[other])).toThrow('does not match its SHA-256: damaged'); // checked again, not kept
    expect(row(first)).toEqual(want.questions[0]); // read again, not the damaged page's bytes left in the frame
  });

  it('is stale once a text of the cache changed: the edited text gets its own vector, and the staleness is said', async () => {
    const { dir, bof, first, file, jsonl } = await embedded();
    const before = first.question(0).slice();
    writeCacheRecords(
      dir,
      tinyRecords(4).map((r) => (r.type === 'question' && r.id === 'q0' ? { ...r, text: EDITED } : r)),
    );
    expect(openVectors(dir, jsonl, loadCache(dir), bof)).toEqual({ refused: 'stale: cache.jsonl changed since it was built' });
    const lines = said();
    const second = await ensureEmbeddings(dir, loadCache(dir), bof);
    expect(second.question(0)).toEqual((await bof.encode([EDITED]))[0]);
    expect(second.question(0)).not.toEqual(before);
    expect(lines()).toEqual([`${file}: stale: cache.jsonl changed since it was built; rebuilt from ${jsonl}`]);
    // Rebuilt: bound to the cache as it is now.
    expect(openVectors(dir, jsonl, loadCache(dir), bof)).toHaveProperty('vectors');
  });

  it('is stale once the embeddings file changed: its vectors are the ones used', async () => {
    const { dir, bof, first, file, jsonl } = await embedded();
    const cache = loadCache(dir);
    const before = all(first, cache);
    // The first vector line rewritten with another (valid) vector for the same text.
    const [header, line, ...rest] = readFileSync(jsonl, 'utf8').split('\n');
    const { sha256 } = JSON.parse(line) as { sha256: string };
    const other = new Float32Array(bof.dim).fill(0.5);
    const changed = JSON.stringify({ sha256, v: Buffer.from(other.buffer).toString('base64') });
    writeFileSync(jsonl, [header, changed, ...rest].join('\n'));
    const lines = said();
    const after = all(await ensureEmbeddings(dir, loadCache(dir), bof), cache);
    const holders = [...after.questions, ...after.responses].filter((v) => v.every((x) => x === 0.5));
    expect(holders.length).toBeGreaterThan(0);
    expect([...before.questions, ...before.responses].some((v) => v.every((x) => x === 0.5))).toBe(false);
    expect(lines()).toEqual([`${file}: stale: the embeddings file changed since it was built; rebuilt from ${jsonl}`]);
  });

  it('is damaged when a byte of its index changed: said, never used, rebuilt', async () => {
    const { dir, bof, file, jsonl } = await embedded();
    const cache = loadCache(dir);
    damage(file, 4 * bof.dim * new Set(textsOf(cache)).size + 1); // the first question's slot, just past the rows
    expect(openVectors(dir, jsonl, cache, bof)).toEqual({ refused: 'damaged: its index does not match its SHA-256' });
    const lines = said();
    const second = await ensureEmbeddings(dir, loadCache(dir), bof);
    expect(all(second, cache)).toEqual(await encoded(cache));
    expect(lines()).toEqual([`${file}: damaged: its index does not match its SHA-256; rebuilt from ${jsonl}`]);
    expect(openVectors(dir, jsonl, loadCache(dir), bof)).toHaveProperty('vectors');
  });

  it('a damaged page met during a run stops it, naming the file and the page; the file is removed and the next run rebuilds it', async () => {
    const { dir, bof, file, jsonl } = await embedded();
    const cache = loadCache(dir);
    const kept = (function run(steps: Generator<unknown, Cache>): Cache {
      for (let s = steps.next(); ; s = steps.next()) if (s.done) return s.value;
    })(keptCacheSteps(dir));
    const during = await keptEmbeddings(dir, kept, bof); // the file opened, no row read yet
    const slots = new Set(textsOf(cache)).size;
    expect(slots).toBeLessThanOrEqual(PAGE_ROWS);
    damage(file, 5); // a byte of the first row
    expect(() => during.question(0)).toThrow(
      `${file}: page 1 of 1 (rows 0-${slots - 1}) does not match its SHA-256: damaged; removed: the next run rebuilds it from ${jsonl}`,
    );
    expect(existsSync(file)).toBe(false);
    const lines = said();
    const next = await keptEmbeddings(dir, kept, bof);
    expect(all(next, cache)).toEqual(await encoded(cache));
    expect(lines()).toEqual([]);
    expect(openVectors(dir, jsonl, cache, bof)).toHaveProperty('vectors');
  });

  it('is damaged when cut short, or not a vectors file; one of the older version is stale', async () => {
    const { dir, bof, file, jsonl } = await embedded();
    const bytes = readFileSync(file);
    truncateSync(file, bytes.length - 10);
    expect(openVectors(dir, jsonl, loadCache(dir), bof)).toEqual({ refused: 'damaged: not a vectors file (no magic)' });
    writeFileSync(file, Buffer.concat([bytes.subarray(0, 100), bytes]));
    expect(openVectors(dir, jsonl, loadCache(dir), bof)).toEqual({
      refused: expect.stringMatching(/^damaged: \d+ bytes where its rows, slots, page digests, head and trailer end at \d+$/),
    });
    writeFileSync(file, 'not vectors at all, but long enough to have a head and a digest');
    expect(openVectors(dir, jsonl, loadCache(dir), bof)).toEqual({ refused: 'damaged: not a vectors file (no magic)' });
    writeFileSync(file, `CPPVEC01${'\0'.repeat(100)}`);
    expect(openVectors(dir, jsonl, loadCache(dir), bof)).toEqual({ refused: 'stale: version 1, this workbench reads 2' });
  });
});

/** The cache's texts, questions then responses. */
const textsOf = (cache: Cache) => [...cache.questions.map((q) => q.text), ...cache.responses.map((r) => r.text)];
