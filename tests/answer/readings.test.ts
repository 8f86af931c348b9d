// Two readings that must agree (issue 36): the stated answer, checked against the value the reply
// settles on at its end; an unevaluated expression stored only where confirmed. The invented styles
// of the issue, each once: without the check, each would store the expression or the earlier value.
import { describe, expect, it } from 'vitest';
import { questionOptions, readAnswer } from '../../src/answer.ts';
import { settledOption, settledValue } from '../../src/answer/settled.ts';
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
