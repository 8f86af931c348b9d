// The lookup tiers (SPEC §3): a recipient's response under its kept context is looked up as deep
// as the `miss` setting allows: exact, signature, then the fitted model (tier 3) or a live
// endpoint (record). Each lookup is counted by the tier that answered it.
import type { Cache } from '../cache/load.ts';
import { pick } from '../shuffle.ts';
import type { Debate, DebateResponse } from './debate.ts';
import type { Environment } from './environment.ts';
import { exactKey, signatureKey } from './lookupIndex.ts';
import { record } from './record.ts';
import type { MissTier } from './settings.ts';
import { standIn } from './standIn.ts';

export const TIERS = ['exact', 'signature', 'model', 'record'] as const;
export type Tier = (typeof TIERS)[number];
export type TierCounts = Record<Tier, number>;
export const emptyTiers = (): TierCounts => ({ exact: 0, signature: 0, model: 0, record: 0 });

export class CacheMissError extends Error {
  constructor(cache: Cache, q: number, agent: number, round: number, context: string) {
    super(
      `cache miss in ${cache.file}: no response of agent '${cache.agents[agent].id}' to question ` +
        `'${cache.questions[q].id}' at round ${round} with context [${context}] (miss = error; ` +
        `set miss to signature, model or record to look deeper)`,
    );
    this.name = 'CacheMissError';
  }
}

export const fromCache = (cache: Cache, index: number): DebateResponse => {
  const r = cache.responses[index];
  return { agent: r.a, ans: r.ans, source: index, cached: true };
};

/** The response of `agent` in round d.round + 1 given its own previous response and what it kept. */
export function lookup(env: Environment, d: Debate, agent: number, own: DebateResponse, kept: DebateResponse[]): { response: DebateResponse; tier: Tier } {
  const { cache } = env;
  const t = d.round + 1;
  const miss: MissTier = env.settings.miss;
  if (kept.every((k) => k.cached)) {
    const hit = env.exact.get(exactKey(d.q, agent, t, kept.map((k) => k.source)));
    if (hit) return { response: fromCache(cache, pick(hit, d.random)), tier: 'exact' };
  }
  if (miss === 'error') throw new CacheMissError(cache, d.q, agent, t, kept.map((k) => (k.cached ? cache.responses[k.source].id : `(tier-3 ${cache.agents[k.agent].id})`)).join(', '));
  const sig = env.signature.get(signatureKey(d.q, agent, t, kept.map((k) => k.agent), kept.map((k) => k.ans)));
  if (sig) return { response: fromCache(cache, pick(sig, d.random)), tier: 'signature' };
  if (miss === 'signature') throw new CacheMissError(cache, d.q, agent, t, `signature ${kept.map((k) => `${cache.agents[k.agent].id}:${k.ans < 0 ? '-' : cache.answerKeys[k.ans]}`).join(', ')}`);
  if (miss === 'record') {
    const context = kept.map((k) => cache.responses[k.source]);
    const r = record(env, d.q, agent, t, context, own.cached ? cache.responses[own.source] : null, 0);
    return { response: fromCache(cache, r.index), tier: 'record' };
  }
  const peers = kept.filter((k) => k.agent !== agent).map((k) => k.ans);
  const { ans, source } = standIn(env, d.q, agent, t, own.ans, peers, d.random);
  return { response: { agent, ans, source, cached: false }, tier: 'model' };
}
