// The columnar form of a cache, `<cache>/cache.columns`: derived from cache.jsonl (which stays the
// interchange and the record; the journal is applied on top as ever) so that a large cache loads
// without parsing JSON or reading answers again. Numbers are typed-array columns; texts, ids and
// meta stay on disk and are read when asked for (the environment never reads them), so a loaded
// response costs a small object instead of its parsed record.
//
// Layout: 8 bytes of magic, a uint32 (little-endian) length, a JSON head (the source's stat, the
// distinct stored answers with their normalized forms, the sections' places and sha256, and the small records: header,
// agents, questions, externals, interned answers), then the sections, each 8-byte aligned.
// A columns file is used only when cache.jsonl has the size, mtime and inode it was built from and
// today's answer reader normalizes every distinct stored answer as the one that built it did (the
// answers are stored interned); its sections are checked against their sha256 on every load. Anything else: it is rebuilt from cache.jsonl (loadCache) and that is said.
import { createHash } from 'node:crypto';
import { closeSync, existsSync, fstatSync, openSync, readSync, type Stats } from 'node:fs';
import { join } from 'node:path';
import type { HeaderRecord, ResponseRecord } from './format.ts';
import { normalizeAnswer, type AnswerType, type SymbolicCounts } from '../answer.ts';
import type { Agent, Cache, External, Question, Response } from './types.ts';
import { writeFileAtomic } from '../io/atomic.ts';

export const COLUMNS_FILE = 'cache.columns';
/** cache.jsonl from this size on gets a columns file when it is loaded: below it, parsing is as quick as reading columns. */
export const COLUMNS_MIN_BYTES = 4 << 20;
const MAGIC = 'CPPCOLS1';
const VERSION = 2; // 2: the recorded protocol's `turn` and the two readings' `disagreement`

const INT_COLUMNS = ['q', 'a', 'round', 'sample', 'ans', 'prevIndex', 'answer', 'ambiguous', 'disagreement', 'turn', 'ctxStart', 'ctxRefs'] as const;
const NUMBER_COLUMNS = ['inTokens', 'outTokens'] as const;
const LAZY_COLUMNS = ['id', 'text', 'meta'] as const;
type Lazy = (typeof LAZY_COLUMNS)[number];

interface Section {
  offset: number;
  bytes: number;
}
interface Head {
  version: number;
  source: { size: number; mtimeMs: number; ino: number };
  /** Distinct stored answers, their type and normalized form: the answers are stored interned, so a reader that normalizes one otherwise makes the file stale. */
  readings: [AnswerType, string, string | null][];
  sha256: string;
  responses: number;
  sections: Record<string, Section>;
  header: HeaderRecord;
  agents: Agent[];
  questions: Question[];
  externals: External[];
  answerKeys: string[];
  mathKeys: [number, [string, number][]][];
  symbolic: SymbolicCounts;
  /** Distinct stored answers, ambiguous readings and disagreeing readings, referred to by the `answer`, `ambiguous` and `disagreement` columns. */
  answers: string[];
  ambiguous: (string | null)[][];
  disagreements: [string, string | null][];
}

export const columnsPath = (dir: string) => join(dir, COLUMNS_FILE);

/** The stat of cache.jsonl a columns file records: a write (always a rename into place) changes its inode and mtime. */
export const sourceOf = (s: Stats) => ({ size: s.size, mtimeMs: s.mtimeMs, ino: s.ino });
export const sameSource = (a: Head['source'], b: Head['source']) => a.size === b.size && a.mtimeMs === b.mtimeMs && a.ino === b.ino;

/** Every distinct stored answer (golds, responses', external and summary entries') with its type and its normalized form when written. */
function readingsOf(cache: Cache): [AnswerType, string, string | null][] {
  const seen = new Map<string, [AnswerType, string, string | null]>();
  const add = (type: AnswerType, raw: string | null) => {
    const key = `${type}\0${raw}`;
    if (raw !== null && !seen.has(key)) seen.set(key, [type, raw, normalizeAnswer(raw, type)]);
  };
  for (const q of cache.questions) add(q.answerType, q.gold);
  for (const r of cache.responses) add(cache.questions[r.q].answerType, r.answer);
  for (const e of cache.externals) add(cache.questions[e.q].answerType, e.answer);
  return [...seen.values()];
}

/** The first stored answer that today's reader normalizes otherwise than the one that built the columns, if any. */
function readDifferently(head: Head): string | undefined {
  for (const [type, raw, normalized] of head.readings) {
    const now = normalizeAnswer(raw, type);
    if (now !== normalized) return `the ${type} answer '${raw}' now reads as ${JSON.stringify(now)}, not ${JSON.stringify(normalized)}`;
  }
  return undefined;
}

const pad8 = (n: number) => (8 - (n % 8)) % 8;

/** Write the columns of `cache` (as parsed from cache.jsonl with stat `source`, before any journal), atomically. */
export function writeColumns(dir: string, cache: Cache, source: Stats): void {
  const n = cache.responses.length;
  const ints = Object.fromEntries(INT_COLUMNS.map((c) => [c, new Int32Array(c === 'ctxStart' ? n + 1 : c === 'ctxRefs' ? 0 : n)])) as Record<
    (typeof INT_COLUMNS)[number],
    Int32Array
  >;
  const nums = Object.fromEntries(NUMBER_COLUMNS.map((c) => [c, new Float64Array(n)])) as Record<(typeof NUMBER_COLUMNS)[number], Float64Array>;
  const answers = new Map<string, number>();
  const ambiguous = new Map<string, number>();
  const disagreements = new Map<string, number>();
  const refs: number[] = [];
  const lazy = Object.fromEntries(LAZY_COLUMNS.map((c) => [c, { offsets: new Float64Array(n + 1), chunks: [] as Buffer[], bytes: 0 }]));
  const intern = (map: Map<string, number>, key: string) => map.get(key) ?? (map.set(key, map.size), map.size - 1);
  for (const [i, r] of cache.responses.entries()) {
    ints.q[i] = r.q;
    ints.a[i] = r.a;
    ints.round[i] = r.round;
    ints.sample[i] = r.sample;
    ints.ans[i] = r.ans;
    ints.prevIndex[i] = r.prevIndex;
    ints.answer[i] = r.answer === null ? -1 : intern(answers, r.answer);
    ints.ambiguous[i] = r.ambiguous ? intern(ambiguous, JSON.stringify(r.ambiguous)) : -1;
    ints.disagreement[i] = r.disagreement ? intern(disagreements, JSON.stringify(r.disagreement)) : -1;
    ints.turn[i] = r.turn ?? -1;
    nums.inTokens[i] = r.inTokens;
    nums.outTokens[i] = r.outTokens;
    // Context in record order: a response as its index, an external or summary entry as -(index + 1).
    ints.ctxStart[i] = refs.length;
    for (const id of r.context) {
      const c = cache.responseIndex.get(id);
      refs.push(c ?? -(cache.externalIndex.get(id)! + 1));
    }
    for (const c of LAZY_COLUMNS) {
      const value = c === 'meta' ? (r.meta === undefined ? '' : JSON.stringify(r.meta)) : r[c];
      const bytes = Buffer.from(value, 'utf8');
      const col = lazy[c];
      col.chunks.push(bytes);
      col.bytes += bytes.length;
      col.offsets[i + 1] = col.bytes;
    }
  }
  ints.ctxStart[n] = refs.length;
  ints.ctxRefs = Int32Array.from(refs);
  const sections: [string, Uint8Array[]][] = [
    ...INT_COLUMNS.map((c): [string, Uint8Array[]] => [c, [new Uint8Array(ints[c].buffer)]]),
    ...NUMBER_COLUMNS.map((c): [string, Uint8Array[]] => [c, [new Uint8Array(nums[c].buffer)]]),
    ...LAZY_COLUMNS.flatMap((c): [string, Uint8Array[]][] => [
      [`${c}Offsets`, [new Uint8Array(lazy[c].offsets.buffer)]],
      [c, lazy[c].chunks],
    ]),
  ];
  const places: Record<string, Section> = {};
  const hash = createHash('sha256');
  const body: Uint8Array[] = [];
  let offset = 0;
  for (const [name, chunks] of sections) {
    const bytes = chunks.reduce((s, b) => s + b.length, 0);
    places[name] = { offset, bytes };
    const padding = new Uint8Array(pad8(bytes));
    for (const b of [...chunks, padding]) {
      hash.update(b);
      body.push(b);
    }
    offset += bytes + padding.length;
  }
  const head: Head = {
    version: VERSION,
    source: sourceOf(source),
    readings: readingsOf(cache),
    sha256: hash.digest('hex'),
    responses: n,
    sections: places,
    header: cache.header,
    agents: cache.agents,
    questions: cache.questions,
    externals: cache.externals,
    answerKeys: cache.answerKeys,
    mathKeys: [...cache.mathKeys].map(([q, m]) => [q, [...m]]),
    symbolic: cache.symbolic,
    answers: [...answers.keys()],
    ambiguous: [...ambiguous.keys()].map((s) => JSON.parse(s)),
    disagreements: [...disagreements.keys()].map((s) => JSON.parse(s)),
  };
  const headBytes = Buffer.from(JSON.stringify(head), 'utf8');
  const prefix = Buffer.alloc(12);
  prefix.write(MAGIC, 0, 'latin1');
  prefix.writeUInt32LE(headBytes.length, 8);
  writeFileAtomic(columnsPath(dir), [prefix, headBytes, new Uint8Array(pad8(12 + headBytes.length)), ...body]);
}

/** Why a columns file is not used (it is then rebuilt): stale, or damaged. */
export type ColumnsRefusal = { stale: string } | { damaged: string };

/**
 * The cache from `<dir>/cache.columns` when it is there, matches cache.jsonl (stat `source`) and
 * today's answer reader, and its sections check against their sha256; otherwise why not (undefined:
 * no columns file). The file stays open while the cache lives: texts, ids and meta are read from it.
 */
export function readColumns(dir: string, source: Stats, file: string): { cache: Cache } | { refused: ColumnsRefusal } | undefined {
  const path = columnsPath(dir);
  if (!existsSync(path)) return undefined;
  const fd = openSync(path, 'r');
  const refused = (why: ColumnsRefusal) => {
    closeSync(fd);
    return { refused: why };
  };
  try {
    const read = readHead(fd);
    if ('damaged' in read) return refused(read);
    const { head, base } = read;
    if (!sameSource(head.source, sourceOf(source))) return refused({ stale: 'cache.jsonl changed since it was built' });
    const reread = readDifferently(head);
    if (reread) return refused({ stale: `answers are read otherwise since it was built (${reread})` });
    const size = fstatSync(fd).size;
    const end = Math.max(...Object.values(head.sections).map((s) => base + s.offset + s.bytes + pad8(s.bytes)));
    if (end !== size) return refused({ damaged: `${size} bytes where its sections end at ${end}` });
    if (sectionsHash(fd, base, size) !== head.sha256) return refused({ damaged: 'its sections do not match their sha256' });
    // The file stays open while the cache lives: its lazy columns are read from it.
    return { cache: buildCache(fd, head, base, file) };
  } catch (e) {
    return refused({ damaged: (e as Error).message });
  }
}

function readHead(fd: number): { head: Head; base: number } | { damaged: string } {
  const prefix = Buffer.alloc(12);
  if (readSync(fd, prefix, 0, 12, 0) !== 12 || prefix.toString('latin1', 0, 8) !== MAGIC) return { damaged: 'not a columns file (no magic)' };
  const start = Buffer.alloc(12 + prefix.readUInt32LE(8));
  if (readSync(fd, start, 0, start.length, 0) !== start.length) return { damaged: 'cut short in its head' };
  const { head, base } = columnsHead(start);
  if (head.version !== VERSION) return { damaged: `version ${head.version}, this workbench reads ${VERSION}` };
  return { head, base };
}

/** The head of a columns file whose first bytes are `start` (at least its prefix and head), and where its sections begin. */
export function columnsHead(start: Buffer): { head: Head; base: number } {
  const length = start.readUInt32LE(8);
  return { head: JSON.parse(start.toString('utf8', 12, 12 + length)) as Head, base: 12 + length + pad8(12 + length) };
}

function sectionsHash(fd: number, from: number, to: number): string {
  const hash = createHash('sha256');
  const buffer = Buffer.alloc(8 << 20);
  for (let at = from; at < to; ) {
    const got = readSync(fd, buffer, 0, Math.min(buffer.length, to - at), at);
    if (got === 0) break;
    hash.update(buffer.subarray(0, got));
    at += got;
  }
  return hash.digest('hex');
}

function readSection(fd: number, base: number, s: Section): ArrayBuffer {
  const out = new ArrayBuffer(s.bytes);
  if (s.bytes) readSync(fd, new Uint8Array(out), 0, s.bytes, base + s.offset);
  return out;
}

const NONE: readonly number[] = Object.freeze([]);

/** A loaded cache holds its columns file open; once nothing holds the cache (a warm process moved on to another), the file is closed. */
const closeWhenGone = new FinalizationRegistry<number>((fd) => closeSync(fd));

function buildCache(fd: number, head: Head, base: number, file: string): Cache {
  const int = (name: string) => new Int32Array(readSection(fd, base, head.sections[name]));
  const num = (name: string) => new Float64Array(readSection(fd, base, head.sections[name]));
  const c = Object.fromEntries(INT_COLUMNS.map((name) => [name, int(name)])) as Record<(typeof INT_COLUMNS)[number], Int32Array>;
  const inTokens = num('inTokens');
  const outTokens = num('outTokens');
  const offsets = Object.fromEntries(LAZY_COLUMNS.map((name) => [name, num(`${name}Offsets`)])) as Record<Lazy, Float64Array>;
  const store: Store = { fd, base, head, offsets, ids: undefined, responses: [] };
  closeWhenGone.register(store, fd);
  const questions = head.questions;
  const responses = store.responses;
  for (let i = 0; i < head.responses; i++) {
    let ctx: number[] = NONE as number[];
    let ext: number[] = NONE as number[];
    const from = c.ctxStart[i];
    const to = c.ctxStart[i + 1];
    if (to > from) {
      ctx = [];
      for (let j = from; j < to; j++) {
        const ref = c.ctxRefs[j];
        if (ref >= 0) ctx.push(ref);
        else (ext === NONE ? (ext = []) : ext).push(-ref - 1);
      }
    }
    const q = c.q[i];
    const ans = c.ans[i];
    responses.push(
      new ColumnResponse(
        store,
        i,
        q,
        c.a[i],
        ans,
        ans === questions[q].goldKey,
        ctx,
        ext,
        c.prevIndex[i],
        c.round[i],
        c.sample[i],
        inTokens[i],
        outTokens[i],
        c.answer[i],
        c.ambiguous[i],
        c.disagreement[i],
        c.turn[i],
        c.ctxStart[i],
      ),
    );
  }
  store.ctxRefs = c.ctxRefs;
  const cache: Cache = {
    file,
    header: head.header,
    agents: head.agents,
    questions,
    responses,
    externals: head.externals,
    agentIndex: new Map(head.agents.map((a) => [a.id, a.index])),
    questionIndex: new Map(questions.map((q) => [q.id, q.index])),
    responseIndex: undefined as unknown as Map<string, number>, // built when first asked for, below
    externalIndex: new Map(head.externals.map((e) => [e.id, e.index])),
    answerKeys: head.answerKeys,
    answerIndex: new Map(head.answerKeys.map((k, i) => [k, i])),
    mathKeys: new Map(head.mathKeys.map(([q, m]) => [q, new Map(m)])),
    symbolic: head.symbolic,
  };
  // Ids of all responses are decoded only when an id is looked up (the record tier, a fitted endpoint).
  let index: Map<string, number> | undefined;
  Object.defineProperty(cache, 'responseIndex', {
    enumerable: true,
    get: () => (index ??= new Map(allIds(store).map((id, i) => [id, i]))),
  });
  return cache;
}

interface Store {
  fd: number;
  base: number;
  head: Head;
  offsets: Record<Lazy, Float64Array>;
  ids: string[] | undefined;
  ctxRefs?: Int32Array;
  responses: ColumnResponse[];
}

function readLazy(store: Store, column: Lazy, i: number): string {
  const o = store.offsets[column];
  const length = o[i + 1] - o[i];
  if (length === 0) return '';
  const bytes = Buffer.allocUnsafe(length);
  readSync(store.fd, bytes, 0, length, store.base + store.head.sections[column].offset + o[i]);
  return bytes.toString('utf8');
}

function allIds(store: Store): string[] {
  if (store.ids) return store.ids;
  const o = store.offsets.id;
  const bytes = Buffer.from(readSection(store.fd, store.base, store.head.sections.id));
  store.ids = Array.from({ length: store.head.responses }, (_, i) => bytes.toString('utf8', o[i], o[i + 1]));
  return store.ids;
}

/** A response loaded from columns: the numbers the environment reads as fields, the rest read from the file when asked for. */
class ColumnResponse implements Response {
  readonly type = 'response' as const;
  constructor(
    private readonly store: Store,
    public index: number,
    public q: number,
    public a: number,
    public ans: number,
    public correct: boolean,
    public ctx: number[],
    public ext: number[],
    public prevIndex: number,
    public round: number,
    public sample: number,
    public inTokens: number,
    public outTokens: number,
    private readonly answerRef: number,
    private readonly ambiguousRef: number,
    private readonly disagreementRef: number,
    private readonly turnValue: number,
    private readonly ctxFrom: number,
  ) {}
  get id(): string {
    return this.store.ids ? this.store.ids[this.index] : readLazy(this.store, 'id', this.index);
  }
  get question(): string {
    return this.store.head.questions[this.q].id;
  }
  get agent(): string {
    return this.store.head.agents[this.a].id;
  }
  get text(): string {
    return readLazy(this.store, 'text', this.index);
  }
  get meta(): ResponseRecord['meta'] {
    const json = readLazy(this.store, 'meta', this.index);
    return json === '' ? undefined : JSON.parse(json);
  }
  get answer(): string | null {
    return this.answerRef < 0 ? null : this.store.head.answers[this.answerRef];
  }
  get ambiguous(): (string | null)[] | undefined {
    return this.ambiguousRef < 0 ? undefined : this.store.head.ambiguous[this.ambiguousRef];
  }
  get disagreement(): [string, string | null] | undefined {
    return this.disagreementRef < 0 ? undefined : this.store.head.disagreements[this.disagreementRef];
  }
  get turn(): number | undefined {
    return this.turnValue < 0 ? undefined : this.turnValue;
  }
  get prev(): string | null {
    return this.prevIndex < 0 ? null : this.store.responses[this.prevIndex].id;
  }
  get context(): string[] {
    const refs = this.store.ctxRefs!;
    const out: string[] = [];
    for (let j = this.ctxFrom; j < this.ctxFrom + this.ctx.length + this.ext.length; j++)
      out.push(refs[j] >= 0 ? this.store.responses[refs[j]].id : this.store.head.externals[-refs[j] - 1].id);
    return out;
  }
}

/**
 * Texts of responses from `from` on (up to `to - 1`, and about `bytes` of them, one at least) of a
 * cache loaded from columns, in one read (a reader of every text, as embedding's keys are, would
 * otherwise read each alone); undefined for any other cache, or a range past the columns
 * (responses a journal added).
 */
export function columnTexts(cache: Cache, from: number, to: number, bytes = 1 << 20): string[] | undefined {
  const first = cache.responses[from];
  if (!(first instanceof ColumnResponse)) return undefined;
  const store = (first as unknown as { store: Store }).store;
  if (to > store.head.responses) return undefined;
  const o = store.offsets.text;
  let end = from + 1;
  while (end < to && o[end + 1] - o[from] <= bytes) end++;
  const read = Buffer.allocUnsafe(o[end] - o[from]);
  readSync(store.fd, read, 0, read.length, store.base + store.head.sections.text.offset + o[from]);
  return Array.from({ length: end - from }, (_, k) => read.toString('utf8', o[from + k] - o[from], o[from + k + 1] - o[from]));
}
