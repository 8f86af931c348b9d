// A cache as a Parquet table (hyparquet to read, hyparquet-writer to write: pure JavaScript, no
// binaries): one row per record of cache.jsonl, one column per field of the cache format (format.ts,
// names as there; the nested ones, `context`, `ambiguous`, `of`, `meta` and `simulator`, as JSON
// columns), so that a table of recorded calls is a cache without a conversion script. A table may
// leave out `answer`: every answer is then read from its text, as `cache import` reads one (the
// question's answer type, its options), and a text that states two that disagree is stored as
// ambiguous. A missing `type` column means every row is a response.
import { readFileSync } from 'node:fs';
import { parquetReadObjects } from 'hyparquet';
import { parquetWriteBuffer } from 'hyparquet-writer';
import { questionOptions } from '../answer.ts';
import { answerFields, type DroppedReading, type Reading } from './importDu.ts';
import type { CacheLine } from './format.ts';
import { InputError } from '../io/errors.ts';

type BasicType = 'STRING' | 'JSON' | 'DOUBLE' | 'INT64' | 'BOOLEAN';
/** Every field of every record type (format.ts), with its Parquet type. */
const COLUMNS: [string, BasicType][] = [
  ['type', 'STRING'],
  ['id', 'STRING'],
  ['format', 'STRING'],
  ['version', 'INT64'],
  ['name', 'STRING'],
  ['source', 'STRING'],
  ['simulator', 'JSON'],
  ['model', 'STRING'],
  ['priceIn', 'DOUBLE'],
  ['priceOut', 'DOUBLE'],
  ['question', 'STRING'],
  ['agent', 'STRING'],
  ['text', 'STRING'],
  ['gold', 'STRING'],
  ['benchmark', 'STRING'],
  ['answerType', 'STRING'],
  ['split', 'STRING'],
  ['promptTokens', 'INT64'],
  ['round', 'INT64'],
  ['sample', 'INT64'],
  ['context', 'JSON'],
  ['prev', 'STRING'],
  ['answer', 'STRING'],
  ['ambiguous', 'JSON'],
  ['inTokens', 'INT64'],
  ['outTokens', 'INT64'],
  ['tokens', 'INT64'],
  ['of', 'JSON'],
  ['meta', 'JSON'],
];
const INTEGER = new Set(COLUMNS.filter(([, t]) => t === 'INT64').map(([name]) => name));

/** The Parquet bytes of a cache's records (cacheRecords of write.ts): one row each, in their order. */
export function recordsToParquet(records: CacheLine[]): ArrayBuffer {
  const rows = records as unknown as Record<string, unknown>[];
  const columnData = COLUMNS.map(([name, type]) => ({
    name,
    type,
    data: rows.map((r) => {
      const v = r[name];
      // Absent and null are both null here: on import, the record's type says which fields it has (FIELDS).
      if (v === undefined || v === null) return null;
      return type === 'INT64' ? BigInt(v as number) : v;
    }),
  }));
  return parquetWriteBuffer({ columnData, createdBy: 'cpp-workbench' });
}

/** Which fields a record of each type has: a row's nulls elsewhere are fields it does not have. */
const FIELDS: Record<string, string[]> = {
  cache: ['type', 'format', 'version', 'name', 'source', 'simulator', 'meta'],
  agent: ['type', 'id', 'model', 'priceIn', 'priceOut', 'meta'],
  question: ['type', 'id', 'text', 'gold', 'benchmark', 'answerType', 'split', 'promptTokens', 'meta'],
  response: ['type', 'id', 'question', 'agent', 'round', 'sample', 'context', 'prev', 'text', 'answer', 'ambiguous', 'inTokens', 'outTokens', 'meta'],
  external: ['type', 'id', 'question', 'text', 'answer', 'ambiguous', 'tokens', 'meta'],
  summary: ['type', 'id', 'question', 'text', 'of', 'answer', 'ambiguous', 'tokens', 'meta'],
};
/** Fields whose null is a value of the record (the others' null: the record has no such field). */
const NULLABLE = new Set(['prev', 'answer']);

/**
 * The cache records of a Parquet table (see the header), with the number of answers read from
 * texts and the readings dropped (importDu.ts answerFields, as `cache import`). Rows are checked when the records are written as a cache (writeCacheRecords): a problem
 * names the file, the row (as its line) and the field.
 */
export async function parquetRecords(file: string): Promise<{ records: CacheLine[]; answersRead: number; dropped: DroppedReading[] }> {
  let rows: Record<string, unknown>[];
  try {
    const bytes = readFileSync(file);
    rows = await parquetReadObjects({ file: bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer });
  } catch (e) {
    throw new InputError(`${file}: not a Parquet table this workbench reads (${(e as Error).message})`);
  }
  const columns = new Set(rows.length ? Object.keys(rows[0]) : []);
  const readAnswers = !columns.has('answer');
  const records = rows.map((row) => {
    const type = columns.has('type') ? String(row.type) : 'response';
    const rec: Record<string, unknown> = { type };
    for (const field of FIELDS[type] ?? Object.keys(row)) {
      let v = row[field];
      if (typeof v === 'bigint') v = Number(v);
      if (INTEGER.has(field) && typeof v === 'number' && !Number.isSafeInteger(v)) v = Number.NaN; // refused by the schema, naming the field
      if (v !== undefined && (v !== null || NULLABLE.has(field))) rec[field] = v;
    }
    return rec as CacheLine;
  });
  const dropped: DroppedReading[] = [];
  let answersRead = 0;
  if (readAnswers) {
    const questions = new Map<string, Reading>();
    for (const r of records)
      if (r.type === 'question') questions.set(r.id, { type: r.answerType, options: r.answerType === 'mcq' ? questionOptions(r.text) : [], question: r.text });
    for (const r of records) {
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
  return { records, answersRead, dropped };
}
