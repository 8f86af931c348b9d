// The tally of a method's debates (docs/method.md §8-9), the same for every method and for a training run's
// validation: accuracy, invalid answers, cost and how it was priced, calls made and skipped (the
// tier `skipped`), debates stopped before their last round, kept edges, lookup tiers, the
// transition ledger and each question's outcome (what the paired tests compare).
import seedrandom from 'seedrandom';
import type { Question } from '../cache/types.ts';
import { debateEdges } from './protocol.ts';
import { addPricing, emptyPricing, type PricingCounts } from './cost.ts';
import type { DebateResult } from './debate.ts';
import type { Environment } from './environment.ts';
import { ledgerEntry, type LedgerEntry } from './ledger.ts';
import { addTiers, emptyTiers, type TierCounts } from './tiers.ts';

export interface MethodResult {
  method: string;
  questions: number;
  correct: number;
  invalid: number;
  cost: number;
  /** Calls priced from recorded input tokens, and calls whose input tokens were computed (src/env/cost.ts). */
  priced: PricingCounts;
  /** Calls made (round 1 and revisions); the calls not made are tiers.skipped. */
  calls: number;
  /** Debates that stopped before their last round (DebateResult.stoppedAfter). */
  stopped: number;
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
  /** Why the first of them could not be replayed. */
  missed?: string;
}

export interface QuestionOutcome {
  /** Question index in the cache (pairs two methods' outcomes). */
  q: number;
  correct: boolean;
  cost: number;
}

export function emptyResult(env: Environment, questions: Question[], method: string): MethodResult {
  return {
    method,
    questions: questions.length,
    correct: 0,
    invalid: 0,
    cost: 0,
    priced: emptyPricing(),
    calls: 0,
    stopped: 0,
    keptEdges: 0,
    maxEdges: questions.reduce((s, q) => s + debateEdges(env.cache, env.turns, env.team, q.index, env.rounds), 0),
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
    out.missed ??= r.missed;
    out.questions--;
    out.maxEdges -= debateEdges(env.cache, env.turns, env.team, r.q, env.rounds);
    return;
  }
  out.correct += +r.finalCorrect;
  out.invalid += +r.invalid;
  out.cost += r.cost;
  addPricing(out.priced, r.priced);
  out.calls += r.calls;
  out.stopped += +(r.stoppedAfter !== undefined);
  out.keptEdges += r.keptEdges;
  addTiers(out.tiers, r.tiers);
  const q = env.cache.questions[r.q];
  out.ledger.push(ledgerEntry(r, q.goldKey, env.settings.tieBreak, seedrandom(`${env.settings.seed}|ledger|${q.id}`)));
  out.outcomes.push({ q: r.q, correct: r.finalCorrect, cost: r.cost });
}

/** The result of `method` from its debates on `questions` (one each, in order). */
export function tally(env: Environment, questions: Question[], method: string, debates: DebateResult[]): MethodResult {
  const out = emptyResult(env, questions, method);
  for (const r of debates) addDebate(env, out, r);
  return out;
}
