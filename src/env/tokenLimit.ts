// Per-agent output-token limits (Table 7; debate setting `tokenLimit`: none | q85 | q95): an agent's
// reply may use at most the 85th / 95th percentile of that agent's recorded output lengths (every
// response of the agent in the cache, all rounds and samples; linear interpolation between order
// statistics, rounded to a whole token).
//
// The model of truncation: a reply longer than its agent's limit is cut at the limit. It costs the
// limit's tokens, as output and wherever it is shown as input. Its answer is stated at the end (as
// in every simulated reply, "... The answer is (X)."), so the cut loses it: the reply reads as
// unparsed in the final vote and to every recipient shown it, where it pulls towards no answer.
// What stays: its embedding (the encoders see the whole text), and the agent's own memory of what it
// was arguing for (the tier-3 model takes the agent's previous answer from the uncut reply). A cut
// text is not the recorded one, so it is never part of an exact-tier context.
import type { Cache } from '../cache/types.ts';
import type { DebateResponse } from './debate.ts';
import type { Environment } from './environment.ts';
import type { DebateSettings } from './settings.ts';

/** Quantile q of sorted values (linear interpolation between order statistics). */
function quantile(sorted: number[], q: number): number {
  const at = (sorted.length - 1) * q;
  const lo = Math.floor(at);
  return lo + 1 < sorted.length ? sorted[lo] + (at - lo) * (sorted[lo + 1] - sorted[lo]) : sorted[lo];
}

/** Output-token limit of each agent of the cache (by agent index); Infinity without a limit. */
export function tokenLimits(cache: Cache, limit: DebateSettings['tokenLimit']): Float64Array {
  const out = new Float64Array(cache.agents.length).fill(Infinity);
  if (limit === 'none') return out;
  const q = Number(limit.slice(1)) / 100;
  cache.agents.forEach((_, a) => {
    const lengths = cache.responses
      .filter((r) => r.a === a)
      .map((r) => r.outTokens)
      .sort((x, y) => x - y);
    if (lengths.length) out[a] = Math.round(quantile(lengths, q));
  });
  return out;
}

/** Tokens of a debate response as produced and shown: its recorded length, at most its agent's limit. */
export const shownTokens = (env: Environment, r: DebateResponse): number =>
  r.source < 0 ? 0 : Math.min(env.cache.responses[r.source].outTokens, env.limits[r.agent]); // source < 0: a member absent from the log

/** The response as its agent's limit leaves it: a reply past the limit loses its answer. */
export function limitReply(env: Environment, r: DebateResponse): DebateResponse {
  return env.cache.responses[r.source].outTokens > env.limits[r.agent] ? { ...r, ans: -1, cached: false, cutAnswer: r.ans } : r;
}

/** A cached response outside a debate (independent samples of the consistency votes): its tokens and answer under the limit. */
export function limitedSample(env: Environment, index: number): { tokens: number; ans: number } {
  const r = env.cache.responses[index];
  return r.outTokens > env.limits[r.a] ? { tokens: env.limits[r.a], ans: -1 } : { tokens: r.outTokens, ans: r.ans };
}
