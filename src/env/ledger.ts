// Transition ledger (docs/method.md §9): per debate, initial = round-1 majority, final = last-round
// majority; preserved (C->C), collapse (C->W), correction (W->C), unrepaired (W->W), invalid (no
// parsed final answer). Collapse onset: the first round whose majority is wrong after a correct
// round 1. Signed utility compares two methods on the same questions.
import { majority, type DebateResult } from './debate.ts';
import type { DebateSettings } from './settings.ts';

export const OUTCOMES = ['preserved', 'collapse', 'correction', 'unrepaired', 'invalid'] as const;
export type Outcome = (typeof OUTCOMES)[number];

export interface LedgerEntry {
  outcome: Outcome;
  /** Round of the first wrong majority after a correct round 1, or null. */
  onset: number | null;
}

export function ledgerEntry(d: DebateResult, gold: number, tieBreak: DebateSettings['tieBreak'], random: () => number): LedgerEntry {
  const majorities = d.answers.map((row, t) => (t === d.answers.length - 1 ? d.final : majority(row, tieBreak, random)));
  const initial = majorities[0] === gold;
  let onset: number | null = null;
  if (initial) onset = majorities.findIndex((m) => m !== gold) + 1 || null;
  if (d.invalid) return { outcome: 'invalid', onset };
  const final = d.finalCorrect;
  return { outcome: initial ? (final ? 'preserved' : 'collapse') : final ? 'correction' : 'unrepaired', onset };
}

interface Ledger {
  counts: Record<Outcome, number>;
  /** Collapse onsets by round (index = round). */
  onsets: number[];
}

export function summarize(entries: LedgerEntry[], rounds: number): Ledger {
  const counts = Object.fromEntries(OUTCOMES.map((o) => [o, 0])) as Record<Outcome, number>;
  const onsets = new Array<number>(rounds + 1).fill(0);
  for (const e of entries) {
    counts[e.outcome]++;
    if (e.onset !== null) onsets[e.onset]++;
  }
  return { counts, onsets };
}

interface SignedUtility {
  collapsesPrevented: number;
  correctionsLost: number;
  utility: number;
}

/**
 * w_collapse * (questions the reference collapsed on and the method ends right) - w_correction *
 * (questions the reference corrected and the method ends wrong).
 */
export function signedUtility(method: LedgerEntry[], reference: LedgerEntry[], wCollapse = 1, wCorrection = 1): SignedUtility {
  if (method.length !== reference.length) throw new Error('signed utility needs both methods on the same questions');
  let collapsesPrevented = 0,
    correctionsLost = 0;
  const endsRight = (e: LedgerEntry) => e.outcome === 'preserved' || e.outcome === 'correction';
  method.forEach((m, i) => {
    const r = reference[i].outcome;
    if (r === 'collapse' && endsRight(m)) collapsesPrevented++;
    if (r === 'correction' && !endsRight(m)) correctionsLost++;
  });
  return { collapsesPrevented, correctionsLost, utility: wCollapse * collapsesPrevented - wCorrection * correctionsLost };
}
