// The columnar form of a cache (src/cache/columns.ts): loaded from it, a cache is the one parsed
// from cache.jsonl, field for field; a stale or damaged columns file is never used but rebuilt, and
// said: a change of any byte of it (head, sections, padding, its SHA-256) or of any field of its
// head, and an in-place edit of cache.jsonl's first or last block that keeps its size, mtime and
// inode. The hand-built cache plus a summary, a response shown it, an ambiguous read, a
// disagreement, a turn and meta.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { COLUMNS_MIN_BYTES, columnsPath, readColumns, sourceState, writeColumns } from '../../src/cache/columns.ts';
import { columnsDamages, DAMAGES, editInPlace, withHead } from '../../reliability/corpus/columns.ts';
import type { CacheLine } from '../../src/cache/format.ts';
import { cacheFilePath, loadCache, parseCache } from '../../src/cache/load.ts';
import type { Cache } from '../../src/cache/types.ts';
import { cacheRecords, writeCacheRecords } from '../../src/cache/write.ts';
import { fileLines } from '../../src/io/textFile.ts';
import { handRecords, response } from '../fixtures/handCache.ts';

const records = (): CacheLine[] => [
  ...handRecords(),
  { type: 'summary', id: 'q1sum', question: 'q1', text: 'Two agents answered B.', of: ['q1a2'], answer: 'B', tokens: 8 },
  { ...response('q1s1', 'q1', 'a1', 2, 'B', 6, ['q1a1', 'q1sum'], 'q1a1'), inTokens: 23, meta: { quality: 0.5, note: 'é' } },
  { ...response('q1amb', 'q1', 'a2', 1, null, 6), sample: 1, ambiguous: ['A', null] },
  // The two readings' disagreement and the recorded protocol's speaking position.
  { ...response('q1dis', 'q1', 'a2', 1, null, 6), sample: 2, disagreement: ['B', 'C'], turn: 1 },
];

function withColumns(): { dir: string; jsonl: Cache } {
  const dir = mkdtempSync(join(tmpdir(), 'cpp-columns-'));
  const jsonl = writeCacheRecords(dir, records());
  writeColumns(dir, jsonl, sourceState(cacheFilePath(dir)));
  return { dir, jsonl };
}

/** What a loaded cache holds: its records and every index the environment reads. */
const contents = (c: Cache) =>
  JSON.stringify({
    records: cacheRecords(c),
    responses: c.responses.map((r) => [r.index, r.q, r.a, r.ans, r.correct, r.ctx, r.ext, r.prevIndex, r.id, r.text, r.meta, r.context, r.prev]),
    questions: c.questions,
    externals: c.externals,
    answerKeys: c.answerKeys,
    mathKeys: [...c.mathKeys].map(([q, m]) => [q, [...m]]),
    responseIndex: [...c.responseIndex],
    indexes: [c.agentIndex, c.questionIndex, c.externalIndex, c.answerIndex].map((m) => [...m]),
    symbolic: c.symbolic,
  });

const fromColumns = (c: Cache) => Object.getOwnPropertyDescriptor(c.responses[0], 'text') === undefined;

describe('the columnar form of a cache', () => {
  it('loads the cache parsed from cache.jsonl, field for field, reading texts from the file', () => {
    const { dir, jsonl } = withColumns();
    const warnings: string[] = [];
    const loaded = loadCache(dir, (w) => warnings.push(w));
    expect(fromColumns(loaded)).toBe(true);
    expect(fromColumns(jsonl)).toBe(false);
    expect(contents(loaded)).toEqual(contents(jsonl));
    const amb = loaded.responses[loaded.responseIndex.get('q1amb')!];
    expect([amb.answer, amb.ambiguous, amb.ans]).toEqual([null, ['A', null], -1]);
    const dis = loaded.responses[loaded.responseIndex.get('q1dis')!];
    expect([dis.answer, dis.disagreement, dis.turn]).toEqual([null, ['B', 'C'], 1]);
    expect(warnings).toEqual([]);
  });

  it('is rebuilt, and said, when cache.jsonl changed since it was built', () => {
    const { dir } = withColumns();
    const edited = records().map((r) => (r.type === 'response' && r.id === 'q1s1' ? { ...r, text: 'edited text, answer B' } : r));
    writeCacheRecords(dir, edited);
    const warnings: string[] = [];
    const loaded = loadCache(dir, (w) => warnings.push(w));
    expect(loaded.responses[loaded.responseIndex.get('q1s1')!].text).toBe('edited text, answer B');
    expect(warnings).toEqual([`${columnsPath(dir)}: cache.jsonl changed since it was built; rebuilt from ${cacheFilePath(dir)}`]);
    const again = loadCache(dir, (w) => warnings.push(w));
    expect(fromColumns(again)).toBe(true);
    expect(again.responses[again.responseIndex.get('q1s1')!].text).toBe('edited text, answer B');
    expect(warnings).toHaveLength(1);
  });

  it('is refused when damaged (a flipped byte of a column, a cut file) or built by a reader that read an answer otherwise', () => {
    const { dir, jsonl } = withColumns();
    const file = columnsPath(dir);
    const good = readFileSync(file);
    const at = good.lastIndexOf(Buffer.from('"note"')); // in the meta column
    const flipped = Buffer.from(good);
    flipped[at] ^= 1;
    expect(refusal(dir, flipped)).toEqual({ damaged: 'its content does not match its SHA-256' });
    expect(refusal(dir, good.subarray(0, good.length - 8))).toEqual({ damaged: 'its content does not match its SHA-256' });
    // A sound file (its SHA-256 matches) built by a reader that normalized 'B' otherwise (its head says 'b'): stale.
    const otherReader = withHead(good, (h) => ({ ...h, readings: h.readings.map(([t, raw, n]) => [t, raw, raw === 'B' ? 'b' : n]) }));
    expect(refusal(dir, otherReader)).toEqual({
      stale: `answers are read otherwise since it was built (the mcq answer 'B' now reads as "B", not "b")`,
    });
    expect(refusal(dir, Buffer.concat([Buffer.from('CPPCOLS1'), good.subarray(8)]))).toEqual({
      stale: 'an older layout, whose head its SHA-256 did not cover',
    });
    writeFileSync(file, flipped);
    const warnings: string[] = [];
    expect(contents(loadCache(dir, (w) => warnings.push(w)))).toEqual(contents(jsonl));
    expect(warnings).toEqual([`${file}: damaged: its content does not match its SHA-256; rebuilt from ${cacheFilePath(dir)}`]);
    expect(readFileSync(file).equals(good)).toBe(true);
  });

  it('is never used with any one byte changed, head and sections alike: each is named', () => {
    const { dir } = withColumns();
    const good = readFileSync(columnsPath(dir));
    const used: number[] = [];
    // Every 7th byte: every offset modulo the 8-byte alignment, in every region, at a seventh of the time.
    for (let i = 0; i < good.length; i += 7) {
      const bytes = Buffer.from(good);
      bytes[i] ^= 0x01;
      const refused = refusal(dir, bytes);
      if (!refused || !('damaged' in refused)) used.push(i);
    }
    expect(used).toEqual([]);
    expect(good.length).toBeGreaterThan(1000);
  });

  it('is rebuilt, and said, after a change of any region (magic, length, head, padding, each section, SHA-256) or any field of its head', () => {
    const { dir, jsonl } = withColumns();
    const file = columnsPath(dir);
    const good = readFileSync(file);
    const changes = columnsDamages(good);
    expect([...changes.keys()]).toEqual(DAMAGES); // the reliability corpus's cases: every region, every head field
    const silent: string[] = [];
    for (const [name, bytes] of changes) {
      writeFileSync(file, bytes);
      const warnings: string[] = [];
      const loaded = loadCache(dir, (w) => warnings.push(w));
      const said = warnings.length === 1 && warnings[0].startsWith(`${file}: damaged: `) && warnings[0].endsWith(`rebuilt from ${cacheFilePath(dir)}`);
      if (!said || !readFileSync(file).equals(good) || contents(loaded) !== contents(jsonl)) silent.push(name);
    }
    expect(silent).toEqual([]);
  });

  it("is rebuilt after an in-place edit of cache.jsonl's first or last block that keeps its size, mtime and inode", () => {
    for (const end of ['first', 'last'] as const) {
      const { dir } = withColumns();
      const jsonl = cacheFilePath(dir);
      const good = readFileSync(columnsPath(dir));
      // The columns as built before the edit, the stat they record the edited file's (a tool that resets the mtime).
      writeFileSync(
        columnsPath(dir),
        withHead(good, (h) => ({ ...h, source: editInPlace(jsonl, end) })),
      );
      const warnings: string[] = [];
      const loaded = loadCache(dir, (w) => warnings.push(w));
      expect(warnings).toEqual([`${columnsPath(dir)}: cache.jsonl changed since it was built; rebuilt from ${jsonl}`]);
      expect(end === 'first' ? loaded.header.name : loaded.responses.at(-1)!.text).toMatch(end === 'first' ? /^Hand$/ : /^A2 says/);
    }
  });

  it('is not made for a small cache.jsonl, where parsing is as quick', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cpp-columns-'));
    const written = writeCacheRecords(dir, records());
    loadCache(dir);
    expect(readColumns(dir, sourceState(cacheFilePath(dir)), cacheFilePath(dir))).toBeUndefined();
    const parsed = parseCache(fileLines(cacheFilePath(dir)), cacheFilePath(dir));
    expect(parsed.problems).toEqual([]);
    expect(contents(parsed.cache!)).toEqual(contents(written));
  });
});

/** Write `bytes` as the columns file of `dir` and read it: why it is refused (undefined: no file; a cache: used). */
function refusal(dir: string, bytes: Buffer) {
  writeFileSync(columnsPath(dir), bytes);
  const read = readColumns(dir, sourceState(cacheFilePath(dir)), cacheFilePath(dir));
  return read && 'refused' in read ? read.refused : read && 'cache' in read ? undefined : read;
}

describe('a large cache', () => {
  it('gets its columns when written (from the parse that checks it) and when loaded without them (served from the columns that load built)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cpp-columns-'));
    const long = 'x'.repeat(COLUMNS_MIN_BYTES);
    const big = records().map((r) => (r.type === 'response' && r.id === 'q1s1' ? { ...r, text: `${long} The answer is B.` } : r));
    const written = writeCacheRecords(dir, big);
    const warnings: string[] = [];
    const loaded = loadCache(dir, (w) => warnings.push(w));
    expect(fromColumns(loaded)).toBe(true);
    expect(contents(loaded)).toEqual(contents(written));
    rmSync(columnsPath(dir));
    const rebuilt = loadCache(dir, (w) => warnings.push(w));
    expect(fromColumns(rebuilt)).toBe(true);
    expect(contents(rebuilt)).toEqual(contents(written));
    expect(fromColumns(loadCache(dir, (w) => warnings.push(w)))).toBe(true);
    expect(warnings).toEqual([]);
  });
});
