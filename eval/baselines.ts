// Fixed comparison methods replayed through the environment (SPEC §8): Full-Debate,
// No-communication, and each Single agent (its round-1 answer alone).
import seedrandom from 'seedrandom';
import type { Question } from '../src/cache/types.ts';
import { actionsPerDebate } from '../src/env/actions.ts';
import { shownTokens } from '../src/env/tokenLimit.ts';
import { addPricing, callCost, emptyPricing, type PricingCounts } from '../src/env/cost.ts';
import { finishDebate, keepAll, keepOwn, majority, playDebates, startDebates, stepDebates, type DebateResult, type KeepRule } from '../src/env/debate.ts';
import { addTiers, emptyTiers, type TierCounts } from '../src/env/tiers.ts';
import type { Environment } from '../src/env/environment.ts';
import { ledgerEntry, type LedgerEntry } from './ledger.ts';

export interface MethodResult {
  method: string;
  questions: number;
  correct: number;
  invalid: number;
  cost: number;
  /** Calls priced from recorded input tokens, and calls whose input tokens were computed (src/env/cost.ts). */
  priced: PricingCounts;
  keptEdges: number;
  /** Edges a Full-Debate would use on the same questions. */
  maxEdges: number;
  tiers: TierCounts;
  /** Per question, in input order: its transition ledger entry. */
  ledger: LedgerEntry[];
  /** Per question, in input order: what the paired tests compare (src/significance.ts). */
  outcomes: QuestionOutcome[];
  /** What the reader must know about this row (e.g. samples used by a consistency vote). */
  note?: string;
  /** Ids of the questions this method could not replay (miss = signature); they count nowhere else. */
  skipped: string[];
}

export interface QuestionOutcome {
  /** Question index in the cache (pairs two methods' outcomes). */
  q: number;
  correct: boolean;
  cost: number;
}

export function emptyResult(env: Environment, questions: Question[], method: string): MethodResult {
  const n = env.team.length;
  return {
    method,
    questions: questions.length,
    correct: 0,
    invalid: 0,
    cost: 0,
    priced: emptyPricing(),
    keptEdges: 0,
    maxEdges: questions.length * actionsPerDebate(n, env.rounds),
    tiers: emptyTiers(),
    ledger: [],
    outcomes: [],
    skipped: [],
  };
}

/** Count one finished debate into a method's result. */
export function addDebate(env: Environment, out: MethodResult, r: DebateResult): void {
  if (r.missed) {
    out.skipped.push(env.cache.questions[r.q].id);
    out.questions--;
    out.maxEdges -= actionsPerDebate(env.team.length, env.rounds);
    return;
  }
  out.correct += +r.finalCorrect;
  out.invalid += +r.invalid;
  out.cost += r.cost;
  addPricing(out.priced, r.priced);
  out.keptEdges += r.keptEdges;
  addTiers(out.tiers, r.tiers);
  const q = env.cache.questions[r.q];
  out.ledger.push(ledgerEntry(r, q.goldKey, env.settings.tieBreak, seedrandom(`${env.settings.seed}|ledger|${q.id}`)));
  out.outcomes.push({ q: r.q, correct: r.finalCorrect, cost: r.cost });
}

export async function runRule(env: Environment, questions: Question[], method: string, rule: KeepRule): Promise<MethodResult> {
  const out = emptyResult(env, questions, method);
  for (const r of await playDebates(
    env,
    questions.map((q) => q.index),
    rule,
  ))
    addDebate(env, out, r);
  return out;
}

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
    const cost = callCost(cache, agent, cache.responses[r.source].inTokens, shownTokens(env, r)); // the recorded round-1 call, as its token limit leaves its reply
    out.correct += +correct;
    out.invalid += +(r.ans < 0);
    out.cost += cost;
    out.priced.recorded++;
    out.outcomes.push({ q: q.index, correct, cost });
    out.ledger.push({ outcome: r.ans < 0 ? 'invalid' : correct ? 'preserved' : 'unrepaired', onset: null }); // one answer: nothing changes
  }
  return out;
}

/** Random pruning: every edge kept with probability `keepRate`, seeded per question. */
export function randomPruning(env: Environment, questions: Question[], keepRate: number, seed: number): Promise<MethodResult> {
  const rngs = new Map<number, () => number>();
  const rule: KeepRule = (d, n) => {
    let random = rngs.get(d.q);
    if (!random) rngs.set(d.q, (random = seedrandom(`${seed}|random-pruning|${env.cache.questions[d.q].id}`)));
    return Array.from({ length: n }, () => Array.from({ length: n }, () => random!() < keepRate));
  };
  return runRule(env, questions, `Random pruning (keep ${(100 * keepRate).toFixed(0)}%, seed ${seed})`, rule);
}

/**
 * Freeze gates from the collapse audit: `always` answers with the round-1 majority and debates no
 * further; `on-change` runs Full-Debate but, when the round-2 majority differs from round 1's,
 * stops there and answers with the round-1 majority.
 */
export async function freezeGate(env: Environment, questions: Question[], gate: 'always' | 'on-change'): Promise<MethodResult> {
  const out = emptyResult(env, questions, gate === 'always' ? 'Freeze (always)' : 'Freeze (when round-2 majority changed)');
  const debates = await startDebates(
    env,
    questions.map((q) => q.index),
  );
  const first = debates.map((d) => majority(d.answers[0], env.settings.tieBreak, d.random));
  const frozen = debates.map(() => gate === 'always');
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
