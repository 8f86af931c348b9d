// The tier-3 stand-in (docs/method.md §3): the fitted response model draws the recipient's answer; its text,
// tokens and embedding come from a cached response stating that answer.
import type { Environment } from './environment.ts';
import { shownCode } from './lookupIndex.ts';
import { drawAnswer, type RevisionContext } from './responseModel.ts';

/**
 * Text source for a tier-3 answer: a cached response to the question stating that answer, the
 * recipient's own first, then the one whose context showed what this one shows (the same agents
 * with the same answers, own response included or not), then the nearest round, earlier first. A
 * revision's text discusses what its agent was shown, so a policy reading the stand-in reads a text
 * written after a context like this one, not after another (with the nearest round alone,
 * a learned policy read its debates 1-2 points better than with the real replies). Every answer the
 * response model can draw is stated by some cached response to the question (previous, peers',
 * round-1), so docs/method.md §3's "model-bare" fallback cannot arise here and is not counted.
 */
function textSource(env: Environment, c: RevisionContext, round: number, ans: number): number {
  const { cache } = env;
  const shown = new Set(c.peers.map((p) => shownCode(p.agent, p.ans)));
  if (c.prevShown) shown.add(shownCode(c.agent, c.prev));
  let best = -1;
  let bestScore = Infinity;
  for (const idx of env.byAnswer.get(`${c.q}|${ans}`)!) {
    const r = cache.responses[idx];
    const theirs = [
      ...r.ctx.map((i) => shownCode(cache.responses[i].a, cache.responses[i].ans)),
      ...r.ext.map((e) => shownCode(cache.agents.length, cache.externals[e].ans)),
    ];
    const common = theirs.filter((s) => shown.has(s)).length;
    const mismatch = theirs.length - common + (shown.size - common);
    const score = (r.a === c.agent ? 0 : 100000) + mismatch * 100 + Math.abs(r.round - round) * 10 + (r.round < round ? 0 : 1);
    if (score < bestScore) [best, bestScore] = [idx, score];
  }
  return best;
}

/** Each environment's text sources so far, valid while the responses it has indexed stay the same (the record tier adds some). */
const sources = new WeakMap<Environment, { indexed: number; source: Map<string, number> }>();

/** The model tier's answer for a revision (recipient, previous answer, what is kept); `source` states it. */
export function standIn(env: Environment, t: number, c: RevisionContext, random: () => number): { ans: number; source: number } {
  const ans = drawAnswer(env.responseModel, c, random);
  let memo = sources.get(env);
  if (memo?.indexed !== env.indexed) sources.set(env, (memo = { indexed: env.indexed, source: new Map() }));
  const key = `${c.q}|${c.agent}|${t}|${ans}|${c.prev}|${+c.prevShown}|${c.peers.map((p) => `${p.agent}:${p.ans}`).join(',')}`;
  let source = memo.source.get(key);
  if (source === undefined) memo.source.set(key, (source = textSource(env, c, t, ans)));
  return { ans, source };
}
