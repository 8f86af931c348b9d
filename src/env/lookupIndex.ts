// The indexes the lookup tiers search (docs/method.md §3): exact keys (question, agent, round, the agent's own
// previous response, context ids),
// signature keys (the context's (source agent, parsed answer) multiset), round-1 samples, and the
// responses stating each answer (text for tier-3 answers).
import type { Cache, Response } from '../cache/types.ts';

export interface LookupIndex {
  exact: KeyedLists<string>;
  signature: KeyedLists<string>;
  /** Round-1 responses per question and agent (key q * agents + a), by sample. */
  round1: KeyedLists<number>;
  /** Responses per question and answer (key `q|ans`), for tier-3 text. */
  byAnswer: KeyedLists<string>;
}

const hashString = (key: string) => {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
  return h;
};
const hashNumber = (key: number) => Math.imul(key ^ (key >>> 16), 0x45d9f3b) ^ (key >>> 13);
/** A key's hash, from 0 to 2^31 - 1. */
const hashOf = (key: string | number) => (typeof key === 'string' ? hashString(key) : hashNumber(key)) >>> 1;

/**
 * Lists of response indices by key, as a Map of number[] would hold them, for a cache of millions
 * of responses: the responses held when it is built sit in two typed arrays (each hash bucket's
 * responses, in response order), and a key is never kept but made again from a response
 * (`keyOf`) to check a hit of its bucket, so a response costs 4 bytes and a bucket 4, where a Map
 * held a key string and an array per key (about 100 bytes a response at 10,000 questions).
 * Responses added later (the record tier) go to a Map. `get` returns a new array each time.
 */
/** What a KeyedLists's built lists are: the bucket mask, each bucket's start, the items and their keys' hashes. */
export interface ListParts {
  mask: number;
  start: Int32Array;
  items: Int32Array;
  hashes: Int32Array;
}

export class KeyedLists<K extends string | number> {
  /** Bucket b's responses are items[start[b]] to items[start[b + 1] - 1]. */
  private start: Int32Array = new Int32Array(2);
  private items: Int32Array = new Int32Array(0);
  /** Each item's key's hash: a key is made again only for the items of the same hash. */
  private hashes: Int32Array = new Int32Array(0);
  private mask = 0;
  private readonly added = new Map<K, number[]>();

  /** Empty lists of the responses whose key is `keyOf` (undefined: not listed); `fill` lists the responses a cache holds. */
  constructor(private readonly keyOf: (i: number) => K | undefined) {}

  /**
   * List responses 0 to `count - 1` (replacing what was listed), as steps (src/io/interrupt.ts)
   * every `step` responses; each list in the order of `rankOf` (equal ranks, and without it every
   * list, in response order).
   */
  *fill(count: number, step: number, rankOf?: (i: number) => number): Generator<unknown, this> {
    const bucket = new Int32Array(count).fill(-1);
    // Each response's rank read once, in response order: a comparator reading two responses a comparison cost about a second at 4.6 million.
    const rank = rankOf ? new Int32Array(count) : undefined;
    let listed = 0;
    for (let i = 0; i < count; i++) {
      if (i % step === step - 1) yield 'environment index';
      const key = this.keyOf(i);
      if (key === undefined) continue;
      bucket[i] = hashOf(key);
      if (rank) rank[i] = rankOf!(i);
      listed++;
    }
    let size = 1;
    while (size < listed) size *= 2;
    this.mask = size - 1;
    this.start = new Int32Array(size + 1);
    for (let i = 0; i < count; i++) if (bucket[i] >= 0) this.start[(bucket[i] & this.mask) + 1]++;
    for (let b = 0; b < size; b++) this.start[b + 1] += this.start[b];
    this.items = new Int32Array(listed);
    this.hashes = new Int32Array(listed);
    const next = this.start.slice(0, size);
    for (let i = 0; i < count; i++)
      if (bucket[i] >= 0) {
        const at = next[bucket[i] & this.mask]++;
        this.items[at] = i;
        this.hashes[at] = bucket[i];
      }
    // A bucket holds a few responses (a key's samples, and the keys sharing its hash): an insertion sort, stable.
    if (rank)
      for (let b = 0; b < size; b++)
        for (let j = this.start[b] + 1; j < this.start[b + 1]; j++) {
          const item = this.items[j];
          let k = j - 1;
          for (; k >= this.start[b] && rank[this.items[k]] > rank[item]; k--) this.items[k + 1] = this.items[k];
          this.items[k + 1] = item;
        }
    if (rank) for (let j = 0; j < listed; j++) this.hashes[j] = bucket[this.items[j]];
    this.added.clear();
    return this;
  }

  get(key: K): number[] | undefined {
    const out = this.built(key, false);
    const added = this.added.get(key);
    return added ? [...(out ?? []), ...added] : out;
  }

  /** Whether `key` lists any response (as `get` would), without making its whole list. */
  has(key: K): boolean {
    return this.built(key, true) !== undefined || this.added.has(key);
  }

  /** The built responses listed under `key` (`first`: the first only), or undefined. */
  private built(key: K, first: boolean): number[] | undefined {
    const hash = hashOf(key);
    const b = hash & this.mask;
    let out: number[] | undefined;
    for (let j = this.start[b]; j < this.start[b + 1]; j++)
      if (this.hashes[j] === hash && this.keyOf(this.items[j]) === key) {
        (out ??= []).push(this.items[j]);
        if (first) break;
      }
    return out;
  }

  /** The built lists' arrays (views, not copies), as `adopt` takes them back. */
  parts(): ListParts {
    return { mask: this.mask, start: this.start, items: this.items, hashes: this.hashes };
  }

  /** Lists as `fill` built them (`parts` of lists of the same responses and keys), for none added. */
  adopt(parts: ListParts): this {
    ({ mask: this.mask, start: this.start, items: this.items, hashes: this.hashes } = parts);
    this.added.clear();
    return this;
  }

  /** Whether item j's key hashes to what the lists hold for it, in the bucket it sits in: a check of adopted parts against today's keys. */
  holds(j: number): boolean {
    const hash = hashOf(this.keyOf(this.items[j])!);
    const b = hash & this.mask;
    return this.hashes[j] === hash && this.start[b] <= j && j < this.start[b + 1];
  }

  /** List response `i` (one the lists were not built from) under `key`, after the others. */
  add(key: K, i: number): void {
    const list = this.added.get(key);
    if (list) list.push(i);
    else this.added.set(key, [i]);
  }

  /** Every key and its list. */
  *[Symbol.iterator](): Generator<[K, number[]]> {
    const keys = new Set<K>();
    for (const i of this.items) keys.add(this.keyOf(i)!);
    for (const key of this.added.keys()) keys.add(key);
    for (const key of keys) yield [key, this.get(key)!];
  }
}

/** The lookup indexes of `cache`, empty: each list's key of a response (undefined: not listed) and, for round 1, its order. */
export function emptyIndex(cache: Cache): LookupIndex {
  const A = cache.agents.length;
  const rs = cache.responses;
  const revision = (i: number) => rs[i].round !== 1;
  return {
    exact: new KeyedLists((i) => (revision(i) ? exactKeyOf(rs[i]) : undefined)),
    signature: new KeyedLists((i) => (revision(i) ? signatureKeyOf(cache, rs[i]) : undefined)),
    round1: new KeyedLists((i) => (revision(i) ? undefined : rs[i].q * A + rs[i].a)),
    byAnswer: new KeyedLists((i) => `${rs[i].q}|${rs[i].ans}`),
  };
}

/** The lookup indexes of the first `count` responses of `cache`, as steps (src/io/interrupt.ts) every `step` responses of each. */
export function* buildIndexSteps(cache: Cache, count: number, step: number): Generator<unknown, LookupIndex> {
  const rs = cache.responses;
  const index = emptyIndex(cache);
  yield* index.exact.fill(count, step);
  yield* index.signature.fill(count, step);
  yield* index.round1.fill(count, step, (i) => rs[i].sample);
  yield* index.byAnswer.fill(count, step);
  return index;
}

/**
 * A response answers exactly the request it was recorded for: the question, agent, round, the
 * agent's own previous response (it is in the agent's history whether shown or not, and an agent
 * holds on to it: the same shown responses after another previous answer are another request) and
 * the shown responses (and external entries, which only the recorded protocol shows). `prev` is -1 for a revision whose record does not say which previous
 * response its agent had.
 */
export const exactKey = (q: number, a: number, t: number, prev: number, ctx: number[], ext: number[] = []) =>
  `${q}|${a}|${t}|${prev}|${[...ctx].sort((x, y) => x - y).join(',')}${ext.length ? `|${[...ext].sort((x, y) => x - y).join(',')}` : ''}`;

/** A response in a debate as the exact tier reads it: a cached response (`source`), or a stand-in (`cached` false). */
interface Held {
  cached: boolean;
  source: number;
}

/**
 * The cached responses that answer a revision exactly: recorded after the same previous response
 * and the same shown responses; else, from a cache that does not say which previous response its
 * agent had, after the same shown responses. None when the recipient's history or a shown response
 * is a stand-in: no recorded response came after it.
 */
export function exactHits(
  index: Pick<LookupIndex, 'exact'>,
  q: number,
  a: number,
  t: number,
  own: Held,
  kept: Held[],
  ext: number[] = [],
): number[] | undefined {
  if (!own.cached || !kept.every((k) => k.cached)) return undefined;
  const ctx = kept.map((k) => k.source);
  return index.exact.get(exactKey(q, a, t, own.source, ctx, ext)) ?? index.exact.get(exactKey(q, a, t, -1, ctx, ext));
}

/** One shown (source agent, parsed answer) pair as a number (answer keys from -1, unparsed). */
export const shownCode = (agent: number, ans: number) => agent * 1048576 + ans + 1;

/** Key of a context's (source agent, parsed answer) multiset; an external entry's source is agent `A`. */
export function signatureKey(q: number, a: number, t: number, agents: number[], answers: number[]): string {
  const codes = agents.map((s, i) => shownCode(s, answers[i])).sort((x, y) => x - y);
  return `${q}|${a}|${t}|${codes.join(',')}`;
}

// A context with external entries is rebuilt only by the recorded protocol, which shows them as recorded.
const exactKeyOf = (r: Response) => exactKey(r.q, r.a, r.round, r.prevIndex, r.ctx, r.ext);

function signatureKeyOf(cache: Cache, r: Response): string {
  const A = cache.agents.length;
  const agents = [...r.ctx.map((c) => cache.responses[c].a), ...r.ext.map(() => A)];
  return signatureKey(r.q, r.a, r.round, agents, [...r.ctx.map((c) => cache.responses[c].ans), ...r.ext.map((e) => cache.externals[e].ans)]);
}

/** Index a response the indexes were not built from (one the record tier added). */
export function indexResponse(index: LookupIndex, cache: Cache, r: Response) {
  if (r.round === 1) index.round1.add(r.q * cache.agents.length + r.a, r.index);
  else {
    index.exact.add(exactKeyOf(r), r.index);
    index.signature.add(signatureKeyOf(cache, r), r.index);
  }
  index.byAnswer.add(`${r.q}|${r.ans}`, r.index);
}
