// Fixed comparison methods replayed through the environment (SPEC §8): Full-Debate,
// No-communication, and each Single agent (its round-1 answer alone).
import seedrandom from 'seedrandom';
import type { Question } from '../src/cache/load.ts';
import { callCost, finishDebate, keepAll, keepOwn, majority, replay, startDebate, stepRound, emptyTiers, type Environment, type DebateResult, type KeepRule, type TierCounts } from '../src/env/environment.ts';
import { limitedSample } from '../src/env/tokenLimit.ts';
import { ledgerEntry, type LedgerEntry } from './ledger.ts';

export interface MethodResult {
  method: string;
  questions: number;
  correct: number;
  invalid: number;
  cost: number;
  keptEdges: number;
  /** Edges a Full-Debate would use on the same questions. */
  maxEdges: number;
  tiers: TierCounts;
  /** Per question, in input order: its transition ledger entry. */
  ledger: LedgerEntry[];
  /** What the reader must know about this row (e.g. samples used by a consistency vote). */
  note?: string;
}

export function addTiers(into: TierCounts, from: TierCounts): void {
  for (const k of Object.keys(into) as (keyof TierCounts)[]) into[k] += from[k];
}

export function emptyResult(env: Environment, questions: Question[], method: string): MethodResult {
  const n = env.team.length;
  return { method, questions: questions.length, correct: 0, invalid: 0, cost: 0, keptEdges: 0, maxEdges: questions.length * n * n * (env.rounds - 1), tiers: emptyTiers(), ledger: [] };
}

/** Count one finished debate into a method's result. */
export function addDebate(env: Environment, out: MethodResult, r: DebateResult): void {
  out.correct += +r.finalCorrect;
  out.invalid += +r.invalid;
  out.cost += r.cost;
  out.keptEdges += r.keptEdges;
  addTiers(out.tiers, r.tiers);
  const q = env.cache.questions[r.q];
  out.ledger.push(ledgerEntry(r, q.goldKey, env.settings.tieBreak, seedrandom(`${env.settings.seed}|ledger|${q.id}`)));
}

export function runRule(env: Environment, questions: Question[], method: string, rule: KeepRule): MethodResult {
  const out = emptyResult(env, questions, method);
  for (const q of questions) addDebate(env, out, replay(env, q.index, rule));
  return out;
}

export const fullDebate = (env: Environment, questions: Question[]) => runRule(env, questions, 'Full-Debate', keepAll);
export const noCommunication = (env: Environment, questions: Question[]) => runRule(env, questions, 'No-communication', keepOwn);

/** Each team member alone: its round-1 answer (the sample a debate starts from), one call. */
export function singleAgent(env: Environment, questions: Question[], member: number): MethodResult {
  const { cache } = env;
  const agent = env.team[member];
  const out = emptyResult(env, questions, `Single ${cache.agents[agent].id} (${cache.agents[agent].model})`);
  for (const q of questions) {
    const d = startDebate(env, q.index);
    const r = limitedSample(env, d.current[member].source);
    const correct = r.ans === q.goldKey;
    out.correct += +correct;
    out.invalid += +(r.ans < 0);
    out.cost += callCost(cache, agent, q.promptTokens, r.tokens);
    out.ledger.push({ outcome: r.ans < 0 ? 'invalid' : correct ? 'preserved' : 'unrepaired', onset: null }); // one answer: nothing changes
  }
  return out;
}

/** Random pruning: every edge kept with probability `keepRate`, seeded per question. */
export function randomPruning(env: Environment, questions: Question[], keepRate: number, seed: number): MethodResult {
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
export function freezeGate(env: Environment, questions: Question[], gate: 'always' | 'on-change'): MethodResult {
  const out = emptyResult(env, questions, gate === 'always' ? 'Freeze (always)' : 'Freeze (when round-2 majority changed)');
  for (const q of questions) {
    const d = startDebate(env, q.index);
    const all = keepAll(d, env.team.length);
    const first = majority(d.answers[0], env.settings.tieBreak, d.random);
    let frozen = gate === 'always';
    if (!frozen && d.round < env.rounds) {
      stepRound(env, d, all);
      frozen = majority(d.answers[1], env.settings.tieBreak, d.random) !== first;
    }
    while (!frozen && d.round < env.rounds) stepRound(env, d, all);
    const r = finishDebate(env, d);
    addDebate(env, out, frozen ? { ...r, final: first, finalCorrect: first === q.goldKey, invalid: first < 0 } : r);
  }
  return out;
}
