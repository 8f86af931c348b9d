import { describe, expect, it } from 'vitest';
import { extractAnswer, lastBoxed, normalizeAnswer } from '../src/answer.ts';

describe('answers', () => {
  it('takes the last boxed answer, nested braces included', () => {
    expect(lastBoxed('x \\boxed{1} then \\boxed{\\frac{9\\pi}{2}} end')).toBe('\\frac{9\\pi}{2}');
    expect(lastBoxed('no box')).toBeNull();
    expect(lastBoxed('\\boxed{unclosed')).toBeNull();
  });

  it('falls back to the last "The answer is"', () => {
    expect(extractAnswer('First the answer is 3. Then The answer is (B).')).toBe('(B)');
    expect(extractAnswer('The answer is $12$.')).toBe('12');
    expect(extractAnswer('I do not know')).toBeNull();
  });

  it('normalizes per answer type, and never guesses', () => {
    expect(normalizeAnswer('(b)', 'mcq')).toBe('B');
    expect(normalizeAnswer('C) the cell', 'mcq')).toBe('C');
    expect(normalizeAnswer('maybe', 'mcq')).toBeNull();
    expect(normalizeAnswer('1,000', 'numeric')).toBe('1000');
    expect(normalizeAnswer('2.50', 'numeric')).toBe('2.5');
    expect(normalizeAnswer('x', 'numeric')).toBeNull();
    expect(normalizeAnswer('\\dfrac{1}{2}', 'math')).toBe(normalizeAnswer('\\frac{1}{2}', 'math'));
    expect(normalizeAnswer('\\left( 1, 2 \\right)', 'math')).toBe('(1,2)');
    expect(normalizeAnswer('90^\\circ', 'math')).toBe('90');
    expect(normalizeAnswer(null, 'math')).toBeNull();
  });
});
