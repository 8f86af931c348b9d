import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { embeddingsPath, ensureEmbeddings } from '../../src/cache/embeddings.ts';
import { cacheFromRecords } from '../../src/cache/load.ts';
import { bofEncoder, encodeBof, words } from '../../src/encoders/bof.ts';
import { useEncoder } from '../../src/encoders/use.ts';
import type { Encoder } from '../../src/encoders/index.ts';
import { handRecords } from '../fixtures/handCache.ts';

describe('bag-of-features encoder', () => {
  it('is deterministic, and a token-weighted sum of parts is the encoding of the concatenation (but the seam bigram)', () => {
    const a = 'The triangle has a right angle.';
    const b = 'So the answer is (B).';
    expect(encodeBof(a, 64)).toEqual(encodeBof(a, 64));
    const [na, nb] = [words(a).length, words(b).length];
    const sum = encodeBof(a, 64).map((x, i) => x * na + encodeBof(b, 64)[i] * nb);
    const joined = encodeBof(`${a} ${b}`, 64).map((x) => x * (na + nb));
    // The one feature the parts lack: the bigram across the seam ("x y" encodes as (x + y + "x y") / 2).
    const [last, first] = [words(a).at(-1)!, words(b)[0]];
    const seamOnly = encodeBof(`${last} ${first}`, 64).map((x, i) => 2 * x - encodeBof(last, 64)[i] - encodeBof(first, 64)[i]);
    joined.forEach((x, i) => expect(x - seamOnly[i]).toBeCloseTo(sum[i], 5));
  });

  it('separates texts that differ in content', () => {
    const cos = (x: Float32Array, y: Float32Array) => {
      let d = 0,
        nx = 0,
        ny = 0;
      x.forEach((v, i) => ((d += v * y[i]), (nx += v * v), (ny += y[i] * y[i])));
      return d / Math.sqrt(nx * ny);
    };
    const e = (t: string) => encodeBof(t, 256);
    expect(cos(e('careful check of the enzyme'), e('careful check of the enzyme, verified'))).toBeGreaterThan(
      cos(e('careful check of the enzyme'), e('a treaty of the old empire')),
    );
  });
});

describe('embeddings stored beside the cache', () => {
  it('are computed once, per encoder, and reloaded without encoding again', async () => {
    const cache = cacheFromRecords(handRecords());
    const dir = mkdtempSync(join(tmpdir(), 'cpp-emb-'));
    let encoded = 0;
    const inner = bofEncoder(32);
    const counting: Encoder = { ...inner, encode: async (t) => ((encoded += t.length), inner.encode(t)) };
    const first = await ensureEmbeddings(dir, cache, counting);
    // One vector per distinct text (vectors are keyed by their text's hash).
    const texts = new Set([...cache.questions.map((q) => q.text), ...cache.responses.map((r) => r.text)]).size;
    expect(encoded).toBe(texts);
    expect(first.response(3)).toEqual(encodeBof(cache.responses[3].text, 32));
    const again = await ensureEmbeddings(dir, cache, counting);
    expect(encoded).toBe(texts);
    expect(Array.from(cache.questions, (_, i) => again.question(i))).toEqual(Array.from(cache.questions, (_, i) => first.question(i)));
    // A second encoder lives in its own file.
    await ensureEmbeddings(dir, cache, bofEncoder(16));
    expect(readFileSync(embeddingsPath(dir, 'bof-16'), 'utf8').split('\n')[0]).toContain('"dim":16');
  });

  it('a damaged embeddings line is reported with file, line and field', async () => {
    const cache = cacheFromRecords(handRecords());
    const dir = mkdtempSync(join(tmpdir(), 'cpp-emb-'));
    await ensureEmbeddings(dir, cache, bofEncoder(8));
    const file = embeddingsPath(dir, 'bof-8');
    const lines = readFileSync(file, 'utf8').split('\n');
    lines[3] = JSON.stringify({ ...JSON.parse(lines[3]), v: 'AAAA' });
    writeFileSync(file, lines.join('\n'));
    await expect(ensureEmbeddings(dir, cache, bofEncoder(8))).rejects.toThrow(`${file}:4: v: 3 bytes, not float32 values (the header's dim is 8: 32 bytes)`);
  });
});

describe('Universal Sentence Encoder lite', () => {
  it('loads from the npm package and gives 512-dim vectors that rank paraphrases closer', async () => {
    const use = await useEncoder();
    const [a, b, c] = await use.encode([
      'The cell membrane blocks the protein.',
      'A protein cannot pass the membrane of the cell.',
      'The treaty ended the war between the empires.',
    ]);
    expect(a.length).toBe(512);
    const dot = (x: Float32Array, y: Float32Array) => x.reduce((s, v, i) => s + v * y[i], 0);
    expect(dot(a, b)).toBeGreaterThan(dot(a, c));
  }, 300_000);
});
