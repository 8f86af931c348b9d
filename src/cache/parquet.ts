// A cache as a Parquet table (hyparquet to read, hyparquet-writer to write: pure JavaScript, no
// binaries): one row per record of cache.jsonl, one column per field of the cache format, named and
// typed from its schema (format.ts: a field added there is a column here with nothing else to
// change; strings and enums as STRING, whole numbers as INT64, other numbers as DOUBLE, the nested
// fields as JSON columns), so that a table of recorded calls is a cache without a conversion
// script. A table may leave out `answer`: every answer is then read from its text, as `cache
// import` reads one (the question's answer type, its options), and a text that states two that
// disagree is stored as ambiguous. A missing `type` column means every row is a response.
// A problem of a table is named where it is, in one line: the .parquet file, the row (1 is the
// first) and the column (tableProblem).
import { readFileSync } from 'node:fs';
import { parquetMetadata, parquetReadObjects, parquetSchema, type SchemaElement } from 'hyparquet';
import { ByteWriter, type ColumnSource, ParquetWriter, schemaFromColumnData } from 'hyparquet-writer';
import { z } from 'zod';
import { questionOptions } from '../answer.ts';
import { answerFields, type DroppedReading, type Reading } from './importDu.ts';
import { CacheLine } from './format.ts';
import { InputError } from '../io/errors.ts';
import { issueSentence, type Problem } from '../io/problems.ts';
import { runSteps, stopPoint } from '../io/interrupt.ts';

type BasicType = 'STRING' | 'JSON' | 'DOUBLE' | 'INT64';

/** A field's schema without its optional and nullable wrappers; whether it is optional, and whether null is one of its values. */
function unwrap(field: z.ZodType): { inner: z.ZodType; optional: boolean; nullable: boolean } {
  let inner = field;
  let optional = false;
  let nullable = false;
  for (;;) {
    if (inner instanceof z.ZodOptional) optional = true;
    else if (inner instanceof z.ZodNullable) nullable = true;
    else return { inner, optional, nullable };
    inner = inner.unwrap() as z.ZodType;
  }
}

/** The Parquet type of a field of the cache format. */
function parquetType(inner: z.ZodType): BasicType {
  if (inner instanceof z.ZodNumber) return inner.isInt ? 'INT64' : 'DOUBLE';
  if (inner instanceof z.ZodLiteral) return typeof inner.value === 'number' ? 'INT64' : 'STRING';
  if (inner instanceof z.ZodString || inner instanceof z.ZodEnum) return 'STRING';
  return 'JSON'; // arrays, tuples, objects
}

interface Field {
  name: string;
  optional: boolean;
  nullable: boolean;
}

/** Every record type's fields (format.ts, in its order), and every column with its Parquet type: one per field name, in order of first use. */
function fromSchema(): { fields: Map<string, Field[]>; columns: Map<string, BasicType> } {
  const fields = new Map<string, Field[]>();
  const columns = new Map<string, BasicType>();
  for (const record of CacheLine.options) {
    const list: Field[] = [];
    for (const [name, schema] of Object.entries(record.shape as Record<string, z.ZodType>)) {
      const { inner, optional, nullable } = unwrap(schema);
      const type = parquetType(inner);
      const held = columns.get(name);
      if (held && held !== type)
        throw new Error(`format.ts: field ${name} is ${held} in one record type and ${type} in another: one Parquet column cannot hold both`);
      columns.set(name, type);
      list.push({ name, optional, nullable });
    }
    fields.set(record.shape.type.value, list);
  }
  return { fields, columns };
}

const { fields: FIELDS, columns: COLUMNS } = fromSchema();
/** The columns of a cache's Parquet table and their types, from the cache format's schema. */
export const PARQUET_COLUMNS: ReadonlyMap<string, BasicType> = COLUMNS;

/** A Parquet column as hyparquet-writer takes it. */
export type ColumnData = ColumnSource;

/** Rows a row group of a written table holds: one group is written (and read back) between two stop points (src/io/interrupt.ts). */
const ROWS_A_GROUP = 2000;

/** The Parquet bytes of a cache's records (cacheRecords of write.ts): one row each, in their order. */
export const recordsToParquet = (records: CacheLine[]): ArrayBuffer => runSteps(recordsToParquetSteps(records));

/** `recordsToParquet` as steps (src/io/interrupt.ts): it yields after each row group of ROWS_A_GROUP rows. */
export function* recordsToParquetSteps(records: CacheLine[]): Generator<unknown, ArrayBuffer> {
  const columnData = parquetColumns(records);
  const writer = new ByteWriter();
  const pq = new ParquetWriter({ writer, schema: schemaFromColumnData({ columnData }), createdBy: 'cpp-workbench' });
  for (let at = 0; at < records.length; at += ROWS_A_GROUP) {
    yield 'parquet write';
    const rows = Math.min(ROWS_A_GROUP, records.length - at);
    pq.write({ columnData: columnData.map((c) => ({ ...c, data: c.data.slice(at, at + rows) })), rowGroupSize: rows });
  }
  pq.finish();
  return writer.getBuffer();
}

/** The columns of a cache's records, every field of the format one column, before they are written (the reliability corpus damages them). */
export function parquetColumns(records: CacheLine[]): ColumnData[] {
  const rows = records as unknown as Record<string, unknown>[];
  return [...COLUMNS].map(([name, type]) => ({
    name,
    type,
    data: rows.map((r) => {
      const v = r[name];
      // Absent and null are both null here: on import, the record's type says which fields it has (FIELDS).
      if (v === undefined || v === null) return null;
      return type === 'INT64' ? BigInt(v as number) : v;
    }),
  }));
}

/** A problem of a table's row, said in one line: the file, the row (1 is the first), the column, and, when it has one, the record's id. */
export interface RowProblem {
  row: number;
  column: string;
  message: string;
  id?: string;
}

/** The error for a table's problems: the first in one line, with how many more rows have one. */
export function tableProblem(file: string, problems: RowProblem[]): InputError {
  const [p] = problems;
  const rows = new Set(problems.map((q) => q.row)).size;
  const where = p.row ? `row ${p.row}${p.id ? ` (id '${p.id}')` : ''}: ` : '';
  const column = p.column ? `column ${p.column}: ` : '';
  return new InputError(`${file}: ${where}${column}${p.message}${rows > 1 ? ` (and problems in ${rows - 1} more rows)` : ''}`);
}

/**
 * Problems of the cache written from a table's records (loading names its lines: `line` is the
 * record's place), named at the table's rows: `headerMade` when the first record is a header the
 * table did not hold.
 */
export const rowProblems = (problems: Problem[], headerMade: boolean): RowProblem[] =>
  problems
    .map((p) => ({ row: p.line === 0 ? 0 : p.line - (headerMade ? 1 : 0), column: p.field.split('.')[0], message: p.message }))
    .sort((a, b) => a.row - b.row);

const PHYSICAL: Record<BasicType, string[] | undefined> = {
  INT64: ['INT32', 'INT64'],
  DOUBLE: ['INT32', 'INT64', 'FLOAT', 'DOUBLE'],
  STRING: ['BYTE_ARRAY'],
  JSON: undefined, // JSON text or a nested column: what it holds is checked row by row
};

/** A column's physical Parquet type, and its type as a user names it. */
interface ColumnType {
  physical: string;
  name: string;
}

/** A column's type as a user names it: STRING and JSON for annotated byte arrays, else the physical type. */
function typeName(e: SchemaElement, nested: boolean): string {
  if (nested) return 'a nested column';
  if (e.converted_type === 'UTF8' || e.logical_type?.type === 'STRING') return 'STRING';
  if (e.converted_type === 'JSON' || e.logical_type?.type === 'JSON') return 'JSON';
  return String(e.type);
}

/** The table's rows and the Parquet type of each of its columns; a file that is no Parquet table is named as such. */
async function readTable(file: string): Promise<{ rows: Record<string, unknown>[]; types: Map<string, ColumnType> }> {
  const bytes = readFileSync(file);
  const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  const marker = (at: number) => bytes.length >= 8 && bytes.toString('latin1', at, at + 4) === 'PAR1';
  if (bytes.length === 0) throw new InputError(`${file}: an empty file (0 bytes), not a Parquet table`);
  if (!marker(0)) throw new InputError(`${file}: not a Parquet file (${bytes.length} bytes that do not begin with PAR1)`);
  if (!marker(bytes.length - 4)) throw new InputError(`${file}: cut short (${bytes.length} bytes without the PAR1 that ends a Parquet file)`);
  try {
    const metadata = parquetMetadata(buffer);
    const types = new Map(
      parquetSchema(metadata).children.map((c): [string, ColumnType] => [
        c.element.name,
        { physical: c.children.length ? 'nested' : String(c.element.type), name: typeName(c.element, c.children.length > 0) },
      ]),
    );
    // A row group's columns one at a time, with a stop point before each (src/io/interrupt.ts): a
    // table written by recordsToParquetSteps has groups of ROWS_A_GROUP rows.
    const rows: Record<string, unknown>[] = [];
    for (const group of metadata.row_groups) {
      const rowStart = rows.length;
      const rowEnd = rowStart + Number(group.num_rows);
      const part = Array.from({ length: rowEnd - rowStart }, (): Record<string, unknown> => ({}));
      for (const column of types.keys()) {
        await stopPoint('parquet read');
        const values = await parquetReadObjects({ file: buffer, metadata, columns: [column], rowStart, rowEnd });
        for (const [i, v] of values.entries()) part[i][column] = v[column];
      }
      rows.push(...part);
    }
    return { rows, types };
  } catch (e) {
    throw new InputError(`${file}: not a Parquet table this workbench reads (${(e as Error).message})`);
  }
}

/** Problems of the table's columns: one whose type cannot hold its field, one a record type needs and the table lacks. */
function columnProblems(rows: Record<string, unknown>[], types: Map<string, ColumnType>, typeOf: (row: Record<string, unknown>) => string): RowProblem[] {
  const problems: RowProblem[] = [];
  for (const [column, type] of types) {
    const expected = COLUMNS.get(column);
    const allowed = expected && PHYSICAL[expected];
    if (!allowed || allowed.includes(type.physical)) continue;
    const row = rows.findIndex((r) => r[column] !== null && r[column] !== undefined);
    if (row >= 0)
      problems.push({
        row: row + 1,
        column,
        message: `holds ${type.name} values; the cache format's ${column} is ${expected === 'INT64' ? 'a whole number (INT64)' : expected}`,
      });
  }
  // A column the table lacks is named once, at the first row whose record type needs it.
  const missing = new Set<string>();
  rows.forEach((r, i) => {
    const type = typeOf(r);
    for (const f of FIELDS.get(type) ?? [])
      if (!f.optional && !types.has(f.name) && f.name !== 'type' && f.name !== 'answer' && !missing.has(f.name)) {
        missing.add(f.name);
        problems.push({ row: i + 1, column: f.name, message: `the table has no ${f.name} column, which every ${type} row needs (this row is the first)` });
      }
  });
  return problems.sort((a, b) => a.row - b.row);
}

/** Rows a step of a pass over a table's rows covers between stop points (src/io/interrupt.ts). */
const ROWS_A_STEP = 2048;

/**
 * The cache records of a Parquet table (see the header), with the number of answers read from
 * texts and the readings dropped (importDu.ts answerFields, as `cache import`). Every row is checked
 * against the cache format here, so that a problem names the table's file, row and column. Each
 * pass (reading, converting, reading answers, checking) has a stop point every ROWS_A_STEP rows.
 */
export async function parquetRecords(file: string): Promise<{ records: CacheLine[]; answersRead: number; dropped: DroppedReading[] }> {
  const { rows, types } = await readTable(file);
  const typeOf = (row: Record<string, unknown>) => (types.has('type') ? String(row.type) : 'response');
  const columns = columnProblems(rows, types, typeOf);
  if (columns.length) throw tableProblem(file, columns);
  const readAnswers = !types.has('answer');
  const records: CacheLine[] = [];
  for (const [i, row] of rows.entries()) {
    if (i % ROWS_A_STEP === 0) await stopPoint('parquet rows');
    const type = typeOf(row);
    const rec: Record<string, unknown> = { type };
    for (const field of FIELDS.get(type) ?? Object.keys(row).map((name) => ({ name, nullable: false }))) {
      let v = row[field.name];
      if (typeof v === 'bigint') v = Number(v);
      if (COLUMNS.get(field.name) === 'INT64' && typeof v === 'number' && !Number.isSafeInteger(v)) v = Number.NaN; // refused by the schema, naming the field
      if (v !== undefined && (v !== null || field.nullable)) rec[field.name] = v;
    }
    records.push(rec as CacheLine);
  }
  const dropped: DroppedReading[] = [];
  let answersRead = 0;
  if (readAnswers) {
    const questions = new Map<string, Reading>();
    for (const r of records)
      if (r.type === 'question') questions.set(r.id, { type: r.answerType, options: r.answerType === 'mcq' ? questionOptions(r.text) : [], question: r.text });
    for (const [i, r] of records.entries()) {
      if (i % ROWS_A_STEP === 0) await stopPoint('parquet rows');
      if (r.type !== 'response' && r.type !== 'external' && r.type !== 'summary') continue;
      const q = questions.get(r.question);
      if (!q || typeof r.text !== 'string') continue; // an unknown question is reported when the cache is checked
      const agent = r.type === 'response' ? r.agent : null;
      const round = r.type === 'response' ? r.round : null;
      Object.assign(
        r,
        answerFields(r.text, q, (reading) => dropped.push({ id: r.id, question: r.question, agent, round, reading })),
      );
      answersRead++;
    }
  }
  const problems: RowProblem[] = [];
  for (const [i, r] of records.entries()) {
    if (i % ROWS_A_STEP === 0) await stopPoint('parquet rows');
    const checked = CacheLine.safeParse(r);
    if (checked.success) continue;
    const id = typeof (r as { id?: unknown }).id === 'string' ? (r as { id: string }).id : undefined;
    for (const issue of checked.error.issues)
      problems.push({
        row: i + 1,
        column: issue.code === 'unrecognized_keys' ? issue.keys.join(',') : String(issue.path[0] ?? 'type'),
        message: issueSentence(issue),
        id,
      });
  }
  if (problems.length) throw tableProblem(file, problems);
  return { records, answersRead, dropped };
}
