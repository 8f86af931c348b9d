// Runs the answer-reading corpus (tests/fixtures/answers/): each response through extractAnswer and
// normalizeAnswer, compared with the answer a reader takes from it (MATH: as mathematics). Fails
// with every mismatch listed.
import { describe, expect, it } from 'vitest';
import { extractAnswer, normalizeAnswer, questionOptions, sameMath } from '../../src/answer.ts';
import { QUESTIONS, type CorpusEntry } from '../fixtures/answers/corpus.ts';
import { MATH_CORPUS } from '../fixtures/answers/corpus-math.ts';
import { MCQ_CORPUS } from '../fixtures/answers/corpus-mcq.ts';
import { NUMERIC_CORPUS } from '../fixtures/answers/corpus-numeric.ts';

const CORPUS = [...MCQ_CORPUS, ...NUMERIC_CORPUS, ...MATH_CORPUS];

function mismatch(e: CorpusEntry): string | null {
  const raw = extractAnswer(e.text, e.type, e.question ? questionOptions(QUESTIONS[e.question]) : []);
  const got = normalizeAnswer(raw, e.type);
  const want = normalizeAnswer(e.answer, e.type);
  if (e.answer !== null && want === null) return `expected answer ${JSON.stringify(e.answer)} does not normalize as ${e.type}`;
  const same = got === want || (e.type === 'math' && got !== null && want !== null && sameMath(got, want));
  return same
    ? null
    : `${e.type} (${e.note}): read ${JSON.stringify(raw)} -> ${JSON.stringify(got)}, ` +
        `expected ${JSON.stringify(want)}\n    ${JSON.stringify(e.text.slice(-160))}`;
}

describe('the answer-reading corpus', () => {
  it('holds at least 200 varied responses of both kinds, some stating no answer', () => {
    expect(CORPUS.length).toBeGreaterThanOrEqual(200);
    for (const type of ['mcq', 'numeric', 'math'] as const) {
      expect(CORPUS.filter((e) => e.type === type && e.answer !== null).length).toBeGreaterThan(25);
      expect(CORPUS.filter((e) => e.type === type && e.answer === null).length).toBeGreaterThan(3);
    }
    expect(new Set(CORPUS.map((e) => `${e.type}|${e.question}|${e.text}`)).size).toBe(CORPUS.length);
  });

  it('reads every response as a reader does', () => {
    expect(CORPUS.map(mismatch).filter(Boolean)).toEqual([]);
  });
});
