// A MATH reading that is a step of the working rather than a value: stored only where the
// settled reading confirms it as a value, or, for arithmetic of numbers, as the value the symbolic
// engine computes when the settled reading does not contradict it (src/answer.ts). Three kinds:
//   arithmetic  numbers joined by operators, "12\times 7", "5+3", "3\cdot 4" (a fraction "3/4" or
//               "\frac{3}{4}", a single power "2^{10}" and a signed number are values);
//   restated    an expression with an operator that the question itself writes ("$121_3 + 22_4$");
//   unknown     an expression in the unknown the question asks for ("5x+40", "2^{y+1}" where the
//               question asks to find x or y), not an assignment of it ("x = 5" is 5).
import { normalizeMath, unwrapMath } from './normalize.ts';

/** A math string with spacing, size commands and delimiters gone: "$\left( 1 + 2 \right)$" is "(1+2)". */
const squash = (s: string) =>
  unwrapMath(s)
    .replace(/\\(?:left|right|displaystyle|[,;:! ])|\$|\s+/g, '')
    .replace(/\\[dt]frac/g, '\\frac');

const OPERATOR = String.raw`(?:[+\-*×÷^]|\\times|\\cdot|\\div)`;
const LITERAL = String.raw`[({]*\d+(?:\.\d+)?[)}]*`;
const ARITHMETIC = new RegExp(String.raw`^-?${LITERAL}(?:${OPERATOR}-?${LITERAL})+$`);
// A single power of numbers ("2^{10}", "10^5") is a final form MATH answers use, not a step.
const POWER = new RegExp(String.raw`^${LITERAL}\^${LITERAL}$`);
// "Solve for $x$", "find $y$", "what is the value of $n$", "compute $k$", "$x = ?$".
const ASKED =
  /\b(?:solve for|find|determine|compute|what is|value of|values of)\s+(?:the\s+)?(?:(?:positive|negative|real|integer|smallest|largest|greatest|least)\s+)*\$?\s*([a-zA-Z])\s*\$?(?=[\s.,?:;]|$)/gi;

/** The expressions a question writes: each math segment, and each side of its equations, squashed. */
function questionExpressions(question: string): Set<string> {
  const segments = [...question.matchAll(/\$\$([^$]+)\$\$|\$([^$]+)\$|\\\(([\s\S]+?)\\\)|\\\[([\s\S]+?)\\\]/g)].map((m) =>
    squash(m[1] ?? m[2] ?? m[3] ?? m[4]),
  );
  return new Set(segments.flatMap((m) => [m, ...m.split(/=|\\approx/)]).filter(Boolean));
}

/** The single-letter unknowns a question asks for. */
export function askedUnknowns(question: string): string[] {
  return [...new Set([...question.matchAll(ASKED)].map((m) => m[1]).filter((v) => !/^[aAI]$/.test(v)))];
}

/** A question's expressions and unknowns, for the last question asked (import reads a problem's replies one after another). */
let facts: { question: string; expressions: Set<string>; unknowns: string[] } | undefined;
function questionFacts(question: string) {
  if (facts?.question !== question) facts = { question, expressions: questionExpressions(question), unknowns: askedUnknowns(question) };
  return facts;
}

export type Unevaluated = 'arithmetic' | 'restated' | 'unknown';

/** Which kind of unevaluated expression (see the header) a stored MATH answer is for `question`, or null when it is a value. */
export function unevaluated(answer: string, question: string): Unevaluated | null {
  const { expressions, unknowns } = questionFacts(question);
  const s = squash(answer).replace(/\^\{?\\circ\}?/g, ''); // a degree sign is no operator
  if (ARITHMETIC.test(s) && !POWER.test(s)) return 'arithmetic';
  if (/[+\-*^=×÷]|\\times|\\cdot|\\div/.test(s.replace(/^-/, '')) && expressions.has(s)) return 'restated';
  if (!unknowns.length) return null;
  const normalized = normalizeMath(answer) ?? '';
  const bare = normalized.replace(/\\[a-zA-Z]+/g, ' ');
  return unknowns.some((v) => new RegExp(`(?<![a-zA-Z])${v}(?![a-zA-Z])`).test(bare)) ? 'unknown' : null;
}
