// Reading answers: what a response states (extraction) and when two answers are the same
// (normalization, then symbolic equivalence for MATH). docs/import.md's "How answers are read"
// states the same rules for users; keep the two in step.
//
//   mcq      the option a response states, by letter or by the option's text (the question's
//            options, when known: `questionOptions`); rules in answer/mcq.ts. Stored as the letter.
//   numeric  the stated number (rules in answer/statement.ts and answer/conclusion.ts: \boxed{},
//            answer statements, concluding sentences; an expression's result, not its first number),
//            compared as numbers.
//   math     the stated LaTeX answer (same rules), normalized (answer/normalize.ts: spacing, units,
//            degree signs, thousands separators, \frac and decimals of the same rational, lists as
//            sets), then, where the strings still differ, compared as mathematics by
//            @cortex-js/compute-engine (answer/equivalence.ts) when a cache is loaded.
// Two readings must agree: the stated answer above, and the value the reply settles on
// at its end (answer/settled.ts: its closing sentence's last value or option, read by position).
// Where both give a value and they differ, where the stated answer is an unevaluated expression
// (answer/unevaluated.ts) that the settled reading does not confirm as a value, or where the reply
// closes on a value of another letter than the one the question asks for ("$y = 0$" where it asks
// for x), no answer is stored and both readings are kept (`disagreement`); arithmetic of numbers that
// nothing contradicts is stored as its value, computed by the symbolic engine ("12 \times 7" is 84).
// A value written as a decimal and as a percentage is stored in the format the question asks for.
// With the question's text, its own quantities are read (answer/given.ts): a given the closing
// sentence attributes to the question's data, or an expression in an unknown where it asks for a
// value, is passed over by the settled reading, and not stored where the stated reading took it. A
// plain statement of an option is read past an explanation that names no option as the answer; a
// plain answer the stated reading has no words for is read where the settled value is confirmed.
// An answer that cannot be read is `null`: never guessed. A reading that does not parse under its
// type (", which is 431" as a number) is dropped, never stored (`storedAnswer`, which `cache
// validate` applies too). A response that states two answers that disagree (a boxed answer and a
// later "the answer is", two options named at its end) has none, and is marked ambiguous.
import { normalizeMcq, questionOptions, readMcq, type McqOption } from './answer/mcq.ts';
import { normalizeMath, normalizeNumeric, wellFormedMath } from './answer/normalize.ts';
import { readStatement } from './answer/statement.ts';
import { plainAnswer, settle, settledOption, type Settled } from './answer/settled.ts';
import { unevaluated } from './answer/unevaluated.ts';
import { askedUnknowns } from './answer/given.ts';
import { arithmeticValue, sameMath } from './answer/equivalence.ts';
import { closingSentences } from './answer/closing.ts';

export { questionOptions, type McqOption } from './answer/mcq.ts';
export { lastBoxed } from './answer/statement.ts';
export { emptySymbolicCounts, sameMath, type SymbolicCounts } from './answer/equivalence.ts';

export const ANSWER_TYPES = ['mcq', 'numeric', 'math'] as const;
export type AnswerType = (typeof ANSWER_TYPES)[number];

/** What reading a response gave, as a cache stores it. */
export interface AnswerRead {
  /** The stated answer in a form that parses under its type; null when none, or when ambiguous or unparseable. */
  answer: string | null;
  /** Set when two readings disagree: each of them, in text order (null: a reading that denies any answer). */
  ambiguous?: (string | null)[];
  /** Set when the reading did not parse under its type: what it was (dropped, not stored). */
  dropped?: string;
  /** Set when the two readings disagree (or the settled one does not confirm a stated expression): [stated, settled]; answer null. */
  disagreement?: [string, string | null];
}

/** Normalized form of a raw answer for a benchmark's answer type, or null when unparseable. */
export function normalizeAnswer(raw: string | null, type: AnswerType): string | null {
  if (raw === null) return null;
  switch (type) {
    case 'mcq':
      return normalizeMcq(raw);
    case 'numeric':
      return normalizeNumeric(raw);
    case 'math':
      return normalizeMath(raw);
  }
}

/**
 * The stored form of a raw reading: trimmed, without closing punctuation ("(1,4)." is "(1,4)"); null
 * when it does not parse under its type (for MATH also when it is not well formed: unbalanced braces,
 * a dangling operator, prose). Import stores only this; `cache validate` rejects an answer it changes.
 */
export function storedAnswer(raw: string | null, type: AnswerType): string | null {
  if (raw === null) return null;
  const trimmed = raw.trim().replace(/\s*[.,;:]+$/, '');
  if (normalizeAnswer(trimmed, type) === null) return null;
  return type !== 'math' || wellFormedMath(trimmed) ? trimmed : null;
}

/** Whether two stored answers are the same value (normalized; numeric and MATH also as mathematics, so "12\\times7" is 84). */
function sameAnswer(a: string, b: string, type: AnswerType): boolean {
  if (a === b) return true;
  if (type === 'mcq') return normalizeMcq(a) === normalizeMcq(b);
  const [x, y] = [normalizeMath(a), normalizeMath(b)];
  if (x !== null && y !== null && sameMath(x, y)) return true;
  // "35.1%" and "0.351": a percentage and its fraction.
  const [p, q] = [a, b].map((s) => (/%\s*$/.test(s) ? normalizeNumeric(s) : null));
  const [u, v] = [normalizeNumeric(a), normalizeNumeric(b)];
  const near = (pct: string | null, n: string | null) => pct !== null && n !== null && Math.abs(Number(pct) / 100 - Number(n)) < 1e-12;
  return near(p, v) || near(q, u);
}

/**
 * The stated answer, checked against the value the reply settles on (see the header): the stored
 * answer where they agree (the settled value where the stated one is an unevaluated expression it
 * confirms), else none with both readings.
 */
function crossCheck(read: string, text: string, type: AnswerType, options: McqOption[], question: string, at?: number): AnswerRead {
  // A word answer ("odd", "Monday") is beyond a reading of values: only the stated reading has it.
  const value = type === 'mcq' ? null : /\d/.test(read) ? settle(text, question) : null;
  const settled = storedAnswer(type === 'mcq' ? settledOption(at === undefined ? text : explained(text, at), options) : (value?.value ?? null), type);
  // A value the settled reading passed over (a given the reply attributes to the question's data,
  // an expression in an unknown) is not the answer where the stated reading took it: the settled value is.
  const stated = settled !== null && passedOver(read, value, type) ? settled : read;
  const agree = settled !== null && sameAnswer(stated, settled, type);
  if (settled !== null && !agree) return { answer: null, disagreement: [stated, settled] };
  // A value the reply closes on as another letter's than the one the question asks for ("$y = 0$" where it asks for x) is not its answer.
  const unknowns = value?.assigns ? askedUnknowns(question) : [];
  if (unknowns.length && !unknowns.includes(value?.assigns ?? '')) return { answer: null, disagreement: [stated, `${value?.assigns} = ${settled}`] };
  const kind = type === 'math' ? unevaluated(stated, question) : null;
  if (kind === null) return { answer: stated };
  if (agree && unevaluated(settled, question) === null) return { answer: settled };
  // Arithmetic of numbers that nothing contradicts stands as its value, by the engine ("12 \\times 7"
  // is 84), or as written where the engine cannot give it exactly and both readings take it
  // ("123456790^3 - 1").
  const computed = kind === 'arithmetic' ? (arithmeticValue(normalizeMath(stated) ?? stated) ?? (agree ? stated : null)) : null;
  return computed !== null ? { answer: computed } : { answer: null, disagreement: [stated, settled] };
}

/** Whether the settled reading passed over `stated` as the question's data or an expression in an unknown. */
const passedOver = (stated: string, value: Settled | null, type: AnswerType) =>
  !!value?.passed?.some((p) => {
    const passed = storedAnswer(p, 'math');
    return passed !== null && sameAnswer(stated, passed, type === 'mcq' ? 'math' : type);
  });

// After a plain statement of an option, an explanation is no second reading: of the sentences after
// the statement's own, only those that state an option as the answer, or turn back on it, are read.
const AS_ANSWER =
  /\b(?:answer|correct|right|best|fits|choose|chose|pick|select|go with|should be|must be|instead|actually|wait|reconsider\w*|on reflection|however)\b|^\W*(?:so|therefore|thus|hence)\b|\([A-J]\)|\[[A-J]\]/i;
function explained(text: string, at: number): string {
  const end = text.slice(at).search(/[.!?](?=\s|$)|\n/);
  if (end < 0) return text;
  const cut = at + end + 1;
  const later = text.slice(cut).split(/(?<=[.!?])\s+|\n+/);
  return [text.slice(0, cut), ...later.filter((s) => AS_ANSWER.test(s))].join('\n');
}

const ASKS_PERCENT = /\bper ?cent|%|\bpercentage\b/i;
const WRITTEN_NUMBER = /(?<![\w.^_{])(-?\d+(?:\.\d+)?)(\s*\\?%)?/g;
/**
 * A value written in two formats at the reply's end ("0.375, i.e. 37.5%", "$0.375$, which is
 * $37.5\%$"): the one the question asks for, a percentage only where it asks for one ("what
 * percent"), else the plain number. Unchanged where the other format is not written.
 */
function formatAsked(answer: string, text: string, question: string): string {
  const percent = /%\s*$/.test(answer);
  const value = Number(normalizeNumeric(answer));
  if (percent === ASKS_PERCENT.test(question) || !Number.isFinite(value)) return answer;
  const want = percent ? value / 100 : value * 100;
  for (const m of closingSentences(text).matchAll(WRITTEN_NUMBER))
    if (!m[2] === percent && Math.abs(Number(m[1]) - want) < 1e-9 * Math.max(1, Math.abs(want))) return m[0].trim();
  return answer;
}

/**
 * The answer a response states under its question's answer type (`options`: the question's
 * options, to read an answer given by the option's text; `question`: its text, to tell a restated
 * question expression or an expression in the unknown it asks for): the stored form, with what
 * made it none.
 */
export function readAnswer(text: string, type: AnswerType, options: McqOption[] = [], question = ''): AnswerRead {
  const read = type === 'mcq' ? readMcq(text, options) : readStatement(text);
  if (read.ambiguous) return { answer: null, ambiguous: read.ambiguous.map((r) => (r === null ? null : r.trim())) };
  const answer = storedAnswer(read.answer, type);
  if (answer !== null) {
    const checked = crossCheck(answer, text, type, options, question, read.at);
    return type === 'mcq' || checked.answer === null ? checked : { answer: formatAsked(checked.answer, text, question) };
  }
  if (read.answer === null) {
    // A plain answer in words the stated reading does not know, confirmed by the reply's last solved assignment.
    const plain = type === 'mcq' || !question ? null : storedAnswer(plainAnswer(text, question), type);
    return { answer: plain };
  }
  // A reading that does not parse under its type ("12 \\times 7" as a number) stands only where the
  // settled value is its value, or where the settled reading passed it over ("a wall that is 12 \\times 9 square feet").
  const value = type === 'mcq' ? null : settle(text, question);
  const settled = storedAnswer(value?.value ?? null, type);
  return settled !== null && (sameAnswer(read.answer, settled, 'math') || passedOver(read.answer, value, 'math'))
    ? { answer: settled }
    : { answer, dropped: read.answer };
}

/** The stored answer a response states (`readAnswer`'s answer): for mcq the option letter, else the stated value. */
export const extractAnswer = (text: string, type: AnswerType, options: McqOption[] = [], question = ''): string | null =>
  readAnswer(text, type, options, question).answer;

/** The answer a response to `question` states, read as import reads it (its options, cited by text, read from the question for mcq). */
export const answerTo = (text: string, question: { text: string; answerType: AnswerType }): AnswerRead =>
  readAnswer(text, question.answerType, question.answerType === 'mcq' ? questionOptions(question.text) : [], question.text);
