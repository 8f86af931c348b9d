// The columnar form of a cache (src/cache/columns.ts): loaded from it, a cache is the one parsed
// from cache.jsonl, field for field; a stale or damaged columns file is never used but rebuilt, and
// said: a change of any byte of it (head, sections, padding, its SHA-256) or of any field of its
// head, and an in-place edit of cache.jsonl's first or last block that keeps its size, mtime and
// inode. The hand-built cache plus a summary, a response shown it, an ambiguous read, a
// disagreement, a turn and meta.
import { createHash } from 'node:crypto';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { COLUMNS_MIN_BYTES, columnsHead, columnsPath, readColumns, sourceState, writeColumns } from '../../src/cache/columns.ts';
import { DIGEST_BYTES, type Head } from '../../src/cache/columnsLayout.ts';
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
    const { head, base } = columnsHead(good);
    const headLength = good.readUInt32LE(8);
    const regions: [string, number, number][] = [
      ['magic', 0, 8],
      ['head length', 8, 12],
      ['head', 12, 12 + headLength],
      ['head padding', 12 + headLength, base],
      ...Object.entries(head.sections).map(([name, s]): [string, number, number] => [`section ${name}`, base + s.offset, base + s.offset + s.bytes]),
      ['SHA-256', good.length - DIGEST_BYTES, good.length],
    ];
    // One change in the middle of each region, and one same-length change of each field of the head (the goldKey of a question among them).
    const changes: [string, Buffer][] = regions
      .filter(([, from, to]) => to > from)
      .map(([name, from, to]) => {
        const bytes = Buffer.from(good);
        bytes[(from + to) >> 1] ^= 0x01;
        return [name, bytes];
      });
    for (const key of Object.keys(head)) changes.push([`head field ${key}`, changedField(good, key)]);
    const goldKey = Buffer.from(good.toString('latin1').replace('"goldKey":0', '"goldKey":1'), 'latin1');
    changes.push(["a question's goldKey", goldKey]);
    const silent: string[] = [];
    for (const [name, bytes] of changes) {
      writeFileSync(file, bytes);
      const warnings: string[] = [];
      const loaded = loadCache(dir, (w) => warnings.push(w));
      const said = warnings.length === 1 && warnings[0].startsWith(`${file}: damaged: `) && warnings[0].endsWith(`rebuilt from ${cacheFilePath(dir)}`);
      if (!said || !readFileSync(file).equals(good) || contents(loaded) !== contents(jsonl)) silent.push(name);
    }
    expect(changes.length).toBeGreaterThan(25);
    expect(silent).toEqual([]);
  });

  it("is rebuilt after an in-place edit of cache.jsonl's first or last block that keeps its size, mtime and inode", () => {
    for (const where of ['first', 'last'] as const) {
      const { dir } = withColumns();
      const jsonl = cacheFilePath(dir);
      const built = sourceState(jsonl);
      const bytes = readFileSync(jsonl);
      const at = where === 'first' ? bytes.indexOf('"hand"') + 1 : bytes.lastIndexOf('says');
      const fd = openSync(jsonl, 'r+');
      writeSync(fd, where === 'first' ? 'H' : 'S', at);
      closeSync(fd);
      // The columns as built before the edit by a clock that the edit's tool then reset: the stat they record is the edited file's.
      const edited = sourceState(jsonl);
      expect(edited.size).toBe(built.size);
      writeFileSync(
        columnsPath(dir),
        withHead(readFileSync(columnsPath(dir)), (h) => ({ ...h, source: { ...edited, ends: built.ends } })),
      );
      const warnings: string[] = [];
      const loaded = loadCache(dir, (w) => warnings.push(w));
      expect(warnings).toEqual([`${columnsPath(dir)}: cache.jsonl changed since it was built; rebuilt from ${jsonl}`]);
      expect(where === 'first' ? loaded.header.name : loaded.responses.at(-1)!.text).toMatch(where === 'first' ? /^Hand$/ : /Says/);
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

/** A sound columns file (its SHA-256 recomputed) whose head is `edit(head)`. */
function withHead(good: Buffer, edit: (head: Head) => Head): Buffer {
  const { head, base } = columnsHead(good);
  const json = Buffer.from(JSON.stringify(edit(head)));
  const prefix = Buffer.alloc(12);
  prefix.write('CPPCOLS2', 0, 'latin1');
  prefix.writeUInt32LE(json.length, 8);
  const body = Buffer.concat([prefix, json, Buffer.alloc((8 - ((12 + json.length) % 8)) % 8), good.subarray(base, good.length - DIGEST_BYTES)]);
  return Buffer.concat([body, createHash('sha256').update(body).digest()]);
}

/** The columns file with one character of the head's field `key` changed, the length kept: a digit or letter of its value (else its first character). */
function changedField(good: Buffer, key: string): Buffer {
  const { head } = columnsHead(good);
  let at = 12 + 1; // after '{'
  for (const [k, v] of Object.entries(head)) {
    const name = `${JSON.stringify(k)}:`;
    const value = JSON.stringify(v);
    if (k === key) {
      const i = value.search(/[0-9A-Za-z]/);
      const pos = at + name.length + Math.max(0, i);
      const bytes = Buffer.from(good);
      const c = String.fromCharCode(bytes[pos]);
      bytes[pos] = (/[0-9]/.test(c) ? String((Number(c) + 1) % 10) : /[a-z]/.test(c) ? c.toUpperCase() : /[A-Z]/.test(c) ? c.toLowerCase() : ' ').charCodeAt(0);
      return bytes;
    }
    at += name.length + value.length + 1;
  }
  throw new Error(`no head field ${key}`);
}

describe('a large cache', () => {
  it('gets its columns when written (from the parse that checks it) and when loaded without them', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cpp-columns-'));
    const long = 'x'.repeat(COLUMNS_MIN_BYTES);
    const big = records().map((r) => (r.type === 'response' && r.id === 'q1s1' ? { ...r, text: `${long} The answer is B.` } : r));
    const written = writeCacheRecords(dir, big);
    const warnings: string[] = [];
    const loaded = loadCache(dir, (w) => warnings.push(w));
    expect(fromColumns(loaded)).toBe(true);
    expect(contents(loaded)).toEqual(contents(written));
    rmSync(columnsPath(dir));
    expect(fromColumns(loadCache(dir, (w) => warnings.push(w)))).toBe(false);
    expect(fromColumns(loadCache(dir, (w) => warnings.push(w)))).toBe(true);
    expect(warnings).toEqual([]);
  });
});
