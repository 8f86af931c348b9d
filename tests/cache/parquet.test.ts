// A cache as a Parquet table (src/cache/parquet.ts, jobs/parquet.ts): exported and imported back it
// is the same cache, record for record; a table of recorded calls without an answer column gets
// its answers read from the texts, as `cache import` reads them, with the import report. A table's
// problem is one line naming the .parquet file, the row and the column, and no cache is written;
// the cache and its import report are written as a unit. The pair's old names are named as such.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parquetWriteBuffer } from 'hyparquet-writer';
import { describe, expect, it } from 'vitest';
import type { CacheLine } from '../../src/cache/format.ts';
import { loadCache } from '../../src/cache/load.ts';
import { cacheRecords, writeCacheRecords } from '../../src/cache/write.ts';
import { validateCache } from '../../src/cache/validate.ts';
import { type ColumnData, parquetColumns } from '../../src/cache/parquet.ts';
import { exportParquetJob, importParquetJob } from '../../jobs/parquet.ts';
import { commandTable, unknownCommand } from '../../cli/usage.ts';
import { commands } from '../../cli/commands/index.ts';
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
    expect(exportParquetJob(dir, file)).toMatch(new RegExp(`^wrote ${records().length} records of .* to .*cache\\.parquet`));
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
      // A plain statement, then an explanation that names another option but not as the answer.
      {
        type: 'response',
        id: 'r4',
        question: 'q1',
        agent: 'a1',
        round: 1,
        sample: 3,
        context: [],
        text: 'The answer is (B).\n\nCounting up from one, that is the next number.',
        inTokens: 10,
        outTokens: 14,
      },
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
    expect(report).toMatch(/answers read from the texts \(the table has no answer column\): 4/);
    const cache = loadCache(out);
    expect(cache.header).toMatchObject({ name: 'calls', source: 'imported', meta: { format: 'parquet', file: 'calls.parquet' } });
    expect(cache.responses.map((r) => [r.id, r.answer, r.ambiguous ?? null, r.correct])).toEqual([
      ['r1', 'B', null, true],
      ['r2', 'C', null, false],
      ['r3', null, null, false],
      ['r4', 'B', null, true],
    ]);
    // cache validate reads the texts as the import did: no stored answer differs from its reading.
    expect(validateCache(out).issues.filter((i) => i.field === 'answer')).toEqual([]);
  });
});

/** A table of `rows` as cache to-parquet writes it, `edit` applied to its columns. */
function table(rows: CacheLine[], edit: (columns: ColumnData[]) => ColumnData[] = (c) => c): string {
  const file = join(temp(), 'table.parquet');
  writeFileSync(file, new Uint8Array(parquetWriteBuffer({ columnData: edit(parquetColumns(rows)) })));
  return file;
}
const retyped = (name: string, type: ColumnData['type'], value: (v: unknown) => unknown) => (columns: ColumnData[]) =>
  columns.map((c) => (c.name === name ? { name, type, data: Array.from(c.data as unknown[], (v) => (v === null ? null : value(v))) } : c));
const dropped = (name: string) => (columns: ColumnData[]) => columns.filter((c) => c.name !== name);

/** What importing `file` says, as the command line prints it, and whether a cache was written. */
async function refused(file: string): Promise<{ said: string; written: boolean }> {
  const out = join(temp(), 'out');
  const said = await importParquetJob({ file, out }).then(
    () => 'imported',
    (e: Error) => e.message,
  );
  return { said, written: existsSync(join(out, 'cache.jsonl')) };
}

describe("a Parquet table's problem, named where it is", () => {
  const rows = () => cacheRecords(writeCacheRecords(temp(), records()));

  it.each([
    ['round as STRING', retyped('round', 'STRING', String), 'round', 'STRING'],
    ['round as DOUBLE', retyped('round', 'DOUBLE', Number), 'round', 'DOUBLE'],
    ['text as INT64', retyped('text', 'INT64', () => 1n), 'text', 'INT64'],
  ])('%s: one line naming the file, the first row holding one and the column', async (_, edit, column, type) => {
    const file = table(rows(), edit);
    const { said, written } = await refused(file);
    const row = rows().findIndex((r) => (r as Record<string, unknown>)[column] !== undefined) + 1;
    expect(said).toBe(
      `${file}: row ${row}: column ${column}: holds ${type} values; the cache format's ${column} is ${column === 'round' ? 'a whole number (INT64)' : 'STRING'}`,
    );
    expect(written).toBe(false);
  });

  it.each([
    ['question', 'summary'],
    ['id', 'agent'],
    ['gold', 'question'],
  ])('a table without a %s column: one line naming the file, the column and the first row that needs it (a %s)', async (column, type) => {
    const file = table(rows(), dropped(column));
    const row = rows().findIndex((r) => column in r) + 1;
    expect(rows()[row - 1].type).toBe(type);
    const { said, written } = await refused(file);
    expect(said).toBe(`${file}: row ${row}: column ${column}: the table has no ${column} column, which every ${type} row needs (this row is the first)`);
    expect(written).toBe(false);
  });

  it('a bad value in one row, and a reference only the whole cache can check: its row, id and column, in one line', async () => {
    const bad = rows().map((r) => (r.type === 'response' && r.id === 'q1a3' ? { ...r, inTokens: -5 } : r));
    const at = bad.findIndex((r) => r.type === 'response' && r.id === 'q1a3') + 1;
    const file = table(bad);
    expect(await refused(file)).toEqual({ said: `${file}: row ${at} (id 'q1a3'): column inTokens: must be at least 0`, written: false });
    const dangling = rows().map((r) => (r.type === 'response' && r.id === 'q1f2' ? { ...r, context: ['q1a1', 'nope'] } : r));
    const row = dangling.findIndex((r) => r.type === 'response' && r.id === 'q1f2') + 1;
    const other = table(dangling);
    expect(await refused(other)).toEqual({ said: `${other}: row ${row}: column context: unknown response, external or summary id 'nope'`, written: false });
  });

  it('a zero-byte file, a file cut short and a file of another kind: one line naming it, never a DataView offset', async () => {
    const dir = temp();
    const empty = join(dir, 'empty.parquet');
    writeFileSync(empty, '');
    expect(await refused(empty)).toEqual({ said: `${empty}: an empty file (0 bytes), not a Parquet table`, written: false });
    const whole = readFileSync(table(rows()));
    const cut = join(dir, 'cut.parquet');
    writeFileSync(cut, whole.subarray(0, whole.length >> 1));
    expect(await refused(cut)).toEqual({ said: `${cut}: cut short (${whole.length >> 1} bytes without the PAR1 that ends a Parquet file)`, written: false });
    const csv = join(dir, 'calls.parquet');
    writeFileSync(csv, 'type,id\nagent,a1\n');
    expect(await refused(csv)).toEqual({ said: `${csv}: not a Parquet file (17 bytes that do not begin with PAR1)`, written: false });
  });
});

describe('the cache and its import report, written as a unit', () => {
  it('a report that cannot be written leaves no cache (as a kill before it would), and the rerun needs no --force', async () => {
    const dir = temp();
    writeCacheRecords(dir, records());
    const file = join(temp(), 'cache.parquet');
    exportParquetJob(dir, file);
    const out = join(temp(), 'back');
    mkdirSync(join(out, 'import-report.md'), { recursive: true }); // a folder where the report goes: its write fails
    await expect(importParquetJob({ file, out })).rejects.toThrow(/import-report\.md: not written/);
    expect(existsSync(join(out, 'cache.jsonl'))).toBe(false);
    rmSync(join(out, 'import-report.md'), { recursive: true });
    const report = await importParquetJob({ file, out });
    expect(readFileSync(join(out, 'import-report.md'), 'utf8')).toBe(`${report}\n`);
    expect(cacheRecords(loadCache(out))).toEqual(cacheRecords(loadCache(dir)));
  });
});

describe("the Parquet pair's old names", () => {
  it("'cache export' and 'cache import-parquet' are named with their new names, not run", async () => {
    const table = await commandTable(commands, ['cache']);
    expect(unknownCommand(['cache', 'export', 'c', '--out', 'x.parquet'], table, 'cpp-workbench')).toBe(
      "'cache export' is now 'cache to-parquet' (a cache as a Parquet table; 'export' writes a policy)\nRun 'cpp-workbench cache to-parquet --help' for its flags.",
    );
    expect(unknownCommand(['cache', 'import-parquet', 'x.parquet'], table, 'cpp-workbench')).toMatch(/^'cache import-parquet' is now 'cache from-parquet'/);
    expect(unknownCommand(['cache', 'to-parquet', 'c'], table, 'cpp-workbench')).toBeUndefined();
    expect(unknownCommand(['cache', 'from-parquet', 'x.parquet'], table, 'cpp-workbench')).toBeUndefined();
  });
});
