// Every form of a cache carries every field of the cache format (src/cache/format.ts): cache.jsonl
// -> cache.columns -> a Parquet table -> cache.jsonl gives back the records it started from, over
// fixtures that hold every field of every record type (checked against the schema itself, so a
// field added there fails here until the fixtures hold it and every form carries it). The fixtures:
// the hand-built cache with a summary, an ambiguous read, a disagreement, a turn and meta on every
// record type, and two problems of a recorded DyLAN debate (responses with turns, a response's and
// an external entry's disagreement).
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sourceState, writeColumns } from '../../src/cache/columns.ts';
import { CacheLine } from '../../src/cache/format.ts';
import { importDu } from '../../src/cache/importDu.ts';
import { cacheFilePath, cacheFromRecords, loadCache } from '../../src/cache/load.ts';
import { PARQUET_COLUMNS } from '../../src/cache/parquet.ts';
import { checkProtocol, unrecordedTurn } from '../../src/env/protocol.ts';
import { DebateSettings } from '../../src/env/settings.ts';
import type { Cache } from '../../src/cache/types.ts';
import { cacheRecords, writeCacheRecords } from '../../src/cache/write.ts';
import { exportParquetJob, importParquetJob } from '../../jobs/parquet.ts';
import { mathImport } from '../fixtures/duLayout.ts';
import { dylanMathFile } from '../fixtures/dylanMath.ts';
import { handRecords, response } from '../fixtures/handCache.ts';

const temp = () => mkdtempSync(join(tmpdir(), 'cpp-formats-'));

/** The hand-built cache with every optional field of every record type set somewhere. */
function handWithEveryField(): CacheLine[] {
  const meta = { note: 'é', n: 1 };
  return [
    ...handRecords().map((r) =>
      r.type === 'cache' ? { ...r, simulator: { seed: 7 }, meta } : r.type === 'agent' || r.type === 'question' ? { ...r, meta } : r,
    ),
    { type: 'summary', id: 'q1sum', question: 'q1', text: 'Two agents answered B or A.', of: ['q1a2'], answer: null, ambiguous: ['B', 'A'], tokens: 8, meta },
    { type: 'summary', id: 'q1sum2', question: 'q1', text: 'B, it settles on C.', answer: null, disagreement: ['B', 'C'], tokens: 5 },
    { type: 'external', id: 'q1ext', question: 'q1', text: 'Shown: A or B.', answer: null, ambiguous: ['A', null], tokens: 4, meta },
    { ...response('q1s1', 'q1', 'a1', 2, 'B', 6, ['q1a1', 'q1sum'], 'q1a1'), inTokens: 23, meta },
    { ...response('q1amb', 'q1', 'a2', 1, null, 6), sample: 1, ambiguous: ['A', null] },
    { ...response('q1dis', 'q1', 'a2', 1, null, 6), sample: 2, disagreement: ['B', 'C'], turn: 1 },
  ];
}

/** Two problems of DyLAN's algebra file (23 and 94), imported as `cache import` does: turns on every response, disagreements. */
function dylanRecords(): CacheLine[] {
  const all = JSON.parse(readFileSync(dylanMathFile('algebra_1_248_4_3'), 'utf8')) as Record<string, unknown>;
  const keys = Object.keys(all);
  const file = join(temp(), 'algebra_1_248_4_3.json');
  writeFileSync(file, JSON.stringify(Object.fromEntries([keys[22], keys[93]].map((k) => [k, all[k]]))));
  return importDu([file], mathImport).records;
}

/** cache.jsonl -> cache.columns -> Parquet -> cache.jsonl: the cache loaded from the last, and the one loaded from the columns. */
async function roundTrip(records: CacheLine[]): Promise<{ start: Cache; columns: Cache; back: Cache }> {
  const dir = temp();
  const start = writeCacheRecords(dir, records);
  writeColumns(dir, start, sourceState(cacheFilePath(dir)));
  const columns = loadCache(dir, (w) => expect.fail(w));
  expect(Object.getOwnPropertyDescriptor(columns.responses[0], 'text'), 'loaded from cache.columns').toBeUndefined();
  const table = join(temp(), 'cache.parquet');
  await exportParquetJob(dir, table);
  const out = join(temp(), 'back');
  await importParquetJob({ file: table, out });
  return { start, columns, back: loadCache(out) };
}

/** Records by type and id (header first), as plain JSON: the order of cacheRecords and key order aside. */
const byId = (records: CacheLine[]) =>
  records
    .map((r) => [`${r.type}:${'id' in r ? r.id : ''}`, JSON.parse(JSON.stringify(r, Object.keys(r).sort()))] as const)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));

describe('every form of a cache carries every field of the cache format', () => {
  const fixtures = { hand: handWithEveryField(), dylan: dylanRecords() };

  it('the fixtures hold every field of every record type of the schema, and a DyLAN response with its turn and disagreement', () => {
    const held = new Set([...fixtures.hand, ...fixtures.dylan].flatMap((r) => Object.keys(r).map((k) => `${r.type}.${k}`)));
    const schema = CacheLine.options.flatMap((o) => Object.keys(o.shape).map((k) => `${o.shape.type.value}.${k}`));
    expect(schema.filter((f) => !held.has(f))).toEqual([]);
    expect(fixtures.dylan.some((r) => r.type === 'response' && r.turn !== undefined && r.disagreement !== undefined)).toBe(true);
    expect(fixtures.dylan.some((r) => r.type === 'external' && r.disagreement !== undefined)).toBe(true);
    // One Parquet column per field name of the schema, none other.
    expect([...PARQUET_COLUMNS.keys()].sort()).toEqual([...new Set(schema.map((f) => f.split('.')[1]))].sort());
  });

  it.each(Object.keys(fixtures) as (keyof typeof fixtures)[])(
    '%s: cache.jsonl -> columns -> Parquet -> cache.jsonl gives back every record, field for field',
    async (name) => {
      const records = fixtures[name];
      const { start, columns, back } = await roundTrip(records);
      expect(byId(cacheRecords(start))).toEqual(byId(records));
      expect(byId(cacheRecords(columns))).toEqual(byId(records));
      expect(byId(cacheRecords(back))).toEqual(byId(records));
    },
    60_000,
  );

  it('a re-imported DyLAN cache keeps the recorded protocol: every response its turn, and --protocol recorded is taken', async () => {
    const { back } = await roundTrip(fixtures.dylan);
    expect(back.responses.length).toBeGreaterThan(0);
    expect(unrecordedTurn(back)).toBeUndefined();
    expect(() => checkProtocol(back, DebateSettings.parse({ protocol: 'recorded' }))).not.toThrow();
    expect(cacheFromRecords(fixtures.dylan).responses.map((r) => [r.id, r.turn])).toEqual(back.responses.map((r) => [r.id, r.turn]));
  }, 300_000);
});

describe('the cache format page', () => {
  it('names every field of every record type in its table', () => {
    const page = readFileSync(join(import.meta.dirname, '../../docs/cache-format.md'), 'utf8');
    const named = new Map<string, Set<string>>();
    let record = '';
    for (const line of page.split('\n')) {
      const cells = /^\|([^|]*)\|([^|]*)\|/.exec(line);
      if (!cells) continue;
      record = /`(\w+)`|\bany\b/.exec(cells[1])?.[1] ?? (cells[1].includes('any') ? 'any' : record);
      for (const [, field] of cells[2].matchAll(/`(\w+)`/g)) named.set(record, (named.get(record) ?? new Set()).add(field));
    }
    const missing = CacheLine.options.flatMap((o) =>
      Object.keys(o.shape)
        .filter((f) => f !== 'type' && !named.get(o.shape.type.value)?.has(f) && !named.get('any')?.has(f))
        .map((f) => `${o.shape.type.value}.${f}`),
    );
    expect(missing).toEqual([]);
  });
});
