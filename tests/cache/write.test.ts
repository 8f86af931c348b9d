// Atomic writes: a temporary file beside the target, flushed to disk (fsync) and checked before it
// is renamed into place, and the folder flushed after, so a power loss or a failed check never
// leaves a half-written or invalid file where a whole one was.
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';

const calls: string[] = [];
vi.mock('node:fs', async (original) => {
  const fs = await original<typeof import('node:fs')>();
  return {
    ...fs,
    fsyncSync: (fd: number) => (calls.push('fsync'), fs.fsyncSync(fd)),
    renameSync: (from: string, to: string) => (calls.push(`rename ${to.split('/').pop()}`), fs.renameSync(from, to)),
  };
});
const { writeCacheRecords } = await import('../../src/cache/write.ts');
const { writeFileAtomic } = await import('../../src/io/atomic.ts');
const { cacheFilePath } = await import('../../src/cache/load.ts');
const { tinyRecords } = await import('../fixtures/tinyWorld.ts');

describe('atomic writes', () => {
  it('flush the file before the rename, and the folder after it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cpp-write-'));
    calls.length = 0;
    writeFileAtomic(join(dir, 'checkpoint.json'), ['{"epoch":1}']);
    expect(calls).toEqual(['fsync', 'rename checkpoint.json', 'fsync']);
    expect(readFileSync(join(dir, 'checkpoint.json'), 'utf8')).toBe('{"epoch":1}');
  });

  it('a cache that fails its check is never renamed into place: the one there stays, and no temporary file is left', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cpp-write-'));
    writeFileSync(cacheFilePath(dir), 'the cache there\n');
    const bad = tinyRecords(4).map((r) => (r.type === 'agent' && r.id === 'a1' ? { ...r, priceIn: -1 } : r));
    expect(() => writeCacheRecords(dir, bad)).toThrow(`${cacheFilePath(dir)}:2: priceIn`);
    expect(readFileSync(cacheFilePath(dir), 'utf8')).toBe('the cache there\n');
    expect(readdirSync(dir)).toEqual(['cache.jsonl']);
  });
});
