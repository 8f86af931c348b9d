// Two readings that must agree: the stated answer, checked against the value the reply
// settles on at its end; an unevaluated expression stored only where confirmed. The invented styles
// that were misread, each once: without the check, each would store the expression or the earlier value.
import { describe, expect, it } from 'vitest';
import { questionOptions, readAnswer } from '../../src/answer.ts';
import { settledOption, settledValue } from '../../src/answer/settled.ts';
import { readStatement } from '../../src/answer/statement.ts';
import { unevaluated } from '../../src/answer/unevaluated.ts';

const CAPITAL = 'Which city is the capital of Australia? A) Sydney, B) Melbourne, C) Canberra, D) Perth';
const ORGANELLE = 'Which organelle produces most ATP? A) Ribosome B) Mitochondrion C) Golgi apparatus D) Nucleus';

describe('the settled reading', () => {
  it('takes the value the last sentence holding one closes on, its box first', () => {
    expect(settledValue('So $2^{y+1}$ must equal 8, giving $y = 2$.')).toBe('2');
    expect(settledValue('The total is $12 \\times 7$, which is 84 apples.')).toBe('84');
    expect(settledValue('The sum is $-1+5=\\boxed{4}$. We follow the first agent, who also got 4.')).toBe('4');
    expect(settledValue('Therefore, $\\boxed{12}$ is equal to 144.')).toBe('144');
    expect(settledValue('The answer is 55, which is 5 more than 50.')).toBeNull(); // a comparison: no settled value
    expect(settledValue('Volume = (4/3)π(8) = 32π/3 cubic units.')).toBeNull(); // numbers inside a plain-text expression
    expect(settledValue('The answer is 7. I hope this helps!')).toBe('7');
    expect(settledValue('We get 3. Note that 5 is not a solution.')).toBe('3');
  });

  it('takes the one option the last sentence naming any names, by letter, text, place or paraphrase; none when it names two', () => {
    const o = questionOptions(CAPITAL);
    expect(settledOption('Sydney is larger. The capital is Canberra.', o)).toBe('C');
    expect(settledOption('Sydney is larger, but the capital is Canberra.', o)).toBeNull(); // one sentence naming two
    expect(settledOption('I pick the second option.', o)).toBe('B');
    expect(settledOption('It is (A) or (C).', o)).toBeNull();
    expect(settledOption('The answer is (C).\n(A) Sydney is large.\n(B) Melbourne was first.', o)).toBe('C'); // list lines name no choice
    expect(settledOption('The powerhouse of the cell is the mitochondria.', questionOptions(ORGANELLE))).toBe('B');
  });
});

describe('two readings that must agree', () => {
  const math = (text: string, question = '') => readAnswer(text, 'math', [], question);

  it('stores no answer where they disagree, and keeps both', () => {
    expect(math('The answer is $2^{y+1}$, which must equal 8, giving $y = 2$.', 'Solve for $y$: $2^{y+1} = 8$.')).toEqual({
      answer: null,
      disagreement: ['2^{y+1}', '2'],
    });
    // A decimal from an intermediate step where the final integer comes later.
    expect(readAnswer('The answer is 3.5. Rounding up, each task takes 4 hours.', 'numeric')).toEqual({ answer: null, disagreement: ['3.5', '4'] });
    expect(readAnswer('The answer is (B). Canberra, however, is where parliament sits, so it fits best.', 'mcq', questionOptions(CAPITAL))).toEqual({
      answer: null,
      disagreement: ['B', 'C'],
    });
  });

  it('refuses a restated question expression and an expression in the unknown asked for', () => {
    const question = 'Compute $121_3 + 22_4$ in base 10.';
    expect(unevaluated('121_3 + 22_4', question)).toBe('restated');
    expect(math('Converting, $121_3 = 16$ and $22_4 = 10$, so the sum is 26. The answer is $121_3 + 22_4$.', question).answer).toBeNull();
    expect(unevaluated('5x + 40', 'Find $x$ if $5(x+8) = 55$.')).toBe('unknown');
    expect(math('Expanding gives $5(x + 8) = 5x + 40$. The answer is $5x + 40$.', 'Find $x$ if $5(x+8) = 55$.').answer).toBeNull();
    expect(unevaluated('x^3 - 1', 'Find the remainder when $x^9 - x^6 + x^3 - 1$ is divided by $x^2 + x + 1$.')).toBeNull(); // a part, not the whole
    expect(unevaluated('2^{10}', '')).toBeNull(); // a single power is a final form
  });

  it('stores arithmetic of numbers as the value the settled reading or the engine confirms', () => {
    expect(math('The total is $12 \\times 7$, which is 84 apples.').answer).toBe('84');
    expect(readAnswer('The total is $12 \\times 7$, which is 84 apples.', 'numeric').answer).toBe('84');
    expect(math('The answer is $12 \\times 7$.').answer).toBe('84');
    expect(math('Expanding gives $5(x + 8) = 5x + 40$. Plugging in, the answer is 55.', 'What is $5(x+8)$ when $x = 3$?').answer).toBe('55');
  });

  it('reads an option named by its place or a paraphrase, and none where two are named unsettled', () => {
    expect(readAnswer('The answer is the third option.', 'mcq', questionOptions(CAPITAL)).answer).toBe('C');
    expect(readAnswer('The answer is the powerhouse of the cell, the mitochondria.', 'mcq', questionOptions(ORGANELLE)).answer).toBe('B');
    expect(readAnswer('The answer is Sydney or Canberra.', 'mcq', questionOptions(CAPITAL)).answer).toBeNull();
  });
});

// The classes the first held-out group and dylan-math's tuned files showed:
// each rule with invented examples; without it, each would store a wrong value or refuse a right one.
describe('wrong values the readings no longer store', () => {
  const math = (text: string, question = '') => readAnswer(text, 'math', [], question);

  it('keeps an equation in one unknown whole: no value of the unknown, so nothing is stored', () => {
    expect(math('Subtracting 2, $4m = 28$. Therefore $4m = 28$.', 'Find $m$ if $4m + 2 = 30$.')).toEqual({ answer: null, disagreement: ['4m = 28', '28'] });
    expect(readAnswer('Five packs make 35 pens. Therefore $5p = 35$.', 'numeric').answer).toBeNull();
    expect(math('Therefore, $2k = 18$, so $k = 9$.', 'Find $k$.').answer).toBe('9');
    expect(math('Therefore, $\\frac{ab^2}{c} = 2c - 3$.').answer).toBe('2c - 3'); // an expression of several letters is a name of the quantity
    expect(math('So, $\\frac{m+1}{3} + 2m + \\frac{2m+2}{3} = 3m + 1$.').answer).toBe('3m + 1'); // simplified in its unknown: an identity, no equation
  });

  it('stores nothing where the reply closes on a value of another letter than the one asked for', () => {
    const question = 'Find $x$ if $2x - y = 4$ and $y = 2x - 4$.';
    expect(math('Substituting, $y = 2(3) - 6$, so we get $y = 0$.', question)).toEqual({ answer: null, disagreement: ['0', 'y = 0'] });
    expect(math('Substituting, we get $x = 3$.', question).answer).toBe('3');
    expect(math('So the answer is $k = 7$.', 'Find the least $n$ such that $n^2 > 40$.').answer).toBe('7'); // an answer statement names the answer
  });

  it('stores the format the question asks for where a value is written as a decimal and a percentage', () => {
    expect(readAnswer('P = 6/20 = 0.3, or 30%.', 'numeric', [], 'What is the probability of drawing red?').answer).toBe('0.3');
    expect(readAnswer('That is 28/40 = 0.7, which is 70%.', 'numeric', [], 'What percent of the class passed?').answer).toBe('70%');
    expect(math('So $\\frac{5}{8} = 0.625$, which is $62.5\\%$.', 'Write $\\frac{5}{8}$ as a percent.').answer).toBe('62.5\\%');
    expect(readAnswer('The share is 40%.', 'numeric', [], 'What share of the budget is rent?').answer).toBe('40%'); // no other format written
  });

  it('reads the residue a congruence of a number states, not a congruence of an unknown', () => {
    expect(math('So $3^{5} = 243 \\equiv 3 \\pmod{10}$.')).toEqual({ answer: '3' });
    expect(math('Hence $578 \\equiv 2 \\ (\\text{mod } 8)$.').answer).toBe('2');
    expect(math('Therefore $n \\equiv 3 \\pmod 7$.').answer).not.toBe('3');
    expect(math('Therefore, $n = 45$ satisfies $13n \\equiv 5 \\pmod{58}$.').answer).toBe('45'); // a congruence of an unknown states nothing
  });

  it('takes the value a box is said to equal, in both readings', () => {
    expect(settledValue('Therefore $\\boxed{9}=81$.')).toBe('81');
    expect(math('Therefore $\\boxed{9}=81$.').answer).toBe('81');
  });

  it('stores arithmetic of numbers that both readings take, where the engine cannot give it exactly', () => {
    expect(math('Thus $b - a = \\boxed{987654321^3 - 1}$.').answer).toBe('987654321^3 - 1');
  });
});

describe('right values the readings no longer refuse', () => {
  const math = (text: string, question = '') => readAnswer(text, 'math', [], question);

  it('passes over checks, notes and rejected values after the answer', () => {
    expect(math('So the answer is $\\boxed{96}$. (Check: $96 / 8 = 12$.)').answer).toBe('96');
    expect(settledValue('The answer is $\\boxed{96}$.\n\nCheck: $96 / 8 = 12$.')).toBe('96');
    expect(settledValue('The total is $96$.\n\n*Note: the tax alone is 6.*')).toBe('96');
    expect(math('Hence $\\boxed{5}$.\n\nCheck: $2(5) + 3 = 13$.').answer).toBe('5');
    expect(math('Hence $x = 5$.\n\nTo verify, $2(5) + 3 = 13$, as required.').answer).toBe('5');
    expect(readAnswer('**Final Answer:** 54\n\n*Note: the tax alone is 6.*', 'numeric').answer).toBe('54');
    expect(math('So $x = 4$. I should note that $x = -4$ also satisfies $x^2 = 16$, but lengths are positive.').answer).toBe('4');
    expect(math('Thus $x = 6$. The root $x = -2$ is extraneous.').answer).toBe('6');
    expect(settledValue('So there are 12 runners in the 100-meter final.')).toBe('12'); // a number joined to a word describes
  });

  it("does not take a box named as another agent's, in either reading", () => {
    const text = "So the answer is $\\boxed{263}$.\n\nNote: Agent 2's answer $\\boxed{263_{10}}$ is the same number with its base.";
    expect(settledValue(text)).toBe('263');
    expect(math(text).answer).toBe('263');
    expect(settledValue("So the answer is $\\boxed{263}$. Agent 2's answer $\\boxed{263_{10}}$ is the same number with its base.")).toBe('263');
  });

  it('reads "#### N", "which comes to", a result clause and a sentence after "Final Answer:"', () => {
    expect(readAnswer('She has 3 + 4 = 7 left.\n#### 7', 'numeric').answer).toBe('7');
    expect(readAnswer('The total is $9 \\times 6$, which comes to 54 stamps. That is all of them.', 'numeric').answer).toBe('54');
    expect(settledValue('The total is $9 \\times 6$, which comes to 54 stamps.')).toBe('54');
    expect(readStatement('The answer is 9 × 6, which comes to 54 stamps.').answer).toBe('54');
    expect(math('We need $3^{z-1} = 9 = 3^2$, so the exponents match: $z - 1 = 2$, giving $z = 3$.', 'Solve for $z$: $3^{z-1} = 9$.').answer).toBe('3');
    expect(math('**Final Answer:** The $x$-intercept is $4$.').answer).toBe('4');
  });

  it('reads a verdict on an option written with its text, the other option named after it', () => {
    expect(readAnswer('Of these, (C) Canberra is correct; (A) Sydney is merely the largest city.', 'mcq', questionOptions(CAPITAL)).answer).toBe('C');
  });

  it('reads a bound a chain of relations computes, and abstains on any other relation', () => {
    expect(settledValue('By AM-HM, $\\frac{1}{a} + \\frac{4}{b} \\ge \\frac{9}{a + b} = 9$.')).toBe('9');
    expect(settledValue('Therefore $f(2) \\geq 8$.')).toBeNull();
    expect(settledValue('Then $ab + bc \\le \\frac{(b+c)^2}{2} = \\frac{b^2 + c^2}{2}$.')).toBeNull();
  });
});
