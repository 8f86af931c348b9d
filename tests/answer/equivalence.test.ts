// MATH answers compared as mathematics (src/answer/equivalence.ts) and interned so that equivalent
// answers to one question share a key (src/cache/load.ts).
import { describe, expect, it } from 'vitest';
import { emptySymbolicCounts, normalizeAnswer, sameMath } from '../../src/answer.ts';
import type { CacheLine } from '../../src/cache/format.ts';
import { cacheFromRecords } from '../../src/cache/load.ts';

const same = (a: string, b: string) => sameMath(normalizeAnswer(a, 'math')!, normalizeAnswer(b, 'math')!);

describe('MATH equivalence', () => {
  it('finds equal what differs only in form', () => {
    const pairs: [string, string][] = [
      ['x+1', '1+x'], // reordered terms
      ['-34 + 12x', '12x - 34'],
      ['\\frac{\\sqrt{2}}{2}', '\\frac{1}{\\sqrt2}'], // equivalent radicals
      ['2\\sqrt{2}', '\\sqrt{8}'],
      ['\\frac{\\sqrt{6}+\\sqrt{2}}{4}', '\\frac{\\sqrt{2+\\sqrt{3}}}{2}'],
      ['\\dfrac{7}{3}', '2\\frac{1}{3}'], // equivalent fractions, mixed numbers
      ['\\frac{9\\pi}{2}', '4.5\\pi'], // forms of pi
      ['\\frac{9}{2}\\pi', '\\frac{9\\pi}{2}'],
      ['32π/3', '\\frac{32\\pi}{3}'],
      ['2{,}100', '2100'], // thousands separators
      ['\\$15,\\!000', '15000'],
      ['x \\in [2, 5]', '[2,5]'], // x \in an interval
      ['\\left[\\frac{1}{2}, 3\\right)', '[0.5,3)'], // intervals with \frac
      ['(-\\infty, \\frac{\\sqrt3}{3}]', '(-\\infty,\\frac{1}{\\sqrt{3}}]'],
      ['\\begin{pmatrix} \\frac{1}{2} \\\\ -3 \\end{pmatrix}', '\\begin{bmatrix}0.5\\\\-3\\end{bmatrix}'], // matrices with \frac
      ['\\begin{pmatrix}-3\\11\\7\\end{pmatrix}', '\\begin{pmatrix} -3 \\\\ 11 \\\\ 7 \\end{pmatrix}'], // MATH's gold answers: row breaks halved
      ['5 \\text{ or } 9', '9, 5'], // "or" lists are sets
      ['x = 5 \\text{ and } x = 9', '\\{5, 9\\}'],
      ['x=5\\quad\\text{or}\\quad x=-3', '-3, 5'],
      ['90^\\circ', '90'], // degree signs
      ['12\\text{ cm}^2', '12'], // units
      ['10 square units', '10'],
      ['y = 2x + 3', 'y = 3 + 2x'],
      ['x^2-10x+41', '(x-5)^2+16'],
      ['(\\sqrt{3}-\\sqrt{6})/4', '\\frac{\\sqrt{3}-\\sqrt{6}}{4}'],
    ];
    expect(pairs.filter(([a, b]) => !same(a, b))).toEqual([]);
  });

  it('keeps different answers apart', () => {
    const pairs: [string, string][] = [
      ['5 \\text{ or } 9', '5'], // a set is not one of its members
      ['(1,2)', '(2,1)'], // points are ordered
      ['[1,2)', '(1,2)'], // interval ends matter
      ['3.14', '\\pi'], // an approximation is not the value
      ['\\frac13', '0.333'],
      ['\\frac{\\pi}{3}', '60^\\circ'],
      ['x+1', 'y+1'],
      ['x+1', 'x+2'],
      ['\\frac{x^2-20\\lceil\\frac{1}{20}(20-x^2)\\rceil}{2}', '\\frac{1}{2}(x^2-20)'], // equal only for small x
      ['\\text{odd}', '\\text{even}'],
      ['\\begin{pmatrix}1\\\\2\\end{pmatrix}', '\\begin{pmatrix}2\\\\1\\end{pmatrix}'],
    ];
    expect(pairs.filter(([a, b]) => same(a, b))).toEqual([]);
  });

  it('counts only the comparisons that needed the engine', () => {
    const counts = emptySymbolicCounts();
    sameMath('5', '7', counts); // plain numbers: decided by their canonical strings
    sameMath('odd', 'even', counts); // words
    sameMath('x+1', 'x+1', counts);
    expect(counts).toEqual({ comparisons: 0, equal: 0 });
    sameMath('x+1', '1+x', counts);
    sameMath('\\sqrt{8}', '3', counts);
    expect(counts).toEqual({ comparisons: 2, equal: 1 });
  });
});

describe('interning MATH answers', () => {
  const response = (id: string, question: string, answer: string | null): CacheLine => ({
    type: 'response',
    id,
    question,
    agent: 'a1',
    round: 1,
    sample: Number(id.split('s')[1] ?? 0),
    context: [],
    prev: null,
    text: '',
    answer,
    inTokens: 1,
    outTokens: 1,
  });
  const cache = cacheFromRecords([
    { type: 'cache', format: 'cpp-debate-cache', version: 1, name: 'm', source: 'recorded' },
    { type: 'agent', id: 'a1', model: 'm', priceIn: 1e-6, priceOut: 1e-6 },
    { type: 'question', id: 'q1', text: 'Simplify.', gold: '\\frac{\\sqrt{2}}{2}', benchmark: 'MATH', answerType: 'math', split: 'test', promptTokens: 5 },
    { type: 'question', id: 'q2', text: 'Solve.', gold: '5 \\text{ or } 9', benchmark: 'MATH', answerType: 'math', split: 'test', promptTokens: 5 },
    response('r1s0', 'q1', '\\frac{1}{\\sqrt{2}}'),
    response('r1s1', 'q1', '\\frac{\\sqrt2}{2}'),
    response('r1s2', 'q1', '\\sqrt{2}'),
    response('r2s0', 'q2', 'x = 9 \\text{ or } x = 5'),
    response('r2s1', 'q2', '5'),
  ]);
  const ans = (id: string) => cache.responses[cache.responseIndex.get(id)!];

  it('gives equivalent answers to a question the key of its gold answer, and different ones their own', () => {
    expect([ans('r1s0').correct, ans('r1s1').correct, ans('r1s2').correct]).toEqual([true, true, false]);
    expect(ans('r1s0').ans).toBe(cache.questions[0].goldKey);
    expect([ans('r2s0').correct, ans('r2s1').correct]).toEqual([true, false]); // "5 or 9" is not read as 5
    // \frac{1}{\sqrt{2}} and \sqrt{2} against the gold; the rest match as strings or differ in shape.
    expect(cache.symbolic).toEqual({ comparisons: 2, equal: 1 });
  });
});
