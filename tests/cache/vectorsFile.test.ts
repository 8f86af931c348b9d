// The binary vectors file (src/cache/vectorsFile.ts) derived from an embeddings file: used while it
// is bound to today's cache and embeddings file and checks; a stale or damaged one is said and
// rebuilt, never used.
import { mkdtempSync, readFileSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { embeddingsPath, ensureEmbeddings } from '../../src/cache/embeddings.ts';
import { loadCache } from '../../src/cache/load.ts';
import { readVectors, vectorsPath } from '../../src/cache/vectorsFile.ts';
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

/** What ensureEmbeddings said on stderr. */
function said() {
  const error = vi.spyOn(console, 'error').mockImplementation(() => {});
  return () => error.mock.calls.map((c) => String(c[0]));
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('the binary vectors file', () => {
  it('is written by the first use and read by the next: the same vectors, by question and by response', async () => {
    const { dir, bof, first, file, jsonl } = await embedded();
    expect(statSync(file).size).toBeGreaterThan(0);
    const read = readVectors(dir, jsonl, loadCache(dir), bof);
    expect(read && 'vectors' in read).toBe(true);
    const { vectors } = read as { vectors: { questions: Float32Array[]; responses: Float32Array[] } };
    expect(vectors.questions).toEqual(first.questions);
    expect(vectors.responses).toEqual(first.responses);
    const lines = said();
    const second = await ensureEmbeddings(dir, loadCache(dir), bof);
    expect(second.responses).toEqual(first.responses);
    expect(lines()).toEqual([]);
  });

  it('is stale once a text of the cache changed: the edited text gets its own vector, and the staleness is said', async () => {
    const { dir, bof, first, file, jsonl } = await embedded();
    writeCacheRecords(
      dir,
      tinyRecords(4).map((r) => (r.type === 'question' && r.id === 'q0' ? { ...r, text: EDITED } : r)),
    );
    expect(readVectors(dir, jsonl, loadCache(dir), bof)).toEqual({ refused: 'stale: cache.jsonl changed since it was built' });
    const lines = said();
    const second = await ensureEmbeddings(dir, loadCache(dir), bof);
    expect(second.questions[0]).toEqual((await bof.encode([EDITED]))[0]);
    expect(second.questions[0]).not.toEqual(first.questions[0]);
    expect(lines()).toEqual([`${file}: stale: cache.jsonl changed since it was built; rebuilt from ${jsonl}`]);
    // Rebuilt: bound to the cache as it is now.
    expect(readVectors(dir, jsonl, loadCache(dir), bof)).toHaveProperty('vectors');
  });

  it('is stale once the embeddings file changed: its vectors are the ones used', async () => {
    const { dir, bof, first, file, jsonl } = await embedded();
    // The first vector line rewritten with another (valid) vector for the same text.
    const [header, line, ...rest] = readFileSync(jsonl, 'utf8').split('\n');
    const { sha256 } = JSON.parse(line) as { sha256: string };
    const other = new Float32Array(bof.dim).fill(0.5);
    const changed = JSON.stringify({ sha256, v: Buffer.from(other.buffer).toString('base64') });
    writeFileSync(jsonl, [header, changed, ...rest].join('\n'));
    const lines = said();
    const second = await ensureEmbeddings(dir, loadCache(dir), bof);
    const holders = [...second.questions, ...second.responses].filter((v) => v.every((x) => x === 0.5));
    expect(holders.length).toBeGreaterThan(0);
    expect([...first.questions, ...first.responses].some((v) => v.every((x) => x === 0.5))).toBe(false);
    expect(lines()).toEqual([`${file}: stale: the embeddings file changed since it was built; rebuilt from ${jsonl}`]);
  });

  it('is damaged when a byte of it changed: said, never used, rebuilt', async () => {
    const { dir, bof, first, file, jsonl } = await embedded();
    const bytes = readFileSync(file);
    bytes[bytes.length - 100] ^= 0x40; // inside the last vector
    writeFileSync(file, bytes);
    expect(readVectors(dir, jsonl, loadCache(dir), bof)).toEqual({ refused: 'damaged: its content does not match its SHA-256' });
    const lines = said();
    const second = await ensureEmbeddings(dir, loadCache(dir), bof);
    expect(second.questions).toEqual(first.questions);
    expect(second.responses).toEqual(first.responses);
    expect(lines()).toEqual([`${file}: damaged: its content does not match its SHA-256; rebuilt from ${jsonl}`]);
    expect(readVectors(dir, jsonl, loadCache(dir), bof)).toHaveProperty('vectors');
  });

  it('is damaged when cut short, or not a vectors file', async () => {
    const { dir, bof, file, jsonl } = await embedded();
    const size = statSync(file).size;
    truncateSync(file, size - 10);
    expect(readVectors(dir, jsonl, loadCache(dir), bof)).toEqual({
      refused: expect.stringMatching(/^damaged: \d+ bytes where its slots, vectors and SHA-256 end at \d+$/),
    });
    writeFileSync(file, 'not vectors at all, but long enough to have a head and a digest');
    expect(readVectors(dir, jsonl, loadCache(dir), bof)).toEqual({ refused: 'damaged: not a vectors file (no magic)' });
  });
});
