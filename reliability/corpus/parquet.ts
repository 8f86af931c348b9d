// Corpus cases of kind 'parquet': Parquet tables `cache from-parquet` must refuse in one line naming
// the .parquet file, the row and the column (or the file alone when it is no Parquet table): the
// inputs' cache as `cache to-parquet` writes it with one column retyped (`round` as STRING or DOUBLE,
// `text` as INT64) or left out (`question`, `id`, `gold`), one value the format refuses, one
// reference to an unknown id; an empty file, a file cut short, a file of another kind. Nothing is
// written.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parquetWriteBuffer } from 'hyparquet-writer';
import type { CacheLine } from '../../src/cache/format.ts';
import { loadCache } from '../../src/cache/load.ts';
import { type ColumnData, parquetColumns } from '../../src/cache/parquet.ts';
import { cacheRecords } from '../../src/cache/write.ts';
import { INPUT } from '../inputs.ts';
import type { CorpusCase, Vars } from './case.ts';

const TABLE = 'bad.parquet';

/** The inputs' cache as a table, its records edited, then its columns; returns the row the error must name (1 is the first). */
const table =
  (row: (records: CacheLine[]) => number, edit: { records?: (r: CacheLine[]) => CacheLine[]; columns?: (c: ColumnData[]) => ColumnData[] }) =>
  (ws: string): Vars => {
    const records = (edit.records ?? ((r) => r))(cacheRecords(loadCache(join(ws, INPUT.cache), () => {})));
    const columns = (edit.columns ?? ((c) => c))(parquetColumns(records));
    writeFileSync(join(ws, TABLE), new Uint8Array(parquetWriteBuffer({ columnData: columns })));
    return { row: row(records) + 1 };
  };
const first = (pick: (r: CacheLine) => boolean) => (records: CacheLine[]) => records.findIndex(pick);
const holding = (field: string) => first((r) => field in r);
const retyped = (name: string, type: ColumnData['type'], value: (v: unknown) => unknown) => ({
  columns: (columns: ColumnData[]) =>
    columns.map((c) => (c.name === name ? { name, type, data: Array.from(c.data as unknown[], (v) => (v === null ? null : value(v))) } : c)),
});
const without = (name: string) => ({ columns: (columns: ColumnData[]) => columns.filter((c) => c.name !== name) });
/** The first round-2 response of the table, edited (its row: the error's). */
const round2 = first((r) => r.type === 'response' && r.round === 2);
const editRound2 = (edit: (r: CacheLine & { type: 'response' }) => CacheLine) => ({
  records: (records: CacheLine[]) => records.map((r, j) => (j === round2(records) && r.type === 'response' ? edit(r) : r)),
});

const PARQUET_CASES: Omit<CorpusCase, 'kind' | 'code' | 'args'>[] = [
  {
    id: 'parquet: round as STRING',
    setup: table(holding('round'), retyped('round', 'STRING', String)),
    error: String.raw`bad\.parquet: row {row}: column round: holds STRING`,
  },
  {
    id: 'parquet: round as DOUBLE',
    setup: table(holding('round'), retyped('round', 'DOUBLE', Number)),
    error: String.raw`bad\.parquet: row {row}: column round: holds DOUBLE`,
  },
  {
    id: 'parquet: text as INT64',
    setup: table(
      holding('text'),
      retyped('text', 'INT64', () => 1n),
    ),
    error: String.raw`bad\.parquet: row {row}: column text: holds INT64`,
  },
  {
    id: 'parquet: no question column',
    setup: table(holding('question'), without('question')),
    error: String.raw`bad\.parquet: row {row}: column question: the table has no question column`,
  },
  {
    id: 'parquet: no id column',
    setup: table(holding('id'), without('id')),
    error: String.raw`bad\.parquet: row {row}: column id: the table has no id column`,
  },
  {
    id: 'parquet: no gold column',
    setup: table(holding('gold'), without('gold')),
    error: String.raw`bad\.parquet: row {row}: column gold: the table has no gold column`,
  },
  {
    id: 'parquet: a negative inTokens',
    setup: table(
      round2,
      editRound2((r) => ({ ...r, inTokens: -5 })),
    ),
    error: String.raw`bad\.parquet: row {row} \(id '[^']+'\): column inTokens: must be at least 0`,
  },
  {
    id: 'parquet: a context id of no record',
    setup: table(
      round2,
      editRound2((r) => ({ ...r, context: ['nope'] })),
    ),
    error: String.raw`bad\.parquet: row {row}: column context: unknown .* id 'nope'`,
  },
  { id: 'parquet: an empty file', setup: (ws) => writeFileSync(join(ws, TABLE), ''), error: String.raw`bad\.parquet: an empty file \(0 bytes\)` },
  {
    id: 'parquet: a file cut short',
    setup: (ws) => {
      table(() => 0, {})(ws);
      const bytes = readFileSync(join(ws, TABLE));
      writeFileSync(join(ws, TABLE), bytes.subarray(0, bytes.length >> 1));
    },
    error: String.raw`bad\.parquet: cut short`,
  },
  { id: 'parquet: a CSV file', setup: (ws) => writeFileSync(join(ws, TABLE), 'type,id\nagent,a1\n'), error: String.raw`bad\.parquet: not a Parquet file` },
];

export const parquetCases: CorpusCase[] = PARQUET_CASES.map((c) => ({
  ...c,
  kind: 'parquet',
  code: 1,
  args: ['cache', 'from-parquet', TABLE, '--out', 'imported'],
}));
