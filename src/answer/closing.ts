// Whether a stored answer appears in the closing sentences of its reply: the check behind `cache
// audit`, which lists the replies where it does not, so that suspected misreads can be read by eye.
// It does not read the answer again (readers have their rules): it only looks for the stored value,
// in any of its written forms, where replies state their answers, at the end.
import type { McqOption } from './mcq.ts';
import { normalizeMath, normalizeNumeric } from './normalize.ts';
import { splitTopLevel } from './structure.ts';
import { NUMBERS, WORD_NUMBER, wordToNumber } from './conclusion.ts';

const WORD_NUMBERS = new RegExp(String.raw`\b${WORD_NUMBER}\b`, 'gi');

/** How many closing sentences are searched. */
export const CLOSING_SENTENCES = 3;

/** The last `n` sentences of a reply (paragraphs and sentence ends split it; a display of several lines is one), as one string. */
export function closingSentences(text: string, n = CLOSING_SENTENCES): string {
  const sentences = text
    .trim()
    .split(/\n\s*\n|(?<=[.!?])\s+(?=[A-Z(\\$*])/)
    .filter((s) => s.trim());
  return sentences.slice(-n).join(' ');
}

/** A math string with its spacing, math delimiters and size commands gone: "$\left( 1, 4 \right)$" is "(1,4)". */
const squash = (s: string) =>
  s
    .replace(/\\(?:left|right|displaystyle|[,;:! ])|\{,\}|\$|\*\*|\s+/g, '')
    .replace(/\\[dt]frac/g, '\\frac')
    .replace(/(?<=\d),(?=\d{3}\b)/g, '')
    .replace(/[.,;]+$/, '');

/** The values written in a text: its math segments and displays (each member of a chain), and its numbers. */
function writtenValues(text: string): string[] {
  const math = [...text.matchAll(/\$\$([^$]+)\$\$|\$([^$]+)\$|\\\[([\s\S]+?)\\\]|\\boxed\{((?:[^{}]|\{[^{}]*\})*)\}/g)].map(
    (m) => m[1] ?? m[2] ?? m[3] ?? m[4],
  );
  const members = math.flatMap((m) => m.split(/=|\\approx/));
  const numbers = [...text.matchAll(NUMBERS)].map((m) => m[0]);
  const words = [...text.matchAll(WORD_NUMBERS)].map((m) => wordToNumber(m[0]));
  return [...members, ...numbers, ...words];
}

/**
 * Whether `answer` is stated in the closing sentences of `text`: as written there (spacing and math
 * delimiters aside), as one of the values written there in another form of the same number or MATH
 * answer ("10,560" for 10560, "$\frac{1}{2}$" for 1/2), and for multiple choice as the option's
 * letter or text.
 */
export function statedInClosing(text: string, answer: string, type: 'mcq' | 'numeric' | 'math', options: McqOption[] = []): boolean {
  const closing = closingSentences(text);
  if (type === 'mcq') {
    const letter = answer
      .trim()
      .replace(/^\(|\).*$/g, '')
      .charAt(0)
      .toUpperCase();
    if (
      new RegExp(
        String.raw`\(${letter}\)|\[${letter}\]|\*\*${letter}\*\*|\b(?:option|choice|answer(?: is)?:?)\s+\(?${letter}\b|` +
          String.raw`\b${letter}\b(?=[).:*\]]|\s*$|\s+(?:is|because|since)\b)`,
        'i',
      ).test(closing)
    )
      return true;
    const option = options.find((o) => o.letter === letter);
    return !!option && option.text.length > 1 && closing.toLowerCase().includes(option.text.toLowerCase());
  }
  if (squash(closing).toLowerCase().includes(squash(answer).toLowerCase())) return true;
  const normalize = type === 'numeric' ? normalizeNumeric : normalizeMath;
  const stored = normalize(answer);
  if (stored === null) return false;
  // A list ("\frac43, \frac{416}{27}") appears when each of its members does, written apart or together.
  const members = (n: string) => (type === 'math' ? splitTopLevel(n, ',') : [n]);
  const written = new Set(
    writtenValues(closing).flatMap((v) => {
      const n = normalize(v);
      return n === null ? [] : [n, ...members(n)];
    }),
  );
  return written.has(stored) || members(stored).every((m) => written.has(m));
}
