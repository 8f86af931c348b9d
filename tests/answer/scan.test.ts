// The quick scans of the multiple-choice readings (src/answer/scan.ts), each against the pattern it
// stands for: on texts made of the characters that decide them (sentence ends, every kind of space
// and line end, list markers), and on hand-picked cases.
import { describe, expect, it } from 'vitest';
import { bareLine, lastSentenceOf, lineStartMatches } from '../../src/answer/scan.ts';

// Seeded texts of the characters the patterns turn on: the same texts every run.
function texts(alphabet: string[], count: number, seed = 1): string[] {
  let s = seed;
  const next = () => (s = (s * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  return Array.from({ length: count }, () => Array.from({ length: Math.floor(next() * 24) }, () => alphabet[Math.floor(next() * alphabet.length)]).join(''));
}

describe('the last sentence of a text', () => {
  const SPLIT = /(?<=[.!?])\s+|\n/;
  const cases = [
    '',
    'The answer is (C).',
    'First. Second! Third? The answer is (C)',
    'Line one\nline two',
    'Ends with a stop. \n  \n and more',
    'no break  \n  here',
    'x.\u00a0\u2028y',
    'a.\r\nb',
    '\nstarts on a break',
    'tabs.\t\tend',
    'one\n\n\ntwo',
  ];
  it('is what follows the last break of the pattern', () => {
    for (const t of cases) expect(lastSentenceOf(t), JSON.stringify(t)).toBe(t.split(SPLIT).pop());
  });
  it('is the same on texts of sentence ends, spaces and line ends of every kind', () => {
    for (const t of texts(['a', 'b', '.', '!', '?', ' ', '\n', '\r', '\t', '\u00a0', '\u2028', '\u3000', 'x'], 20000))
      expect(lastSentenceOf(t), JSON.stringify(t)).toBe(t.split(SPLIT).pop());
  });
});

describe('the matches at line starts', () => {
  const LISTED = '[ \\t]*(?:[-*][ \\t]+)?(?:\\*\\*)?(?:\\([A-D]\\)|([A-D])[.):])';
  const sticky = new RegExp(LISTED, 'y');
  const whole = new RegExp(`^${LISTED}`, 'gm');
  const same = (t: string) => {
    const quick = lineStartMatches(t, sticky).map((m) => [m.index, m[0], m[1]]);
    expect(quick, JSON.stringify(t)).toEqual([...t.matchAll(whole)].map((m) => [m.index, m[0], m[1]]));
  };
  it('are the matches of the pattern after ^ (multiline)', () => {
    for (const t of ['A) Sydney\nB) Melbourne\n(C) Canberra', 'The answer is (A).', '  - **B. x\r\n* (D) y', 'x\u2028C) z\u2029D. w', 'A)', '\n\nB.']) same(t);
  });
  it('are the same on texts of list markers, spaces and line ends of every kind', () => {
    for (const t of texts(['A', 'B', 'E', ')', '(', '.', ':', ' ', '\t', '-', '*', '\n', '\r', '\u2028', 'x'], 20000, 7)) same(t);
  });
});

describe('a line without its marks', () => {
  const MARKS = /^[\s#>*-]+|[\s*]+$/g;
  it('is the line with the pattern of its leading and trailing marks replaced', () => {
    for (const t of ['', '**C**', '> - **Answer: C** *', '  ### (B)  ', '* *', '-- x **', 'plain', ' \u00a0#x\u2028'])
      expect(bareLine(t), JSON.stringify(t)).toBe(t.replace(MARKS, ''));
  });
  it('is the same on texts of marks, spaces and letters', () => {
    for (const t of texts(['#', '>', '*', '-', ' ', '\t', '\u00a0', '\u2028', 'x', 'C', '.', ')'], 20000, 3))
      expect(bareLine(t), JSON.stringify(t)).toBe(t.replace(MARKS, ''));
  });
});
