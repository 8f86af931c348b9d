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
  const c = Object.fromEntries(INT_COLUMNS.map((name) => [name, int(name)])) as Record<(typeof INT_COLUMNS)[number], Int32Array>;
  const inTokens = num('inTokens');
  const outTokens = num('outTokens');
  const offsets = Object.fromEntries(LAZY_COLUMNS.map((name) => [name, num(`${name}Offsets`)])) as Record<Lazy, Float64Array>;
  const store: Store = { fd, base, head, offsets, ids: undefined, responses: [] };
  closeWhenGone.register(store, fd);
  const questions = head.questions;
  const responses = store.responses;
  for (let i = 0; i < head.responses; i++) {
    if (i % RESPONSES_STEP === RESPONSES_STEP - 1) yield;
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
