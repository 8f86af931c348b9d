// The tier-3 stand-in (SPEC §3): the fitted response model draws the recipient's answer; its text,
// tokens and embedding come from a cached response stating that answer.
import type { Environment } from './environment.ts';
import { drawAnswer, outcomes } from './responseModel.ts';

/**
 * Text source for a tier-3 answer: the recipient's own response with that answer (nearest round,
 * earlier first), else another agent's. Every answer the response model can draw is stated by some
 * cached response to the question (previous, peers', round-1), so SPEC §3's "model-bare" fallback
 * cannot arise here and is not counted.
 */
function textSource(env: Environment, q: number, agent: number, round: number, ans: number): number {
  let best = -1;
  let bestScore = Infinity;
  for (const idx of env.byAnswer.get(`${q}|${ans}`)!) {
    const r = env.cache.responses[idx];
    const score = (r.a === agent ? 0 : 1000) + Math.abs(r.round - round) * 10 + (r.round < round ? 0 : 1);
    if (score < bestScore) [best, bestScore] = [idx, score];
  }
  return best;
}

/** The model tier's answer of `agent` at round t, given its previous answer and its kept peers' answers; `source` states it. */
export function standIn(env: Environment, q: number, agent: number, t: number, prev: number, peers: number[], random: () => number): { ans: number; source: number } {
  const o = outcomes(prev, peers, env.prior.get(q * env.cache.agents.length + agent), env.settings.priorSmoothing);
  const ans = drawAnswer(env.weights[agent], o, random);
  return { ans, source: textSource(env, q, agent, t, ans) };
}
