// The record tier (SPEC §3, tier 4): a live endpoint answers a context the cache lacks, and the
// reply becomes a cache response (indexed at once, kept in `env.recorded` to be saved).
import { appendResponse, type Response } from '../cache/load.ts';
import type { Environment } from './environment.ts';
import { indexResponse } from './lookupIndex.ts';

export function record(env: Environment, q: number, agent: number, round: number, context: Response[], prev: Response | null, sample: number): Response {
  const { cache } = env;
  const question = cache.questions[q];
  const reply = env.endpoint!.respond({ cache, question, agent, round, context, prev, sample });
  const base = `rec/${question.id}/${cache.agents[agent].id}/r${round}/${context.map((c) => c.index).sort((x, y) => x - y).join('+')}/s${sample}`;
  let id = base;
  for (let k = 2; cache.responseIndex.has(id); k++) id = `${base}#${k}`;
  const r = appendResponse(cache, {
    type: 'response',
    id,
    question: question.id,
    agent: cache.agents[agent].id,
    round,
    sample,
    context: context.map((c) => c.id),
    prev: prev?.id ?? null,
    ...reply,
  });
  indexResponse(env, cache, r);
  env.recorded.push(r);
  return r;
}
