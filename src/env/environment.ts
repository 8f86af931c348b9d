// The offline debate environment (SPEC §1-3): a cache, the debate settings, the team, and the
// indexes and fitted response model the lookup tiers read. The debate loop is in debate.ts, the
// tiers in tiers.ts, the record path in record.ts, pricing in cost.ts.
import type { ResponseRecord, Split } from '../cache/format.ts';
import type { Cache, Question, Response } from '../cache/load.ts';
import { emptyIndex, indexResponse, type LookupIndex } from './lookupIndex.ts';
import { fitResponseModel, priorCounts, type PriorCounts, type Weights } from './responseModel.ts';
import { DebateSettings } from './settings.ts';
import { emptyTiers, type TierCounts } from './tiers.ts';

/** A live model endpoint for the `record` tier: answers any context. */
export interface Endpoint {
  respond(request: {
    cache: Cache;
    question: Question;
    agent: number;
    round: number;
    context: Response[];
    prev: Response | null;
    sample: number;
  }): Omit<ResponseRecord, 'type' | 'id' | 'question' | 'agent' | 'round' | 'sample' | 'context' | 'prev'>;
}

export interface Environment extends LookupIndex {
  cache: Cache;
  settings: DebateSettings;
  /** Team as agent indices, in debate order. */
  team: number[];
  rounds: number;
  endpoint?: Endpoint;
  prior: PriorCounts;
  weights: Weights[];
  /** Lookups per tier since the environment was made (revisions only: rounds >= 2). */
  tiers: TierCounts;
  /** Responses the record tier added; they are in `cache` too, to be saved with it. */
  recorded: Response[];
}

export function makeEnvironment(cache: Cache, settings: Partial<DebateSettings> = {}, endpoint?: Endpoint): Environment {
  const s = DebateSettings.parse(settings);
  const team = (s.agents ?? cache.agents.map((a) => a.id)).map((id) => {
    const a = cache.agentIndex.get(id);
    if (a === undefined) throw new Error(`setting agents: unknown agent '${id}' (cache ${cache.file} has ${cache.agents.map((x) => x.id).join(', ')})`);
    return a;
  });
  if (s.miss === 'record' && !endpoint) throw new Error(`setting miss = record needs a live endpoint, and cache ${cache.file} has none configured`);
  const prior = priorCounts(cache);
  const env: Environment = {
    cache,
    settings: s,
    team,
    rounds: s.rounds,
    endpoint,
    ...emptyIndex(),
    prior,
    weights: fitResponseModel(cache, prior, s.priorSmoothing),
    tiers: emptyTiers(),
    recorded: [],
  };
  for (const r of cache.responses) indexResponse(env, cache, r);
  for (const list of env.round1.values()) list.sort((x, y) => cache.responses[x].sample - cache.responses[y].sample);
  return env;
}

/**
 * The questions of a split this team can debate: those where every member has a round-1 response
 * (imported debates vary in team size), or all of them when the record tier can answer.
 */
export function splitQuestions(env: Environment, split: Split): { questions: Question[]; skipped: number } {
  const A = env.cache.agents.length;
  const all = env.cache.questions.filter((q) => q.split === split);
  const questions = env.settings.miss === 'record' ? all : all.filter((q) => env.team.every((a) => env.round1.has(q.index * A + a)));
  return { questions, skipped: all.length - questions.length };
}

export const teamIds = (env: Environment) => env.team.map((a) => env.cache.agents[a].id);
