// A cache as a Parquet table (src/cache/parquet.ts, jobs/parquet.ts): exported and imported back it
// is the same cache, record for record; a table of recorded calls without an answer column gets
// its answers read from the texts, as `cache import` reads them, with the import report.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parquetWriteBuffer } from 'hyparquet-writer';
import { describe, expect, it } from 'vitest';
import type { CacheLine } from '../../src/cache/format.ts';
import { loadCache } from '../../src/cache/load.ts';
import { cacheRecords, writeCacheRecords } from '../../src/cache/write.ts';
import { exportParquetJob, importParquetJob } from '../../jobs/parquet.ts';
import { handRecords, response } from '../fixtures/handCache.ts';

const records = (): CacheLine[] => [
  ...handRecords(),
  { type: 'summary', id: 'q1sum', question: 'q1', text: 'Two agents answered B.', of: ['q1a2'], answer: 'B', tokens: 8 },
  { ...response('q1s1', 'q1', 'a1', 2, 'B', 6, ['q1a1', 'q1sum'], 'q1a1'), inTokens: 23, meta: { quality: 0.5, note: 'é' } },
  { ...response('q1amb', 'q1', 'a2', 1, null, 6), sample: 1, ambiguous: ['A', null] },
];

const temp = () => mkdtempSync(join(tmpdir(), 'cpp-parquet-'));

describe('a cache as a Parquet table', () => {
  it('exports and imports back to the same records, nulls and nested fields included', async () => {
    const dir = temp();
    const original = writeCacheRecords(dir, records());
    const file = join(temp(), 'cache.parquet');
    expect(await exportParquetJob(dir, file)).toMatch(new RegExp(`^wrote ${records().length} records of .* to .*cache\\.parquet`));
    expect(readFileSync(file).subarray(0, 4).toString()).toBe('PAR1');
    const out = join(temp(), 'back');
    const report = await importParquetJob({ file, out });
    const [questions, responses] = [original.questions.length, original.responses.length];
    expect(report).toMatch(new RegExp(`^imported ${questions} questions, ${responses} responses and 1 external or summary entries from`));
    expect(report).toMatch(/answers as stored in the table/);
    expect(cacheRecords(loadCache(out))).toEqual(cacheRecords(original));
    expect(readFileSync(join(out, 'import-report.md'), 'utf8')).toBe(`${report}\n`);
    await expect(importParquetJob({ file, out })).rejects.toThrow(/already holds a cache .*pass --force/);
  });

  it('reads the answers from the texts when the table has none, as cache import does', async () => {
    const file = join(temp(), 'calls.parquet');
    const rows = [
      { type: 'agent', id: 'a1', model: 'm', priceIn: 1e-6, priceOut: 2e-6 },
      {
        type: 'question',
        id: 'q1',
        text: 'Which? (A) one (B) two (C) three',
        gold: 'B',
        benchmark: 'mmlu',
        answerType: 'mcq',
        split: 'test',
        promptTokens: 10,
      },
      {
        type: 'response',
        id: 'r1',
        question: 'q1',
        agent: 'a1',
        round: 1,
        sample: 0,
        context: [],
        text: 'I think it is two. The answer is (B).',
        inTokens: 10,
        outTokens: 9,
      },
      {
        type: 'response',
        id: 'r2',
        question: 'q1',
        agent: 'a1',
        round: 1,
        sample: 1,
        context: [],
        text: 'The answer is (A). No wait, the answer is (C).',
        inTokens: 10,
        outTokens: 12,
      },
      { type: 'response', id: 'r3', question: 'q1', agent: 'a1', round: 1, sample: 2, context: [], text: 'I cannot tell which.', inTokens: 10, outTokens: 5 },
    ];
    const column = (name: string, type: 'STRING' | 'DOUBLE' | 'INT64' | 'JSON') => ({
      name,
      type,
      data: rows.map((r) => {
        const v = (r as Record<string, unknown>)[name];
        return v === undefined ? null : type === 'INT64' ? BigInt(v as number) : v;
      }),
    });
    const strings = ['type', 'id', 'model', 'question', 'agent', 'text', 'gold', 'benchmark', 'answerType', 'split'].map((n) => column(n, 'STRING'));
    const numbers = ['promptTokens', 'round', 'sample', 'inTokens', 'outTokens'].map((n) => column(n, 'INT64'));
    const columnData = [...strings, ...numbers, column('priceIn', 'DOUBLE'), column('priceOut', 'DOUBLE'), column('context', 'JSON'), column('prev', 'STRING')];
    writeFileSync(file, new Uint8Array(parquetWriteBuffer({ columnData })));
    const out = join(temp(), 'calls');
    const report = await importParquetJob({ file, out, name: 'calls' });
    expect(report).toMatch(/answers read from the texts \(the table has no answer column\): 3/);
    const cache = loadCache(out);
    expect(cache.header).toMatchObject({ name: 'calls', source: 'imported', meta: { format: 'parquet', file: 'calls.parquet' } });
    expect(cache.responses.map((r) => [r.id, r.answer, r.ambiguous ?? null, r.correct])).toEqual([
      ['r1', 'B', null, true],
      ['r2', 'C', null, false],
      ['r3', null, null, false],
    ]);
  });
});
