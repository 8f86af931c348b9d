// The held-out replies (tests/fixtures/answers/corpus-heldout.ts), written after the two-reading rules
// were frozen (6717308) and never tuned on: how they read, per model family, as docs/import.md
// ("Held out") reports them. Fails when a held-out reply is read differently from that report: a new
// wrong value, or a fix (which makes the set no longer held out: say so in docs/import.md).
import { describe, expect, it } from 'vitest';
import { normalizeAnswer, questionOptions, readAnswer, sameMath } from '../../src/answer.ts';
import { HELD_OUT, type HeldOutEntry } from '../fixtures/answers/corpus-heldout.ts';

type Outcome = 'right' | 'wrong value' | 'not read' | 'refused';

/** right: the labelled answer (or none); wrong value: another value stored; refused: none, the readings disagreeing or ambiguous; not read: none otherwise. */
function outcome(e: HeldOutEntry): Outcome {
  const read = readAnswer(e.text, e.type, e.type === 'mcq' ? questionOptions(e.asked ?? '') : [], e.asked ?? '');
  const [got, want] = [normalizeAnswer(read.answer, e.type), normalizeAnswer(e.answer, e.type)];
  if (got === want || (e.type === 'math' && got !== null && want !== null && sameMath(got, want))) return 'right';
  if (got !== null) return 'wrong value';
  return read.disagreement || read.ambiguous ? 'refused' : 'not read';
}

describe('the held-out replies', () => {
  const results = HELD_OUT.map((e) => ({ e, outcome: outcome(e) }));
  const stated = results.filter((r) => r.e.answer !== null);

  it('read as docs/import.md reports: 23 of the 33 that state an answer, 2 wrong values', () => {
    expect(HELD_OUT.length).toBe(36);
    expect(stated.length).toBe(33);
    expect(stated.filter((r) => r.outcome === 'right').length).toBe(23);
    expect(results.filter((r) => r.outcome === 'wrong value').map((r) => `${r.e.family}: ${r.e.note}`)).toEqual([
      'qwen: ends on an equation in the unknown, never solved',
      'gpt-4: a fraction, its decimal and its percentage',
    ]);
    expect(stated.filter((r) => r.outcome === 'refused').length).toBe(5);
  });

  it('per model family, as docs/import.md tabulates', () => {
    const row = (family: string) => {
      const rs = stated.filter((r) => r.e.family === family);
      return `${rs.filter((r) => r.outcome === 'right').length}/${rs.length}`;
    };
    expect(['claude', 'llama', 'mistral', 'gemini', 'qwen', 'gpt-4'].map(row)).toEqual(['3/7', '4/5', '6/6', '3/5', '4/4', '3/6']);
  });
});
