import { describe, expect, it } from 'vitest';
import type { DebateResult } from '../../src/env/debate.ts';
import { ledgerEntry, signedUtility, summarize, type LedgerEntry } from '../../src/env/ledger.ts';
import { cacheFromRecords } from '../../src/cache/load.ts';
import { makeEnvironment } from '../../src/env/environment.ts';
import { fullDebate, noCommunication } from '../../eval/baselines.ts';
import { handRecords } from '../fixtures/handCache.ts';

// Answers as letters per round; gold is A (key 0); '-' is unparsed.
const key = (c: string) => (c === '-' ? -1 : c.charCodeAt(0) - 65);
function debate(rounds: string[]): DebateResult {
  const answers = rounds.map((r) => [...r].map(key));
  const last = answers[answers.length - 1];
  const counts = new Map<number, number>();
  last.filter((a) => a >= 0).forEach((a) => counts.set(a, (counts.get(a) ?? 0) + 1));
  const best = Math.max(0, ...counts.values());
  const final = best ? last.find((a) => counts.get(a) === best)! : -1;
  return {
    q: 0,
    answers,
    correct: answers.map((r) => r.map((a) => a === 0)),
    keeps: [],
    final,
    finalCorrect: final === 0,
    invalid: final < 0,
    cost: 0,
    priced: { recorded: 0, computed: 0 },
    keptEdges: 0,
    revises: [],
    calls: 0,
    tiers: { exact: 0, signature: 0, model: 0, record: 0, skipped: 0 },
  };
}
const entry = (rounds: string[]) => ledgerEntry(debate(rounds), 0, 'lowest-agent', Math.random);

describe('transition ledger', () => {
  it('classifies each debate by round-1 and final majorities, with the collapse onset', () => {
    expect(entry(['AAB', 'BBA', 'BBB'])).toEqual({ outcome: 'collapse', onset: 2 });
    expect(entry(['AAB', 'AAB', 'BBA'])).toEqual({ outcome: 'collapse', onset: 3 });
    expect(entry(['AAB', 'ABB', 'AAB'])).toEqual({ outcome: 'preserved', onset: 2 }); // a wrong round 2, repaired
    expect(entry(['AAB', 'AAB', 'AAA'])).toEqual({ outcome: 'preserved', onset: null });
    expect(entry(['BBA', 'AAB', 'AAA'])).toEqual({ outcome: 'correction', onset: null });
    expect(entry(['BCB', 'BBC', 'CCB'])).toEqual({ outcome: 'unrepaired', onset: null });
    expect(entry(['ABC', 'ABC', '---'])).toEqual({ outcome: 'invalid', onset: 3 }); // tie to agent 0 (A): correct round 1
  });

  it('summarizes counts and onsets by round', () => {
    const entries = [entry(['AAB', 'BBA', 'BBB']), entry(['AAB', 'AAB', 'BBA']), entry(['AAB', 'ABB', 'AAB']), entry(['BBA', 'AAB', 'AAA'])];
    const s = summarize(entries, 3);
    expect(s.counts).toEqual({ preserved: 1, collapse: 2, correction: 1, unrepaired: 0, invalid: 0 });
    expect(s.onsets).toEqual([0, 0, 2, 1]);
  });

  it('signed utility counts collapses prevented and corrections lost against a reference', () => {
    const e = (outcome: LedgerEntry['outcome']): LedgerEntry => ({ outcome, onset: null });
    const reference = [e('collapse'), e('collapse'), e('correction'), e('correction'), e('preserved'), e('unrepaired')];
    const method = [e('preserved'), e('collapse'), e('unrepaired'), e('correction'), e('collapse'), e('correction')];
    expect(signedUtility(method, reference)).toEqual({ collapsesPrevented: 1, correctionsLost: 1, utility: 0 });
    expect(signedUtility(method, reference, 3, 1).utility).toBe(2);
    expect(() => signedUtility(method.slice(1), reference)).toThrow(/same questions/);
  });

  it('on the hand-built cache: Full-Debate leaves q1 unrepaired and preserves q2; No-communication corrects q1', async () => {
    const cache = cacheFromRecords(handRecords());
    const env = makeEnvironment(cache, { rounds: 2, miss: 'error' });
    expect((await fullDebate(env, cache.questions)).ledger.map((l) => l.outcome)).toEqual(['unrepaired', 'preserved']);
    const none = await noCommunication(env, [cache.questions[0]]);
    expect(none.ledger).toEqual([{ outcome: 'correction', onset: null }]);
  });
});
