// Checks and sums over the debates a training step or a validation played.
import type { Cache } from '../src/cache/types.ts';
import type { DebateResult } from '../src/env/debate.ts';

/** Training never leaves a debate out: a miss under miss = signature is an error naming the question. */
export function replayable(results: DebateResult[], cache: Cache, what: string): DebateResult[] {
  const missed = results.find((d) => d.missed);
  if (missed) throw unreplayable(what, cache.questions[missed.q].id, missed.missed!);
  return results;
}

export const unreplayable = (what: string, question: string, why: string) => new Error(`${what} on question '${question}' cannot be replayed: ${why}`);

export const costRatioOf = (results: DebateResult[], fullCost: Map<number, number>) =>
  results.reduce((s, d) => s + d.cost, 0) / results.reduce((s, d) => s + fullCost.get(d.q)!, 0);
