// What a question gives, so that a reply's restatement of it is not read as its answer: the
// question's own quantities (each number it writes, each math segment and each side of its
// equations, and arithmetic of its numbers alone: "12 \times 9" where it gives 12 and 9), the
// unknowns it asks for, and whether it asks for an expression at all. settled.ts passes over a
// given the closing sentence attributes to the question's data ("a fraction whose value is 0.25",
// "a wall that is $12\times 9$ square feet") and over an expression in an unknown where the
// question asks for a value ("the sum is $4y + 190$"); unevaluated.ts tells a restated question
// expression from a value.
import { isClosed } from './conclusion.ts';
import { normalizeMath, unwrapMath } from './normalize.ts';

/** A math string with spacing, size commands and delimiters gone: "$\left( 1 + 2 \right)$" is "(1+2)". */
export const squash = (s: string) =>
  unwrapMath(s)
    .replace(/\\(?:left|right|displaystyle|[,;:! ])|\$|\s+/g, '')
    .replace(/\\[dt]frac/g, '\\frac');

const OPERATOR = String.raw`(?:[+\-*×÷^]|\\times|\\cdot|\\div)`;
export const LITERAL = String.raw`[({]*\d+(?:\.\d+)?[)}]*`;
/** Numbers joined by operators ("12\times 7", "5+3"; a fraction "3/4" is a value). */
export const ARITHMETIC = new RegExp(String.raw`^-?${LITERAL}(?:${OPERATOR}-?${LITERAL})+$`);
// A number the question writes: not an exponent, a subscript or part of a word.
const WRITTEN = /(?<![\w.^_{])\d+(?:,\d{3})*(?:\.\d+)?%?/g;
// "Solve for $x$", "find $y$", "what is the value of $n$", "compute $k$", "$x = ?$".
const ASKED =
  /\b(?:solve for|find|determine|compute|what is|value of|values of)\s+(?:the\s+)?(?:(?:positive|negative|real|integer|smallest|largest|greatest|least)\s+)*\$?\s*([a-zA-Z])\s*\$?(?=[\s.,?:;]|$)/gi;
// A question that asks for an expression: to simplify, expand or rewrite one, or for one in terms of a variable.
const ASKS_EXPRESSION =
  /\b(?:simplify|expand|factor|rewrite|write|express|combine|in terms of|as a function of|polynomial|quadratic|expression|equation of|quotient|remainder when|inverse|derivative|formula)\b/i;

export interface QuestionFacts {
  question: string;
  /** Its math segments and each side of their equations, squashed. */
  expressions: Set<string>;
  /** Its numbers and math segments, normalized as MATH answers. */
  given: Set<string>;
  /** The plain numbers it writes, normalized. */
  numbers: Set<string>;
  /** The single-letter unknowns it asks for. */
  unknowns: string[];
  asksExpression: boolean;
}

/** The single-letter unknowns a question asks for. */
export function askedUnknowns(question: string): string[] {
  return [...new Set([...question.matchAll(ASKED)].map((m) => m[1]).filter((v) => !/^[aAI]$/.test(v)))];
}

/** A question's facts, for the last question asked (import reads a problem's replies one after another). */
let facts: QuestionFacts | undefined;
export function questionFacts(question: string): QuestionFacts {
  if (facts?.question === question) return facts;
  const segments = [...question.matchAll(/\$\$([^$]+)\$\$|\$([^$]+)\$|\\\(([\s\S]+?)\\\)|\\\[([\s\S]+?)\\\]/g)].map((m) =>
    squash(m[1] ?? m[2] ?? m[3] ?? m[4]),
  );
  const expressions = new Set(segments.flatMap((m) => [m, ...m.split(/=|\\approx/)]).filter(Boolean));
  const numbers = new Set([...question.matchAll(WRITTEN)].map((m) => normalizeMath(m[0])).filter((n): n is string => n !== null));
  const given = new Set([...numbers, ...[...expressions].map((x) => normalizeMath(x)).filter((n): n is string => n !== null)]);
  facts = { question, expressions, given, numbers, unknowns: askedUnknowns(question), asksExpression: ASKS_EXPRESSION.test(question) };
  return facts;
}

/** Whether a value is one the question gives: a number or expression it writes, or arithmetic of its numbers alone ("12 \times 9"). */
export function isGiven(value: string, question: string): boolean {
  if (!question) return false;
  const { given, numbers } = questionFacts(question);
  const normalized = normalizeMath(value);
  if (normalized !== null && given.has(normalized)) return true;
  const s = squash(value);
  if (!ARITHMETIC.test(s)) return false;
  const parts = s.match(/\d+(?:\.\d+)?/g) ?? [];
  return parts.length >= 2 && parts.every((p) => numbers.has(normalizeMath(p) ?? p));
}

/** Whether a value is an expression in an unknown ("4y + 190", "\sqrt{x+5}") where the question asks for a value, not an expression. */
export function inUnknown(value: string, question: string): boolean {
  if (!question || questionFacts(question).asksExpression) return false;
  // A numeral in a base above ten writes digits as letters ("1A_{11}", "11C").
  if (/\bbase\b/i.test(question) && /^[0-9A-Z]+(?:_\{?\d+\}?)?$/.test(value.trim())) return false;
  const bare = value.replace(/\\text\{[^{}]*\}/g, '');
  return /\d|[+\-*/^]|\\/.test(bare) && !isClosed(bare.replace(/(?<![a-zA-Z\\])[ie](?![a-zA-Z])/g, ' ')) && /(?<![a-zA-Z\\])[a-zA-Z](?![a-zA-Z])/.test(bare);
}
