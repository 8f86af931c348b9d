import { describe, expect, it } from 'vitest';
import { extractAnswer, lastBoxed, normalizeAnswer, questionOptions, readAnswer, storedAnswer } from '../../src/answer.ts';
import { statedInClosing } from '../../src/answer/closing.ts';

describe('answers', () => {
  it('takes the last boxed answer, nested braces included', () => {
    expect(lastBoxed('x \\boxed{1} then \\boxed{\\frac{9\\pi}{2}} end')).toBe('\\frac{9\\pi}{2}');
    expect(lastBoxed('no box')).toBeNull();
    expect(lastBoxed('\\boxed{unclosed')).toBeNull();
  });

  it('falls back to the last "The answer is"', () => {
    expect(extractAnswer('First the answer is 3. Then The answer is (B).', 'math')).toBe('(B)');
    expect(extractAnswer('The answer is $12$.', 'math')).toBe('12');
    expect(extractAnswer('I do not know', 'math')).toBeNull();
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

  it('makes equal MATH answers compare equal, and keeps different ones apart', () => {
    const same = (a: string, b: string) => expect(normalizeAnswer(a, 'math'), `${a} vs ${b}`).toBe(normalizeAnswer(b, 'math'));
    same('\\left( 1, 4 \\right)', '(1,4)');
    same('\\dfrac{1}{2}', '\\tfrac12');
    same('\\frac{1}{2}', '0.5');
    same('1/2', '.5');
    same('\\frac{-3}{4}', '-0.75');
    same('15,000', '15000');
    same('2.50', '2.5');
    same('3.0', '3');
    same('12\\!000', '12000');
    same('90^\\circ', '90');
    same('90^{\\circ}', '90°');
    same('12 inches', '12');
    same('5\\text{ cm}^2', '5');
    same('10 square units', '10');
    same('\\$18.90', '18.9');
    same('50\\%', '50');
    same('x = 5', '5');
    same('\\sqrt3', '\\sqrt{3}');
    expect(normalizeAnswer('7,9,12,13', 'math')).toBe('7,9,12,13'); // a list, not a thousands separator
    expect(normalizeAnswer('\\frac{1}{3}', 'math')).toBe('1/3');
    expect(normalizeAnswer('\\frac{1}{3}', 'math')).not.toBe(normalizeAnswer('0.333', 'math'));
    expect(normalizeAnswer('\\frac{9\\pi}{2}', 'math')).toBe('\\frac{9\\pi}{2}');
    expect(normalizeAnswer('\\text{Monday}', 'math')).toBe('Monday');
  });

  it('reads a concluding statement only when it states a value', () => {
    expect(extractAnswer('Therefore, the value of $n$ is $11$.', 'math')).toBe('11');
    expect(extractAnswer('Adding 6 to both sides gives $n = 11$. Therefore, the value of $n$ is 11.', 'math')).toBe('11');
    expect(extractAnswer('Therefore, the integers in increasing order are:\n\n$2, 11, 14, 15$', 'math')).toBe('2, 11, 14, 15');
    expect(extractAnswer('Therefore, there are 34,650 ways to arrange the letters.', 'math')).toBe('34,650');
    expect(extractAnswer('Therefore, $x = \\frac{21}{31}$.', 'math')).toBe('\\frac{21}{31}');
    expect(extractAnswer('So the son is currently 6 years old.', 'math')).toBe('6');
    expect(extractAnswer('Therefore, the probability is 1/12, or approximately 0.0833.', 'math')).toBe('1/12');
    // Wordy or hedged conclusions are not answers.
    expect(extractAnswer('Therefore, the measure is between 0 and 36 degrees.', 'math')).toBeNull();
    expect(extractAnswer('Therefore, the maximum is either $\\frac{1}{4}$ or $\\frac{1}{16},$ depending on the approach.', 'math')).toBeNull();
    expect(extractAnswer('It is important to double-check the final answer.', 'math')).toBeNull();
    // A point followed by the condition it holds under states the point.
    expect(extractAnswer('Thus, the curve passes through the point $(15,-29)$ at $t=2$.', 'math')).toBe('(15,-29)');
    // "The answer is" statements: a verdict on another answer is none; a later conclusion wins.
    expect(extractAnswer('Their answer is 12. Therefore, the correct answer is that there is no solution.', 'math')).toBeNull();
    expect(extractAnswer('The answer is correct.', 'math')).toBeNull();
    expect(extractAnswer('The answer is 4. Checking again, so the total is 5.', 'math')).toBe('5');
    expect(extractAnswer('My updated answer is the same as theirs: 371146600.', 'math')).toBe('371146600');
    expect(extractAnswer('The updated answer is that there are four primes: 13, 23, 43, and 73.', 'math')).toBe('4');
    // An answer sentence naming exactly one number states it; with two it states none.
    expect(extractAnswer('The answer is: the car travels 137.5 feet from the time the brakes are applied to the stop.', 'math')).toBe('137.5');
    expect(extractAnswer('The answer is either 12 or 28, depending on the form of n.', 'math')).toBeNull();
    expect(normalizeAnswer('6 3/4', 'math')).toBe(normalizeAnswer('6\\frac{3}{4}', 'math'));
    expect(normalizeAnswer('\\frac{-1}{32x}', 'math')).toBe(normalizeAnswer('-\\frac{1}{32x}', 'math'));
  });

  it('reads the options a question lists, in the layouts debate code bases use', () => {
    const texts = (q: string) => questionOptions(q).map((o) => `${o.letter}=${o.text}`);
    expect(
      texts(
        'Can you answer the following question as accurately as possible? Which is a prime?: A) 4, B) 6, ' +
          'C) 7, D) 9 Explain your answer, putting the answer in the form (X) at the end of your response.',
      ),
    ).toEqual(['A=4', 'B=6', 'C=7', 'D=9']);
    expect(texts('Which organelle makes ATP?\n(A) Ribosome\n(B) Mitochondrion\n(C) Nucleus\nAnswer:')).toEqual(['A=Ribosome', 'B=Mitochondrion', 'C=Nucleus']);
    expect(texts('Pick one.\nA. It rises\nB. It falls\nC: It stays')).toEqual(['A=It rises', 'B=It falls', 'C=It stays']);
    // The longest run, the last on a tie.
    expect(texts('Example: (A) x (B) y\n\nQuestion: ' + 'which? (A) cat (B) dog (C) cow')).toEqual(['A=cat', 'B=dog', 'C=cow']);
    expect(texts('What is 2+2? Show your work.')).toEqual([]);
    expect(texts('Option (A) only.')).toEqual([]); // one marker is no list
  });

  it('reads a multiple-choice answer by letter, or by text when the options are known', () => {
    const options = questionOptions('Capital of Australia? A) Sydney, B) Melbourne, C) Canberra, D) Perth');
    expect(extractAnswer('The answer is Canberra.', 'mcq', options)).toBe('C');
    expect(extractAnswer('The answer is Canberra.', 'mcq')).toBeNull();
    expect(extractAnswer('I first said (A). The answer is (C).', 'mcq')).toBe('C');
    expect(normalizeAnswer('**C**', 'mcq')).toBeNull(); // a stored answer must be the parsed form
  });

  it('stores only what parses under its type: the one rule of import and cache validate', () => {
    expect(storedAnswer('(1,4).', 'math')).toBe('(1,4)'); // closing punctuation off
    expect(storedAnswer(', which is 431', 'numeric')).toBeNull();
    expect(storedAnswer(', which is 431', 'math')).toBeNull();
    expect(storedAnswer('.', 'math')).toBeNull();
    expect(storedAnswer('\\frac{1}{2', 'math')).toBeNull(); // unbalanced
    expect(storedAnswer('\\text{all nonnegative real numbers except }0', 'math')).toBeNull(); // prose
    expect(storedAnswer('12+40*79', 'numeric')).toBeNull(); // an expression is no number
    for (const kept of ['\\text{odd}', 'A, B, E', '+\\infty', '\\begin{pmatrix} 1 \\\\ 2 \\end{pmatrix}', 'x^2+1', '-3'])
      expect(storedAnswer(kept, 'math')).toBe(kept);
    // What readAnswer stores is what storedAnswer keeps; a reading that does not parse is dropped and said.
    expect(readAnswer('The answer remains the same, which is 431.', 'numeric')).toEqual({ answer: '431' });
    expect(readAnswer('The answer is 12+40*79+50-35*28.', 'numeric')).toEqual({ answer: null, dropped: '12+40*79+50-35*28' });
  });

  it('marks a read ambiguous where two readings disagree, and stores none', () => {
    expect(readAnswer('So the answer is $\\boxed{12}$. Rechecking the last step, the answer is 15.', 'math')).toEqual({
      answer: null,
      ambiguous: ['12', '15'],
    });
    expect(readAnswer('The answer is (A) or (C).', 'mcq')).toEqual({ answer: null, ambiguous: ['A', 'C'] });
    // The same answer twice, or a revision in prose, is no ambiguity.
    expect(readAnswer('So the answer is $\\boxed{12}$. The other agents agree: the answer is 12.', 'math')).toEqual({ answer: '12' });
    expect(readAnswer('Initially I thought the answer is (A). On reflection, the answer is (C).', 'mcq')).toEqual({ answer: 'C' });
  });

  it('finds a stored answer in the closing sentences in any of its written forms (the misread audit)', () => {
    expect(statedInClosing('So the total is 48 * 220 = 10,560 ways.', '10560', 'numeric')).toBe(true);
    expect(statedInClosing('Therefore, the answer is $\\dfrac{1}{2}$.', '0.5', 'math')).toBe(true);
    expect(statedInClosing('The solutions are $a = \\frac43$ and $a = \\frac{416}{27}$.', '\\frac43, \\frac{416}{27}', 'math')).toBe(true);
    expect(statedInClosing('There are four triangles.', '4', 'math')).toBe(true);
    expect(statedInClosing('Canberra is the capital. The answer is (C).', 'C', 'mcq')).toBe(true);
    const options = questionOptions('Capital? A) Sydney, B) Melbourne, C) Canberra, D) Perth');
    expect(statedInClosing('It is Canberra, the seat of government.', 'C', 'mcq', options)).toBe(true);
    // The value taken from the middle of a reply that ends on another is what the audit lists.
    const middle =
      'The wire is 72 cm long. Each piece is 36 cm. Each circle has radius 5.73 cm. Then the areas are added. ' +
      'So the sum of the areas is approximately 206.84 cm^2.';
    expect(statedInClosing(middle, '72', 'math')).toBe(false);
    expect(statedInClosing('The answer is (B). Agent 2 is right about the history, but the capital is not in question.', 'C', 'mcq')).toBe(false);
  });
});

describe('options read by their text', () => {
  it('reads a list of options changed in place by its new texts, not by texts kept from an earlier reading', () => {
    const options = questionOptions('Which city is the capital? (A) Sydney (B) Canberra (C) Perth');
    expect(extractAnswer('The answer is Canberra.', 'mcq', options)).toBe('B');
    options[0].text = 'Canberra';
    options[1].text = 'Melbourne';
    expect(extractAnswer('The answer is Canberra.', 'mcq', options)).toBe('A');
  });
});
