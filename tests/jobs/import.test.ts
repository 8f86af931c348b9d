// Replacing a cache takes --force (cache gen and cache import alike, an imported cache too); an
// import is checked before its cache.jsonl is renamed into place, so a refused import leaves the
// folder as it was and the corrected rerun goes through.
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { genJob } from '../../jobs/cache.ts';
import { importJob, pricesOf, type ImportOptions } from '../../jobs/import.ts';
import { cacheFilePath, loadCache } from '../../src/cache/load.ts';
import { dylanMathFile } from '../fixtures/dylanMath.ts';
import { mathImport } from '../fixtures/duLayout.ts';
import { killHolder, lockHolder } from '../fixtures/lockHolder.ts';

const ALGEBRA = dylanMathFile('algebra_1_248_4_3');

const options = (out: string, prices: ImportOptions['prices']): ImportOptions => ({ ...mathImport, files: [ALGEBRA], out, name: 'algebra', prices });

describe('cache import', () => {
  it('an invalid cache is refused before it is renamed into place: nothing is left, and the corrected rerun imports', async () => {
    const root = mkdtempSync(join(tmpdir(), 'cpp-import-'));
    const out = join(root, 'algebra');
    await expect(importJob(options(out, { 'gpt-3.5-turbo': { in: -0.5, out: 1.5 } }))).rejects.toThrow(`${cacheFilePath(out)}:2: priceIn:`);
    expect(readdirSync(root)).toEqual([]);
    // The flags are checked first, with a sentence naming them.
    expect(() => pricesOf(['gpt-3.5-turbo'], undefined, 1e308, 1.5)).toThrow('--price-in: must be at most 1000000000 (found 1e+308)');
    await importJob(options(out, pricesOf(['gpt-3.5-turbo'], undefined, 0.5, 1.5)));
    expect(loadCache(out).questions).toHaveLength(100);
  }, 300_000);

  it('a folder holding a cache is replaced only with force (an imported cache by cache gen too)', async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'cpp-import-')), 'algebra');
    await importJob(options(out, { 'gpt-3.5-turbo': { in: 0.5, out: 1.5 } }));
    const imported = readFileSync(cacheFilePath(out), 'utf8');
    await expect(importJob(options(out, { 'gpt-3.5-turbo': { in: 1, out: 2 } }))).rejects.toThrow(
      `${out} already holds a cache (${cacheFilePath(out)}): pass --force to replace it, or choose another --out`,
    );
    await expect(genJob({ out, questions: 10, name: 'w' })).rejects.toThrow(
      `${out} already holds a cache (${cacheFilePath(out)}): pass --force to replace it, or choose another --out`,
    );
    expect(readFileSync(cacheFilePath(out), 'utf8')).toBe(imported);
    await importJob({ ...options(out, { 'gpt-3.5-turbo': { in: 1, out: 2 } }), force: true });
    expect(loadCache(out).agents[0].priceIn).toBe(1e-6);
    await genJob({ out, questions: 10, name: 'w', force: true });
    expect(loadCache(out).header.source).toBe('simulator');
    expect(existsSync(join(out, 'import-report.md'))).toBe(false); // it described the replaced cache
  }, 300_000);

  it('a cache being written by another process is refused, naming it', async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'cpp-import-')), 'algebra');
    const holder = await lockHolder(out);
    try {
      await expect(importJob(options(out, { 'gpt-3.5-turbo': { in: 0.5, out: 1.5 } }))).rejects.toThrow(
        `${out} is being written by another process (a test holder: pid ${holder.pid} on `,
      );
      await expect(genJob({ out, questions: 10, name: 'w' })).rejects.toThrow(`pid ${holder.pid}`);
      expect(readdirSync(out)).toEqual(['.lock']);
    } finally {
      await killHolder(holder);
    }
  }, 300_000);
});
