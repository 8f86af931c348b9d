// Reading answers: what a response states (extraction) and when two answers are the same
// (normalization, then symbolic equivalence for MATH). docs/import.md's "How answers are read"
// states the same rules for users; keep the two in step.
//
//   mcq      the option a response states, by letter or by the option's text (the question's
//            options, when known: `questionOptions`); rules in answer/mcq.ts. Stored as the letter.
//   numeric  the stated number (rules in answer/statement.ts: \boxed{}, answer statements, concluding
//            sentences; an expression's result, not its first number), compared as numbers.
//   math     the stated LaTeX answer (same rules), normalized (answer/normalize.ts: spacing, units,
//            degree signs, thousands separators, \frac and decimals of the same rational, lists as
//            sets), then, where the strings still differ, compared as mathematics by
//            @cortex-js/compute-engine (answer/equivalence.ts) when a cache is loaded.
// An answer that cannot be read is `null`: never guessed.
import { extractMcq, normalizeMcq, questionOptions, type McqOption } from './answer/mcq.ts';
import { normalizeMath, normalizeNumeric } from './answer/normalize.ts';
import { statedAnswer } from './answer/statement.ts';

export { questionOptions, type McqOption } from './answer/mcq.ts';
export { lastBoxed } from './answer/statement.ts';
export { emptySymbolicCounts, sameMath, type SymbolicCounts } from './answer/equivalence.ts';

export const ANSWER_TYPES = ['mcq', 'numeric', 'math'] as const;
export type AnswerType = (typeof ANSWER_TYPES)[number];

/**
 * The raw answer a response states under its question's answer type: for mcq the option letter
 * (`options`: the question's options, to read an answer given by the option's text), else the
 * stated value as written; null when it states none.
 */
export function extractAnswer(text: string, type: AnswerType, options: McqOption[] = []): string | null {
  return type === 'mcq' ? extractMcq(text, options) : statedAnswer(text);
}

/** Normalized form of a raw answer for a benchmark's answer type, or null when unparseable. */
/** The answer a response to `question` states: its options (cited by text) are read from the question for mcq. */
export const answerTo = (text: string, question: { text: string; answerType: AnswerType }): string | null =>
  extractAnswer(text, question.answerType, question.answerType === 'mcq' ? questionOptions(question.text) : []);

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
