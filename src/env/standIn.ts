// The tier-3 stand-in (SPEC §3): the fitted response model draws the recipient's answer; its text,
// tokens and embedding come from a cached response stating that answer.
import type { Environment } from './environment.ts';
import { drawAnswer, type RevisionContext } from './responseModel.ts';

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

/** The model tier's answer for a revision (recipient, previous answer, what is kept); `source` states it. */
export function standIn(env: Environment, t: number, c: RevisionContext, random: () => number): { ans: number; source: number } {
  const ans = drawAnswer(env.responseModel, c, random);
  return { ans, source: textSource(env, c.q, c.agent, t, ans) };
}
