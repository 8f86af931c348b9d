import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cacheHash, sha256File } from '../../src/cache/hash.ts';

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
