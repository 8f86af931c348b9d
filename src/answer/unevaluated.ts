// A MATH reading that is a step of the working rather than a value: stored only where the
// settled reading confirms it as a value, or, for arithmetic of numbers, as the value the symbolic
// engine computes when the settled reading does not contradict it (src/answer.ts). Three kinds:
//   arithmetic  numbers joined by operators, "12\times 7", "5+3", "3\cdot 4" (a fraction "3/4" or
//               "\frac{3}{4}", a single power "2^{10}" and a signed number are values);
//   restated    an expression with an operator that the question itself writes ("$121_3 + 22_4$");
//   unknown     an expression in the unknown the question asks for ("5x+40", "2^{y+1}" where the
//               question asks to find x or y), not an assignment of it ("x = 5" is 5), or in any
//               unknown where the question asks for a value, not an expression (given.ts).
import { ARITHMETIC, inUnknown, LITERAL, questionFacts, squash } from './given.ts';
import { normalizeMath } from './normalize.ts';

// A single power of numbers ("2^{10}", "10^5") is a final form MATH answers use, not a step.
const POWER = new RegExp(String.raw`^${LITERAL}\^${LITERAL}$`);

export type Unevaluated = 'arithmetic' | 'restated' | 'unknown';

/** Which kind of unevaluated expression (see the header) a stored MATH answer is for `question`, or null when it is a value. */
export function unevaluated(answer: string, question: string): Unevaluated | null {
  const { expressions, unknowns } = questionFacts(question);
  const s = squash(answer).replace(/\^\{?\\circ\}?/g, ''); // a degree sign is no operator
  if (ARITHMETIC.test(s) && !POWER.test(s)) return 'arithmetic';
  if (/[+\-*^=×÷]|\\times|\\cdot|\\div/.test(s.replace(/^-/, '')) && expressions.has(s)) return 'restated';
  if (inUnknown(answer, question)) return 'unknown';
  if (!unknowns.length) return null;
  const normalized = normalizeMath(answer) ?? '';
  const bare = normalized.replace(/\\[a-zA-Z]+/g, ' ');
  return unknowns.some((v) => new RegExp(`(?<![a-zA-Z])${v}(?![a-zA-Z])`).test(bare)) ? 'unknown' : null;
}
