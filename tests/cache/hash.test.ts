import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { cacheHash, HASH_FILE, sha256File } from '../../src/cache/hash.ts';
import { journalPath } from '../../src/cache/journal.ts';

describe('content hashes', () => {
  it('are sha256 of the file; a missing file or a folder in its place is an error naming the path (was: a bare EISDIR)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cpp-hash-'));
    writeFileSync(join(dir, 'a.txt'), 'abc');
    expect(await sha256File(join(dir, 'a.txt'))).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    await expect(sha256File(join(dir, 'b.txt'))).rejects.toThrow(`${join(dir, 'b.txt')}: file not found`);
    mkdirSync(join(dir, 'cache', 'cache.jsonl'), { recursive: true });
    await expect(cacheHash(join(dir, 'cache'))).rejects.toThrow(`${join(dir, 'cache', 'cache.jsonl')}: is a folder, not a file`);
  });
});

describe('the hash kept beside a cache', () => {
  const sha = (text: string) => createHash('sha256').update(text).digest('hex');
  it('is used by the next process while cache.jsonl is unchanged, and recomputed once it changed (same size) or does not parse', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cpp-hash-'));
    writeFileSync(join(dir, 'cache.jsonl'), 'abc\n');
    expect(await cacheHash(dir)).toBe(sha('abc\n'));
    const kept = JSON.parse(readFileSync(join(dir, HASH_FILE), 'utf8')) as { content: { sha256: string; from: string } };
    expect(kept.content.sha256).toBe(sha('abc\n'));
    // Another process: the kept hash stands for the file (a planted one shows it is read, not recomputed).
    writeFileSync(join(dir, HASH_FILE), JSON.stringify({ content: { ...kept.content, sha256: 'f'.repeat(64) } }));
    expect(await freshProcessHash(dir)).toBe('f'.repeat(64));
    // The same size, another content: recomputed, and kept anew.
    writeFileSync(join(dir, 'cache.jsonl'), 'abd\n');
    expect(await freshProcessHash(dir)).toBe(sha('abd\n'));
    expect(JSON.parse(readFileSync(join(dir, HASH_FILE), 'utf8')).content.sha256).toBe(sha('abd\n'));
    writeFileSync(join(dir, HASH_FILE), '{"sha256": ');
    expect(await freshProcessHash(dir)).toBe(sha('abd\n'));
  });

  it('covers the record journal: a journal added or grown is another hash', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cpp-hash-'));
    writeFileSync(join(dir, 'cache.jsonl'), 'abc\n');
    expect(await freshProcessHash(dir)).toBe(sha('abc\n'));
    writeFileSync(journalPath(dir), 'j\n');
    expect(await freshProcessHash(dir)).toBe(sha('abc\nj\n'));
  });

  it("keeps a file's own hash (provenance's) beside the content hash, each checked against its file", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cpp-hash-'));
    writeFileSync(join(dir, 'cache.jsonl'), 'abc\n');
    writeFileSync(journalPath(dir), 'j\n');
    expect(await freshProcessHash(dir)).toBe(sha('abc\nj\n'));
    expect(await sha256File(join(dir, 'cache.jsonl'), true)).toBe(sha('abc\n'));
    const kept = JSON.parse(readFileSync(join(dir, HASH_FILE), 'utf8'));
    expect(Object.keys(kept).sort()).toEqual(['cache.jsonl', 'content']);
    writeFileSync(join(dir, HASH_FILE), JSON.stringify({ ...kept, 'cache.jsonl': { ...kept['cache.jsonl'], sha256: 'e'.repeat(64) } }));
    vi.resetModules();
    const { sha256File: fresh } = await import('../../src/cache/hash.ts');
    expect(await fresh(join(dir, 'cache.jsonl'), true)).toBe('e'.repeat(64));
    writeFileSync(join(dir, 'cache.jsonl'), 'abd\n');
    vi.resetModules();
    const { sha256File: after } = await import('../../src/cache/hash.ts');
    expect(await after(join(dir, 'cache.jsonl'), true)).toBe(sha('abd\n'));
  });
});

/** cacheHash as a new process computes it: without this process's memo of the files it hashed. */
async function freshProcessHash(dir: string): Promise<string> {
  vi.resetModules();
  const { cacheHash: fresh } = await import('../../src/cache/hash.ts');
  return fresh(dir);
}
