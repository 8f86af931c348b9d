// Runs the answer-reading corpus (tests/fixtures/answers/): each response through readAnswer,
// compared with the answer a reader takes from it (MATH: as mathematics), an ambiguous one with
// its mark. Fails with every mismatch listed, and holds the reading goals: of the stated answers
// at least 99.5% read right and at most 0.2% misread (a wrong value stored, the worst outcome);
// multiple-choice replies in the misread styles at least 97% right.
import { describe, expect, it } from 'vitest';
import { normalizeAnswer, questionOptions, readAnswer, sameMath } from '../../src/answer.ts';
import { QUESTIONS, type CorpusEntry } from '../fixtures/answers/corpus.ts';
import { MATH_CORPUS } from '../fixtures/answers/corpus-math.ts';
import { MCQ_CORPUS } from '../fixtures/answers/corpus-mcq.ts';
import { NUMERIC_CORPUS } from '../fixtures/answers/corpus-numeric.ts';
import { realCorpus } from '../fixtures/answers/corpus-real.ts';

const CORPUS = [...MCQ_CORPUS, ...NUMERIC_CORPUS, ...MATH_CORPUS, ...realCorpus()];

type Outcome = 'right' | 'misread' | 'unread';

/** How a reply was read: right (the labelled answer, or none, with its ambiguity mark), misread (a value stored that is not the label), or unread. */
function outcome(e: CorpusEntry): { outcome: Outcome; detail: string } {
  const read = readAnswer(e.text, e.type, e.question ? questionOptions(QUESTIONS[e.question]) : []);
  const got = normalizeAnswer(read.answer, e.type);
  const want = normalizeAnswer(e.answer, e.type);
  if (e.answer !== null && want === null) throw new Error(`corpus label ${JSON.stringify(e.answer)} does not normalize as ${e.type} (${e.note})`);
  const same = got === want || (e.type === 'math' && got !== null && want !== null && sameMath(got, want));
  const result: Outcome = same && !!read.ambiguous === !!e.ambiguous ? 'right' : got !== null && !same ? 'misread' : 'unread';
  const detail =
    `${e.type} (${e.note}): read ${JSON.stringify(read)}, expected ${JSON.stringify(want)}${e.ambiguous ? ' (ambiguous)' : ''}\n` +
    `    ${JSON.stringify(e.text.slice(-160))}`;
  return { outcome: result, detail };
}

describe('the answer-reading corpus', () => {
  const results = CORPUS.map((e) => ({ e, ...outcome(e) }));
  const share = (keep: (r: (typeof results)[number]) => boolean, what: Outcome) => {
    const rs = results.filter(keep);
    return rs.filter((r) => r.outcome === what).length / rs.length;
  };

  it('holds varied responses of each kind, real replies among them, some stating no answer and some ambiguous', () => {
    expect(CORPUS.length).toBeGreaterThanOrEqual(330);
    for (const type of ['mcq', 'numeric', 'math'] as const) {
      expect(CORPUS.filter((e) => e.type === type && e.answer !== null).length).toBeGreaterThan(25);
      expect(CORPUS.filter((e) => e.type === type && e.answer === null && !e.ambiguous).length).toBeGreaterThan(3);
      expect(CORPUS.filter((e) => e.type === type && e.ambiguous).length).toBeGreaterThan(0);
    }
    expect(CORPUS.filter((e) => e.source).length).toBeGreaterThanOrEqual(50);
    expect(new Set(CORPUS.map((e) => `${e.type}|${e.question}|${e.text}`)).size).toBe(CORPUS.length);
  });

  it('reads every response as a reader does', () => {
    expect(results.filter((r) => r.outcome !== 'right').map((r) => r.detail)).toEqual([]);
  });

  it('meets the goals: stated answers 99.5% right and at most 0.2% misread; multiple choice 97% right', () => {
    const stated = (r: (typeof results)[number]) => r.e.answer !== null;
    expect(share(stated, 'right')).toBeGreaterThanOrEqual(0.995);
    expect(share(() => true, 'misread')).toBeLessThanOrEqual(0.002);
    expect(share((r) => r.e.type === 'mcq', 'right')).toBeGreaterThanOrEqual(0.97);
  });
});
