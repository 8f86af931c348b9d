// The lookup tiers (docs/method.md §3): a recipient's response under its kept context is looked up as deep
// as the `miss` setting allows: exact, then signature, then the fitted model (tier 3); with a live
// endpoint (miss = record), exact, else the endpoint's reply recorded before the round (record.ts).
// Each lookup is counted by the tier that answered it; a call a round's decisions skip is counted
// as `skipped` (no lookup: the member's response is its previous one, exact by construction).
import type { Cache } from '../cache/types.ts';
import { InputError } from '../io/errors.ts';
import { pick } from '../shuffle.ts';
import type { Debate, DebateResponse } from './debate.ts';
import type { Environment } from './environment.ts';
import { exactHits, signatureKey } from './lookupIndex.ts';
import type { MissTier } from './settings.ts';
import { standIn } from './standIn.ts';

export const TIERS = ['exact', 'signature', 'model', 'record', 'skipped'] as const;
export type Tier = (typeof TIERS)[number];
export type TierCounts = Record<Tier, number>;
export const emptyTiers = (): TierCounts => ({ exact: 0, signature: 0, model: 0, record: 0, skipped: 0 });
export function addTiers(into: TierCounts, from: TierCounts): void {
  for (const k of TIERS) into[k] += from[k];
}

/** A lookup the `miss` setting in force does not let any tier answer; says which deeper tier would. */
export class CacheMissError extends InputError {
  constructor(cache: Cache, q: number, agent: number, round: number, context: string, miss: MissTier, deeper: string) {
    super(
      `cache miss in ${cache.file}: no response of agent '${cache.agents[agent].id}' to question ` +
        `'${cache.questions[q].id}' at round ${round} with context [${context}] (miss = ${miss}; ${deeper})`,
    );
  }
}

export const fromCache = (cache: Cache, index: number): DebateResponse => {
  const r = cache.responses[index];
  return { agent: r.a, ans: r.ans, source: index, cached: true };
};

/**
 * The response of `agent` in round d.round + 1 given its own previous response and what it kept.
 * `recorded`: the response the record tier added for this lookup before the round (record.ts), or -1.
 * `ext`: external entries the recorded protocol shows as recorded (protocol.ts); synchronous rounds show none.
 */
export function lookup(
  env: Environment,
  d: Debate,
  agent: number,
  own: DebateResponse,
  kept: DebateResponse[],
  recorded = -1,
  ext: number[] = [],
): { response: DebateResponse; tier: Tier } {
  const { cache } = env;
  const t = d.round + 1;
  const miss: MissTier = env.settings.miss;
  const random = d.drawsOf?.(t, agent) ?? d.random;
  if (recorded >= 0) return { response: fromCache(cache, recorded), tier: 'record' };
  const hit = exactHits(env, d.q, agent, t, own, kept, ext);
  if (hit) return { response: fromCache(cache, pick(hit, random)), tier: 'exact' };
  env.onExactMiss?.(d, agent, own, kept);
  // With a live endpoint, every context the cache lacks was recorded before the round: the
  // approximate tiers (signature, model) never stand in for a real answer.
  if (miss === 'record')
    throw new Error(
      `miss = record: agent '${cache.agents[agent].id}' on question '${cache.questions[d.q].id}' at round ${t} was not ` +
        `recorded before the round was stepped (step debates with stepDebates or playDebates, which ask the endpoint first)`,
    );
  const A = cache.agents.length;
  const sig = env.signature.get(
    signatureKey(d.q, agent, t, [...kept.map((k) => k.agent), ...ext.map(() => A)], [...kept.map((k) => k.ans), ...ext.map((e) => cache.externals[e].ans)]),
  );
  if (miss === 'error')
    throw new CacheMissError(
      cache,
      d.q,
      agent,
      t,
      kept.map((k) => (k.cached ? cache.responses[k.source].id : `(tier-3 ${cache.agents[k.agent].id})`)).join(', '),
      miss,
      sig ? 'the signature tier would answer it: miss = signature' : 'the tier-3 model would answer it: miss = model, or a live endpoint: miss = record',
    );
  if (sig) return { response: fromCache(cache, pick(sig, random)), tier: 'signature' };
  if (miss === 'signature')
    throw new CacheMissError(
      cache,
      d.q,
      agent,
      t,
      `signature ${kept.map((k) => `${cache.agents[k.agent].id}:${k.ans < 0 ? '-' : cache.answerKeys[k.ans]}`).join(', ')}`,
      miss,
      'the tier-3 model would answer it: miss = model, or a live endpoint: miss = record',
    );
  // A reply cut at its token limit shows no answer; the agent still remembers what it argued for.
  const peers = kept.filter((k) => k.agent !== agent && k.cutAnswer === undefined).map((k) => ({ agent: k.agent, ans: k.ans }));
  // An external text's answer that no recorded response states has no text to stand in with: the model is not shown it.
  for (const e of ext) if (env.byAnswer.has(`${d.q}|${cache.externals[e].ans}`)) peers.push({ agent: A, ans: cache.externals[e].ans });
  const prevShown = kept.some((k) => k.agent === agent);
  const context = { q: d.q, agent, prev: own.cutAnswer ?? own.ans, prevShown, peers };
  env.onModelAnswer?.(d, own, kept, context, ext);
  const { ans, source } = standIn(env, t, context, random);
  return { response: { agent, ans, source, cached: false }, tier: 'model' };
}

/** The round-1 miss: no tier but record answers it. */
export const roundOneMiss = (env: Environment, q: number, agent: number) =>
  new CacheMissError(env.cache, q, agent, 1, '', env.settings.miss, 'only a live endpoint answers a missing round-1 response: miss = record');
