// The indexes the lookup tiers search (docs/method.md §3): exact keys (question, agent, round, the agent's own
// previous response, context ids),
// signature keys (the context's (source agent, parsed answer) multiset), round-1 samples, and the
// responses stating each answer (text for tier-3 answers).
import type { Cache, Response } from '../cache/types.ts';

export interface LookupIndex {
  exact: Map<string, number[]>;
  signature: Map<string, number[]>;
  /** Round-1 responses per question and agent (key q * agents + a), by sample. */
  round1: Map<number, number[]>;
  /** Responses per question and answer (key `q|ans`), for tier-3 text. */
  byAnswer: Map<string, number[]>;
}

export const emptyIndex = (): LookupIndex => ({ exact: new Map(), signature: new Map(), round1: new Map(), byAnswer: new Map() });

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

function push<K>(map: Map<K, number[]>, key: K, value: number) {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

export function indexResponse(index: LookupIndex, cache: Cache, r: Response) {
  const A = cache.agents.length;
  if (r.round === 1) push(index.round1, r.q * A + r.a, r.index);
  else {
    // A context with external entries is rebuilt only by the recorded protocol, which shows them as recorded.
    push(index.exact, exactKey(r.q, r.a, r.round, r.prevIndex, r.ctx, r.ext), r.index);
    const ctx = r.ctx.map((c) => cache.responses[c]);
    const ext = r.ext.map((e) => cache.externals[e]);
    const agents = [...ctx.map((c) => c.a), ...ext.map(() => A)];
    push(index.signature, signatureKey(r.q, r.a, r.round, agents, [...ctx.map((c) => c.ans), ...ext.map((e) => e.ans)]), r.index);
  }
  push(index.byAnswer, `${r.q}|${r.ans}`, r.index);
}
