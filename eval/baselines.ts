// Fixed comparison methods replayed through the environment (docs/method.md §8): Full-Debate,
// No-communication, and each Single agent (its round-1 answer alone).
import seedrandom from 'seedrandom';
import type { Question } from '../src/cache/types.ts';
import { shownTokens } from '../src/env/tokenLimit.ts';
import { callCost } from '../src/env/cost.ts';
import {
  edgesOnly,
  finishDebate,
  isPresent,
  keepAll,
  keepOwn,
  majority,
  playDebates,
  startDebates,
  stepDebates,
  type DebateResult,
  type DecisionRule,
} from '../src/env/debate.ts';
import { stopPoint } from '../src/io/interrupt.ts';
import type { Environment } from '../src/env/environment.ts';
import { addDebate, emptyResult, tally, type MethodResult } from '../src/env/tally.ts';

export async function runRule(env: Environment, questions: Question[], method: string, rule: DecisionRule): Promise<MethodResult> {
  const qs = questions.map((q) => q.index);
  // A live endpoint asks each round's missing contexts together: one lockstep replay (it awaits its calls).
  // Else the questions in order, QUESTIONS_A_STEP at a time with a stop point between (src/io/interrupt.ts).
  if (env.recording) return tally(env, questions, method, await playDebates(env, qs, rule));
  const results: DebateResult[] = [];
  for (let at = 0; at < qs.length; at += QUESTIONS_A_STEP) {
    await stopPoint('replay');
    results.push(...(await playDebates(env, qs.slice(at, at + QUESTIONS_A_STEP), rule)));
  }
  return tally(env, questions, method, results);
}

/** Debates a step of a replay plays between stop points. */
const QUESTIONS_A_STEP = 32;

export const fullDebate = (env: Environment, questions: Question[]) => runRule(env, questions, 'Full-Debate', keepAll);
export const noCommunication = (env: Environment, questions: Question[]) => runRule(env, questions, 'No-communication', keepOwn);

/** Each team member alone: its round-1 answer (the sample a debate starts from), one call. */
export async function singleAgent(env: Environment, questions: Question[], member: number): Promise<MethodResult> {
  const { cache } = env;
  const agent = env.team[member];
  const out = emptyResult(env, questions, `Single ${cache.agents[agent].id} (${cache.agents[agent].model})`);
  const debates = await startDebates(
    env,
    questions.map((q) => q.index),
  );
  for (const [k, q] of questions.entries()) {
    const d = debates[k];
    const r = d.current[member]; // its round-1 reply, as its token limit leaves it
    const correct = r.ans === q.goldKey;
    // The recorded round-1 call, as its token limit leaves its reply (none where the log has no answer of it).
    const cost = isPresent(r) ? callCost(cache, agent, cache.responses[r.source].inTokens, shownTokens(env, r)) : 0;
    out.correct += +correct;
    out.invalid += +(r.ans < 0);
    out.cost += cost;
    out.priced.recorded += +isPresent(r);
    out.calls += +isPresent(r);
    out.outcomes.push({ q: q.index, correct, cost });
    out.ledger.push({ outcome: r.ans < 0 ? 'invalid' : correct ? 'preserved' : 'unrepaired', onset: null }); // one answer: nothing changes
  }
  return out;
}

/** Random pruning: every edge kept with probability `keepRate`, seeded per question. */
export function randomPruning(env: Environment, questions: Question[], keepRate: number, seed: number): Promise<MethodResult> {
  const rngs = new Map<number, () => number>();
  const rule = edgesOnly((d, n) => {
    let random = rngs.get(d.q);
    if (!random) rngs.set(d.q, (random = seedrandom(`${seed}|random-pruning|${env.cache.questions[d.q].id}`)));
    return Array.from({ length: n }, () => Array.from({ length: n }, () => random!() < keepRate));
  });
  return runRule(env, questions, `Random pruning (keep ${(100 * keepRate).toFixed(0)}%, seed ${seed})`, rule);
}

/**
 * Freeze gates from the collapse audit: `always` answers with the round-1 majority and debates no
 * further; `on-change` runs Full-Debate but, when the round-2 majority differs from round 1's,
 * stops there and answers with the round-1 majority.
 */
export async function freezeGate(env: Environment, questions: Question[], gate: 'always' | 'on-change'): Promise<MethodResult> {
  // Always: a debate that stops before round 2 (its revisions counted skipped).
  if (gate === 'always') return runRule(env, questions, 'Freeze (always)', (d, n) => ({ ...keepAll(d, n), stop: true }));
  const out = emptyResult(env, questions, 'Freeze (when round-2 majority changed)');
  const debates = await startDebates(
    env,
    questions.map((q) => q.index),
  );
  const first = debates.map((d) => majority(d.answers[0], env.settings.tieBreak, d.random));
  const frozen = debates.map(() => false);
  for (let t = 2; t <= env.rounds; t++) {
    const going = debates.filter((_, k) => !frozen[k]);
    await stepDebates(
      env,
      going,
      going.map((d) => keepAll(d, env.team.length)),
    );
    if (t === 2) debates.forEach((d, k) => (frozen[k] ||= !d.missed && majority(d.answers[1], env.settings.tieBreak, d.random) !== first[k]));
  }
  debates.forEach((d, k) => {
    const r = finishDebate(env, d);
    const q = questions[k];
    addDebate(env, out, frozen[k] && !r.missed ? { ...r, final: first[k], finalCorrect: first[k] === q.goldKey, invalid: first[k] < 0 } : r);
  });
  return out;
}
