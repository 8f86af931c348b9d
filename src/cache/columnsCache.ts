// A cache served from its columns file (columnsLayout.ts; columns.ts checks the file first): the
// numbers of every response read into typed arrays at once, its text, id and meta read from the
// file when asked for (the environment never reads them), so a loaded response costs a small
// object instead of its parsed record. The file stays open while the cache lives.
import { closeSync, readSync } from 'node:fs';
import { INT_COLUMNS, LAZY_COLUMNS, type Head, type Lazy, type Section } from './columnsLayout.ts';
import type { ResponseRecord } from './format.ts';
import type { Cache, Response } from './types.ts';

function readSection(fd: number, base: number, s: Section): ArrayBuffer {
  const out = new ArrayBuffer(s.bytes);
  if (s.bytes) readSync(fd, new Uint8Array(out), 0, s.bytes, base + s.offset);
  return out;
}

const NONE: readonly number[] = Object.freeze([]);

/** A loaded cache holds its columns file open; once nothing holds the cache (a warm process moved on to another), the file is closed. */
const closeWhenGone = new FinalizationRegistry<number>((fd) => closeSync(fd));

/** Responses built a step. */
const RESPONSES_STEP = 1 << 16;

/** The cache served from the columns file `fd` (checked) as steps (src/io/interrupt.ts): one every RESPONSES_STEP responses. */
export function* buildCache(fd: number, head: Head, base: number, file: string): Generator<unknown, Cache> {
  const int = (name: string) => new Int32Array(readSection(fd, base, head.sections[name]));
  const num = (name: string) => new Float64Array(readSection(fd, base, head.sections[name]));
  const c = Object.fromEntries(INT_COLUMNS.map((name) => [name, int(name)])) as Columns;
  const offsets = Object.fromEntries(LAZY_COLUMNS.map((name) => [name, num(`${name}Offsets`)])) as Record<Lazy, Float64Array>;
  const store: Store = { fd, base, head, offsets, ids: undefined, c, inTokens: num('inTokens'), outTokens: num('outTokens'), responses: [] };
  closeWhenGone.register(store, fd);
  const questions = head.questions;
  const responses = store.responses;
  for (let i = 0; i < head.responses; i++) {
    if (i % RESPONSES_STEP === RESPONSES_STEP - 1) yield;
    responses.push(new ColumnResponse(store, i));
  }
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

type Columns = Record<(typeof INT_COLUMNS)[number], Int32Array>;

interface Store {
  fd: number;
  base: number;
  head: Head;
  offsets: Record<Lazy, Float64Array>;
  ids: string[] | undefined;
  /** The numbers of every response, read at once (a response object holds only its index). */
  c: Columns;
  inTokens: Float64Array;
  outTokens: Float64Array;
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

/**
 * A response loaded from columns: its store and index, every field read from the columns when
 * asked for (numbers from the typed arrays, the rest from the file), so that a loaded response
 * costs about 20 bytes of heap (a cache of 4.6 million responses: 0.1 GB, where objects holding
 * their numbers and context arrays took 1.2 GB).
 */
class ColumnResponse implements Response {
  constructor(
    private readonly store: Store,
    readonly index: number,
  ) {}
  get type(): 'response' {
    return 'response';
  }
  get q(): number {
    return this.store.c.q[this.index];
  }
  get a(): number {
    return this.store.c.a[this.index];
  }
  get ans(): number {
    return this.store.c.ans[this.index];
  }
  get correct(): boolean {
    return this.ans === this.store.head.questions[this.q].goldKey;
  }
  get prevIndex(): number {
    return this.store.c.prevIndex[this.index];
  }
  get round(): number {
    return this.store.c.round[this.index];
  }
  get sample(): number {
    return this.store.c.sample[this.index];
  }
  get inTokens(): number {
    return this.store.inTokens[this.index];
  }
  get outTokens(): number {
    return this.store.outTokens[this.index];
  }
  /** The context's responses, in record order: a new array each time. */
  get ctx(): number[] {
    return this.contextRefs(false);
  }
  /** The context's external entries, in record order: a new array each time. */
  get ext(): number[] {
    return this.contextRefs(true);
  }
  /** The context's refs of one kind: responses (ctxRefs from 0 up), or external entries (below 0: -1 - their index). */
  private contextRefs(external: boolean): number[] {
    const { ctxStart, ctxRefs } = this.store.c;
    let out = NONE as number[];
    for (let j = ctxStart[this.index]; j < ctxStart[this.index + 1]; j++)
      if (ctxRefs[j] < 0 === external) (out === NONE ? (out = []) : out).push(external ? -ctxRefs[j] - 1 : ctxRefs[j]);
    return out;
  }
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
    const ref = this.store.c.answer[this.index];
    return ref < 0 ? null : this.store.head.answers[ref];
  }
  get ambiguous(): (string | null)[] | undefined {
    const ref = this.store.c.ambiguous[this.index];
    return ref < 0 ? undefined : this.store.head.ambiguous[ref];
  }
  get disagreement(): [string, string | null] | undefined {
    const ref = this.store.c.disagreement[this.index];
    return ref < 0 ? undefined : this.store.head.disagreements[ref];
  }
  get turn(): number | undefined {
    const turn = this.store.c.turn[this.index];
    return turn < 0 ? undefined : turn;
  }
  get prev(): string | null {
    return this.prevIndex < 0 ? null : this.store.responses[this.prevIndex].id;
  }
  get context(): string[] {
    const { ctxStart, ctxRefs } = this.store.c;
    const out: string[] = [];
    for (let j = ctxStart[this.index]; j < ctxStart[this.index + 1]; j++)
      out.push(ctxRefs[j] >= 0 ? this.store.responses[ctxRefs[j]].id : this.store.head.externals[-ctxRefs[j] - 1].id);
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
