// The offline debate environment (SPEC §1-3): a cache, the debate settings, the team, and the
// indexes and fitted response model the lookup tiers read. The debate loop is in debate.ts, the
// tiers in tiers.ts, the record path in record.ts, pricing in cost.ts.
import type { Split } from '../cache/format.ts';
import type { Cache, Question } from '../cache/load.ts';
import { emptyIndex, indexResponse, type LookupIndex } from './lookupIndex.ts';
import type { Debate, DebateResponse } from './debate.ts';
import type { Recording } from './record.ts';
import { fitResponseModel, type ResponseModel } from './responseModel.ts';
import { tokenLimits } from './tokenLimit.ts';
import { DebateSettings } from './settings.ts';
import { emptyTiers, type TierCounts } from './tiers.ts';

export interface Environment extends LookupIndex {
  cache: Cache;
  settings: DebateSettings;
  /** Team as agent indices, in debate order. */
  team: number[];
  rounds: number;
  /** The live endpoint of the record tier and its journal (record.ts); environments of one cache may share it. */
  recording?: Recording;
  /** Cache responses indexed so far (responses recorded later are indexed before each recorded round). */
  indexed: number;
  /** The fitted tier-3 response model (responseModel.ts). */
  responseModel: ResponseModel;
  /** Lookups per tier since the environment was made (revisions only: rounds >= 2). */
  tiers: TierCounts;
  /** Output-token limit per agent of the cache (tokenLimit.ts). */
  limits: Float64Array;
  /** Called at each lookup no cached response answers exactly: where a debate goes that the cache lacks (active recording). */
  onExactMiss?: (d: Debate, agent: number, own: DebateResponse, kept: DebateResponse[]) => void;
}

export function makeEnvironment(cache: Cache, settings: Partial<DebateSettings> = {}, recording?: Recording): Environment {
  const s = DebateSettings.parse(settings);
  const team = (s.agents ?? cache.agents.map((a) => a.id)).map((id) => {
    const a = cache.agentIndex.get(id);
    if (a === undefined) throw new Error(`setting agents: unknown agent '${id}' (cache ${cache.file} has ${cache.agents.map((x) => x.id).join(', ')})`);
    return a;
  });
  if (s.miss === 'record' && !recording) throw new Error(`setting miss = record needs a live endpoint, and cache ${cache.file} has none attached`);
  if (s.miss !== 'record' && recording) throw new Error(`a live endpoint (${recording.endpoint.name}) is attached but miss = ${s.miss}: it would never be asked`);
  const env: Environment = {
    cache,
    settings: s,
    team,
    rounds: s.rounds,
    recording,
    indexed: cache.responses.length,
    ...emptyIndex(),
    responseModel: fitResponseModel(cache, s),
    tiers: emptyTiers(),
    limits: tokenLimits(cache, s.tokenLimit),
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
