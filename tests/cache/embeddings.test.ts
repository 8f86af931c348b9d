// Embeddings are keyed by the hash of their text under their encoder: an edited or regenerated text
// gets a vector of its own, never a stale one; `cache validate` checks the stored vectors.
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { embedJob, genJob } from '../../jobs/cache.ts';
import { embeddingsPath, ensureEmbeddings, textKey } from '../../src/cache/embeddings.ts';
import type { CacheLine } from '../../src/cache/format.ts';
import { textIndex } from '../../src/cache/embeddingsFile.ts';
import { loadCache } from '../../src/cache/load.ts';
import { formatIssue, validateCache } from '../../src/cache/validate.ts';
import { writeCacheRecords } from '../../src/cache/write.ts';
import { makeEncoder } from '../../src/encoders/index.ts';
import { killHolder, lockHolder } from '../fixtures/lockHolder.ts';
import { tinyRecords } from '../fixtures/tinyWorld.ts';

/** The tiny cache with `edit` applied, written to a new folder. */
function cacheOf(edit: (r: CacheLine[]) => void = () => {}): string {
  const dir = mkdtempSync(join(tmpdir(), 'cpp-emb-'));
  const records = tinyRecords(4);
  edit(records);
  writeCacheRecords(dir, records);
  return dir;
}

describe('embeddings', () => {
  it("a text's key is the SHA-256 of its UTF-8 bytes, in hex in the file and in the index's binary form", () => {
    const texts = ['Tiny question 0 about tiny things?', 'café — naïve ✓ 🙂', '', 'lone \ud800 surrogate'];
    const digest = (t: string) => createHash('sha256').update(Buffer.from(t, 'utf8')).digest();
    expect(texts.map(textKey)).toEqual(texts.map((t) => digest(t).toString('hex')));
    const dir = cacheOf((records) => {
      for (const r of records) if (r.type === 'response') r.text = texts[Number(r.id.replace(/\D/g, '')) % texts.length] || 'x';
    });
    const index = textIndex(loadCache(dir));
    const held = [...index.slots.keys()].sort();
    const expected = [
      ...new Set(
        loadCache(dir)
          .responses.map((r) => r.text)
          .concat(loadCache(dir).questions.map((q) => q.text)),
      ),
    ].map((t) => digest(t).toString('latin1'));
    expect(held).toEqual(expected.sort());
  });

  it('an edited text gets its own vector; the stale one is dropped, the others kept', async () => {
    const bof = await makeEncoder('bof');
    const dir = cacheOf();
    const first = await ensureEmbeddings(dir, loadCache(dir), bof);
    const edited = 'Tiny question 0, now asked about something else?';
    writeCacheRecords(
      dir,
      tinyRecords(4).map((r) => (r.type === 'question' && r.id === 'q0' ? { ...r, text: edited } : r)),
    );
    const encode = vi.spyOn(bof, 'encode');
    const second = await ensureEmbeddings(dir, loadCache(dir), bof);
    expect(encode.mock.calls.map((c) => c[0])).toEqual([[edited]]);
    expect(second.questions[0]).toEqual((await bof.encode([edited]))[0]);
    expect(second.questions[0]).not.toEqual(first.questions[0]);
    expect(second.questions.slice(1)).toEqual(first.questions.slice(1));
    const stored = readFileSync(embeddingsPath(dir, bof.id), 'utf8');
    expect(stored).toContain(textKey(edited));
    expect(stored).not.toContain(textKey('Tiny question 0 about tiny things?'));
  });

  it('a file another process started after this one looked is taken up, not started anew (its vectors kept, no text twice)', async () => {
    const dir = cacheOf();
    const bof = await makeEncoder('bof');
    const file = embeddingsPath(dir, bof.id);
    const other = await makeEncoder('bof');
    // This embedding has looked (no file yet) when the other one starts the file and finishes.
    const encode = other.encode.bind(other);
    let started: { ino: number; text: string } | undefined;
    vi.spyOn(other, 'encode').mockImplementation(async (texts) => {
      if (!started) {
        await ensureEmbeddings(dir, loadCache(dir), bof);
        started = { ino: statSync(file).ino, text: readFileSync(file, 'utf8') };
      }
      return encode(texts);
    });
    await ensureEmbeddings(dir, loadCache(dir), other);
    expect(statSync(file).ino).toBe(started!.ino);
    expect(readFileSync(file, 'utf8')).toBe(started!.text);
    expect(validateCache(dir).issues.filter((i) => i.file === file)).toEqual([]);
  });

  it('a cache regenerated over an embedded folder gets its vectors recomputed by cache embed', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cpp-emb-'));
    await genJob({ out: dir, questions: 12, seed: 1, name: 'w' });
    await embedJob(dir, 'bof');
    await genJob({ out: dir, questions: 12, seed: 2, name: 'w', force: true });
    const bof = await makeEncoder('bof');
    const cache = loadCache(dir);
    const texts = [...cache.questions.map((q) => q.text), ...cache.responses.map((r) => r.text)];
    const fresh = new Set(texts.map(textKey));
    const stored = () =>
      readFileSync(embeddingsPath(dir, bof.id), 'utf8')
        .trim()
        .split('\n')
        .slice(1)
        .map((l) => JSON.parse(l).sha256 as string);
    expect(stored().filter((k) => fresh.has(k)).length).toBeLessThan(fresh.size); // most texts changed
    expect(validateCache(dir).issues.map(formatIssue).join('\n')).toMatch(/texts have no vector yet: computed at the next use \(cache embed\)/);
    await embedJob(dir, 'bof');
    expect(new Set(stored())).toEqual(fresh);
    const e = await ensureEmbeddings(dir, cache, bof);
    expect(e.responses[5]).toEqual((await bof.encode([cache.responses[5].text]))[0]);
  }, 300_000);

  it('cache embed holds the cache lock throughout: beside another writer of the cache it is refused, naming it (was: both ran to the end)', async () => {
    const dir = cacheOf();
    const holder = await lockHolder(dir);
    try {
      await expect(embedJob(dir, 'bof')).rejects.toThrow(`${dir} is being written by another process (a test holder: pid ${holder.pid} on `);
      expect(existsSync(join(dir, 'embeddings'))).toBe(false);
    } finally {
      await killHolder(holder);
    }
    await embedJob(dir, 'bof'); // the lock of the killed holder is taken over
    expect(readdirSync(dir).sort()).toEqual(['cache.jsonl', 'embeddings']);
  }, 300_000);

  it('cache validate reads the embeddings: wrong dimension, a value that is not finite, two vectors for one text', async () => {
    const bof = await makeEncoder('bof');
    const dir = cacheOf();
    await ensureEmbeddings(dir, loadCache(dir), bof);
    const file = embeddingsPath(dir, bof.id);
    const lines = readFileSync(file, 'utf8').trim().split('\n');
    const vector = (values: number[]) => Buffer.from(new Float32Array(values).buffer).toString('base64');
    const at = (i: number) => JSON.parse(lines[i]) as { sha256: string; v: string };
    lines[2] = JSON.stringify({ ...at(2), v: vector(new Array(bof.dim - 1).fill(0.1)) });
    lines[3] = JSON.stringify({ ...at(3), v: vector([NaN, ...new Array(bof.dim - 1).fill(0.1)]) });
    lines.push(JSON.stringify(at(4)));
    writeFileSync(file, lines.join('\n') + '\n');
    const issues = validateCache(dir)
      .issues.filter((i) => i.severity === 'error')
      .map(formatIssue);
    expect(issues).toEqual([
      `${file}:3: v: 255 float32 values, the header's dim is 256`,
      `${file}:4: v: value 0 is NaN: vectors hold finite numbers only`,
      `${file}:${lines.length}: sha256: a second vector for the same text (first on line 5): one vector per text`,
    ]);
    // Training and evaluation read them through the same checks: a NaN vector never trains.
    await expect(ensureEmbeddings(dir, loadCache(dir), bof)).rejects.toThrow(`${file}:4: v: value 0 is NaN`);
  });

  it('a torn last line (an append cut by a crash) is a warning of validate, and the next use cuts it off and embeds that text again', async () => {
    const bof = await makeEncoder('bof');
    const dir = cacheOf();
    await ensureEmbeddings(dir, loadCache(dir), bof);
    const file = embeddingsPath(dir, bof.id);
    const whole = readFileSync(file, 'utf8');
    const lines = whole.trim().split('\n');
    writeFileSync(file, `${lines.slice(0, -1).join('\n')}\n${lines.at(-1)!.slice(0, 40)}`); // the last vector's line cut short
    const issues = validateCache(dir).issues.map(formatIssue);
    expect(issues).toContain(`${file}: warning: a torn last line (40 bytes, an append cut by a crash): cut off at the next use`);
    expect(issues.filter((i) => !i.includes('warning'))).toEqual([]);
    const encode = vi.spyOn(bof, 'encode');
    await ensureEmbeddings(dir, loadCache(dir), bof);
    expect(encode.mock.calls.flatMap((c) => c[0]).length).toBe(1); // only the torn line's text
    expect(readFileSync(file, 'utf8').trim().split('\n').sort()).toEqual(whole.trim().split('\n').sort());
  });
});
