// Reading the stated answer of a numeric or MATH response (multiple choice: mcq.ts).
//
// Rules, in order:
//   1. the last \boxed{} (or \fbox{}; nested braces allowed) that is the response's own (not one in a
//      sentence about another agent's result: "One agent arrived at $\boxed{7}$"), as the value it ends
//      on ("\boxed{BC = 396}" is 396), or the value stated right after it ("$\boxed{12}$ is equal to
//      144": the problem's own box notation). A later answer statement or conclusion that opens with "Therefore", "Thus", "So",
//      "Hence" (rules 2 and 3 on what follows the boxed sentence) and states another value, or denies
//      any, makes the read ambiguous: no answer, both readings kept;
//   2. else the last answer statement: "The answer is X", "Answer: X", "#### X", "my answer remains the same:
//      X", "the answer would be X", "the same answer of $X$", "I agree with their answer of $X$", "the
//      correct answer of $X$"; not one about another agent's answer ("their answer is 12") nor a verdict
//      ("the answer is correct"). A concluding sentence after it (rule 3) wins over it. Its value is a
//      leading math segment or number, bold or not; an expression's result ("12*40+79 = 559" is 559,
//      "$201_3+122_3$, which is 36" is 36); a multiple-choice letter; a number in words; a short
//      phrase; or the one number a sentence states. One that refers back ("My answer remains the
//      same.", "the answer is unchanged") states what the text before it states. One that names no
//      value ("the answer is that there is no solution") means none: earlier values are not guessed from;
//   3. else a concluding sentence (conclusion.ts: Therefore, Thus, So, The value of ..., There are ...,
//      each clause after ", so" its own, or the closing sentence) that states a value.
// "(Note: ...)" asides are not read. Hedged or wordy conclusions ("either 12 or 28, depending on ...",
// "between 0 and 36") state no answer: they stay unparsed and are counted, never guessed.
import { concludingValue, mathList, NO_VALUE, NUMBER, NUMBERS, PLAIN_EXPR, resultOf, statedValue, WORD_NUMBER, wordToNumber } from './conclusion.ts';
import { sameMath } from './equivalence.ts';
import { normalizeMath, unwrapMath } from './normalize.ts';

/** What a response states: its answer (null: none), and when two readings disagree, each of them (null: a denial). */
export interface Reading {
  answer: string | null;
  ambiguous?: (string | null)[];
  /** Multiple choice: where a plain statement of the option (an answer statement, a box, a bold option, the first token, the last line) names it. */
  at?: number;
}

/** Every `\boxed{...}` (or `\fbox{...}`) with its position and end, nested braces allowed; unclosed ones are skipped. */
export function boxedContents(text: string): { at: number; end: number; content: string }[] {
  const out: { at: number; end: number; content: string }[] = [];
  for (const m of text.matchAll(/\\(?:boxed|fbox)\s*\{/g)) {
    const start = m.index + m[0].length;
    for (let i = start, depth = 1; i < text.length; i++) {
      if (text[i] === '{') depth++;
      else if (text[i] === '}' && --depth === 0) {
        out.push({ at: m.index, end: i + 1, content: text.slice(start, i) });
        break;
      }
    }
  }
  return out;
}

/** The content of the last `\boxed{...}` (or `\fbox{...}`; nested braces allowed), or null. */
export function lastBoxed(text: string): string | null {
  const all = boxedContents(text);
  return all.length ? all[all.length - 1].content : null;
}

// An answer statement (rule 2): "answer is", "answer:", "answer remains the same:", ...; not another
// agent's. Verdicts ("the answer is correct") state no answer.
const OWNER = String.raw`(?<!\b(?:their|his|her|your|its|agent'?s?'?|agents'|other|one|second|first|third) (?:\w+ )?)`;
const ANSWER_VERB = String.raw`is|was|remains|stays|would be|will be|should be|must be|becomes|equals`;
const ANSWER_FILL = String.raw`still|now|also|unchanged|the same|therefore|indeed|then`;
// The phrase runs to the end of its sentence: a period before a space or the end (also inside "...55.$ Next").
const PHRASE = String.raw`\s*([^\n]+?)(?:\.\$?\s|\.?\$?$|\n)`;
const ANSWER_IS = new RegExp(String.raw`${OWNER}answer(?:(?:\s+(?:${ANSWER_VERB}))(?:\s+(?:${ANSWER_FILL}))*\s*[:=]?|\s*:|\*\*\s*:)${PHRASE}`, 'gim');
// "the same answer of $X$", "I agree with their answer of $X$", "their answer of $X$ ... is correct".
const ANSWER_OF = new RegExp(String.raw`(?<!\bincorrect |\bwrong )\banswer of (\$[^$]+\$|${NUMBER})`, 'gi');
const AGREEING = String.raw`agree with (?:their|the|this|that|his|her|the \w+ agent's)(?: \w+)?`;
const ANSWER_OF_OWN = new RegExp(String.raw`\b(?:same|my(?: \w+)?|our(?: \w+)?|${AGREEING}|(?:obtain|get|reach|find) the correct)\s+answer of\s*$`, 'i');
const ANSWER_OF_OTHERS = /\b(?:their|his|her|its|agent'?s?|agents'|other)\s+(?:\w+\s+)?answer of\s*$/i;
const REPORTING_VERBS = [
  String.raw`says?|said|states?|stated|claims?|claimed|thinks?|thought|believes?|believed|argues?|argued`,
  String.raw`concludes?|concluded|suggests?|suggested|chose|chooses|picked|selected|answered|proposes?|proposed`,
].join('|');
/** Ends the text before an answer statement reported from someone else ("Agent 2 says the answer is", "the solutions that suggest the answer is"). */
export const REPORTED = new RegExp(
  String.raw`\b(?:agents?\s*\d*|solutions?\s*\d*|they|he|she|others?)\s+(?:\w+\s+)?(?:${REPORTING_VERBS})\s+(?:that\s+)?(?:the\s+)?(?:\w+\s+)?$`,
  'i',
);
const JUDGEMENTS = String.raw`correct|incorrect|wrong|right|valid|invalid|accurate|inaccurate|reasonable|reliable|consistent|verified|confirmed`;
const VERDICT = new RegExp(String.raw`^(?:not |also |indeed |still |the most |most |more |quite |very |fully |completely )*(?:${JUDGEMENTS})\b`, 'i');

interface Statement {
  at: number;
  end: number;
  phrase: string;
}

/** The answer statements of a text (rule 2), in text order. */
function answerStatements(text: string): Statement[] {
  const statements = [...text.matchAll(ANSWER_IS)]
    .filter((m) => !VERDICT.test(m[1].replace(/\*\*/g, '').trim()) && !REPORTED.test(text.slice(Math.max(0, m.index - 80), m.index)))
    .map((m) => ({ at: m.index, end: m.index + m[0].length, phrase: m[1] }));
  // "#### 150": the answer line of GSM8K-style replies.
  for (const m of text.matchAll(/^[ \t]*####[ \t]*([^\n#]+)$/gm)) statements.push({ at: m.index, end: m.index + m[0].length, phrase: m[1] });
  for (const m of text.matchAll(ANSWER_OF)) {
    const before = text.slice(Math.max(0, m.index - 60), m.index + 'answer of '.length);
    const after = text.slice(m.index + m[0].length).split(/[.\n]/)[0];
    const own = ANSWER_OF_OWN.test(before) && (/\bagree with\b/i.test(before) || !ANSWER_OF_OTHERS.test(before));
    if (own || /\bis (?:also )?(?:correct|accurate|right)\b/.test(after)) statements.push({ at: m.index, end: m.index + m[0].length, phrase: m[1] });
  }
  return statements.sort((a, b) => a.at - b.at);
}

/** The rules of `answerPhrase`, each said where it is used; compiled once. */
const PHRASES = {
  exact: new RegExp(String.raw`^(${PLAIN_EXPR}|${NUMBER})\s*,?\s+or\s+(?:approximately|about|roughly|around)\b`, 'i'),
  expression: new RegExp(String.raw`^([\d\s+\-*/^().,×÷x]+)=\s*(${NUMBER})(?=$|[\s,;])`),
  number: new RegExp(
    String.raw`^(?:that )?(?:there (?:are|is) )?(?:(?:approximately|about|exactly|still|now|just|only|roughly)\s+)*(${NUMBER})(?=$|[\s,;])`,
    'i',
  ),
  word: new RegExp(String.raw`^(${WORD_NUMBER})\b`, 'i'),
  after: new RegExp(String.raw`(?::|=)\s*\$?(${NUMBER})\$?(?:\s+[a-z][^=:]*)?$`, 'i'),
};
// "$\boxed{12}$ is equal to 144": the value said right after a box.
const SAID_AFTER_BOX = new RegExp(String.raw`^\$*\s*(?:is equal to|equals|=)\s*\$?(${NUMBER})(?![\w^{])`);

/** What an answer phrase says when it only refers back to an earlier answer ("the same", "unchanged", "."). */
const REFERS_BACK = Symbol('refers back');
const REFERRING = /^(?:as|same|unchanged|the same|not|no|in|on|at|to|from|of|for|with|by|also|still|this|that|these|those|it|what|which|because|since|if)\b/i;
// Words that lead to the value in a phrase: ", which is 431", "at 431", "as before, 431", "namely 12".
const LEAD_IN = /^(?:[,;:]\s*)?(?:(?:which|that) (?:is|equals|gives(?: us)?|comes to|amounts to)|as before,?|at|of|namely|i\.e\.,?)\s+/i;

/**
 * The value in what follows "The answer is": a leading math segment or number ("$12$, as agent 1
 * found", "0.377 or 37.7%", "that there are 49 ways"), an expression's result, a value after ", which
 * is", a multiple-choice letter with its text, a number in words or a short phrase, else the value a
 * sentence states ("that last year's enrollment was 575 students"); null for other prose ("To find
 * the probability, ..."); REFERS_BACK for a phrase that only points at an earlier answer.
 */
function answerPhrase(phrase: string): string | null | typeof REFERS_BACK {
  const p = phrase
    .replace(/\*\*|\\\$/g, '')
    .replace(/\s*(?:→|=>|⇒)\s*/g, ' = ')
    .replace(LEAD_IN, '')
    .trim();
  if (!p || /^[.,;:!]+$/.test(p)) return REFERS_BACK;
  // "648/π or approximately 206.25 square cm": the exact value before its approximation.
  const exact = p.match(PHRASES.exact);
  if (exact) return exact[1].trim();
  // "$201_3+122_3$, which is 36 in base 10", "12+40*79+50-35*28, which equals ... = 2242": the value it is.
  const which = p.match(/^(.+?),?\s+which (?:is|equals|gives|comes to|amounts to)\s+(.+)$/i);
  if (which) {
    const value = answerPhrase(which[2]);
    if (typeof value === 'string') return value;
  }
  const list = p.match(/^\$[^$]+\$(?:\s*(?:,|,?\s*and|,?\s*or)\s*\$[^$]+\$)+/);
  if (list && !NO_VALUE.test(p)) return mathList(list[0]);
  const math = p.match(/^(?:\$\$([^$]+)\$\$|\$([^$]+)(?:\$|$))/); // its closing "$" may have gone with the period
  if (math) return resultOf(math[1] ?? math[2]);
  // "12*40+79 = 559", "12 + 3160 - 980 equals 2192 dollars": the result, not the expression's first number.
  const expression = p.replace(/\s+(?:equals|is equal to|gives|makes)\s+/gi, ' = ').match(PHRASES.expression);
  if (expression && /[+\-*/^×÷x]/.test(expression[1])) return resultOf(`${expression[1]}=${expression[2]}`);
  const number = p.match(PHRASES.number);
  if (number) return number[1];
  const word = p.match(PHRASES.word);
  if (word && !/\s\w/.test(p.slice(word[0].length).replace(/^\s*(?:ways?|times?)\b/i, ''))) return wordToNumber(word[1]);
  // "the same as theirs: 371146600", "6!/8 = 720/8 = 90 ways to seat them": the value it ends on.
  const after = p.match(PHRASES.after);
  if (after) return after[1];
  if (/^\(?[A-J]\)/.test(p)) return p;
  if (NO_VALUE.test(p)) return null; // "either 0 or 1 real roots"
  // "**Final Answer:** The $y$-intercept is $-1$.": a sentence that states a value.
  const sentenceValue = /\$/.test(p) ? statedValue(p.replace(/[.!]+$/, '')) : null;
  if (sentenceValue !== null) return sentenceValue;
  // A short phrase is a text answer ("Monday", "\text{odd}"), unless it only refers to something ("the same", "as before").
  if (!/[a-z]{2,}\s+[a-z]{2,}\s+[a-z]{2,}/i.test(p)) return /^(?:the same|unchanged|same)\b/i.test(p) ? REFERS_BACK : REFERRING.test(p) ? null : unwrapMath(p);
  const sentence = p.replace(/^that\s+/i, '').replace(/[.!]+$/, '');
  // A final answer stated in a sentence that names exactly one number ("the car travels 137.5 feet
  // from the time ...", "Tim ends on step $8$") states that number; with two ("either 12 or 28")
  // or none it states no single answer.
  const numbers = [...sentence.matchAll(NUMBERS)];
  return statedValue(sentence) ?? (numbers.length === 1 ? numbers[0][0] : null);
}

/**
 * Rules 2 and 3 on a text without boxes: the answer it states (null: it names none, or denies one),
 * `undefined` when nothing in it is a statement or conclusion. `strong`: only conclusions that open
 * with a conclusion word count (what may contradict a boxed answer).
 */
function unboxed(text: string, strong: boolean): string | null | undefined {
  const statements = answerStatements(text);
  const last = statements[statements.length - 1];
  if (!last) return concludingValue(text, strong);
  // A concluding sentence after the last answer statement wins (a hedging one means none); else
  // that statement is the answer, and one that names no value means none: earlier values are not
  // guessed from.
  const later = concludingValue(text.slice(last.end), strong);
  if (later !== undefined) return later;
  const value = answerPhrase(last.phrase);
  // After a boxed answer, a statement that names no value ("this answer is different from ...") says nothing against it; a denial does.
  if (strong && value === null && !NO_VALUE.test(last.phrase)) return undefined;
  if (value !== REFERS_BACK) return value;
  return unboxed(text.slice(0, last.at).replace(/[^.!?\n]*$/, ''), strong) ?? null; // the text before its sentence
}

/** Whether two raw readings are the same answer (normalized, then as mathematics). */
function sameReading(a: string, b: string): boolean {
  const [x, y] = [normalizeMath(a), normalizeMath(b)];
  return x === y || (x !== null && y !== null && sameMath(x, y));
}

/** The value a box states (rule 1): what it ends on, or the value said right after it (the settled reading takes a box's value so too). */
export function boxValue(text: string, box: { end: number; content: string }): string {
  const said = text.slice(box.end).match(SAID_AFTER_BOX);
  return said ? said[1] : resultOf(box.content).trim();
}

// A box in a sentence about another agent's result ("One agent arrived at $\boxed{7}$ as the answer") is not the response's own.
const RESULT_VERBS = String.raw`arrived at|got|obtained|found|gave|computed|concluded|notes?|noted`;
// Nor is one named as another agent's ("Note: Agent 2's answer $\boxed{141_{13}}$ is ...", "the other agents' $\boxed{7}$").
const REPORTED_BOX = new RegExp(
  String.raw`\b(?:agents?|solutions?|they|he|she)\b[^.!?\n]*\b(?:${RESULT_VERBS}|${REPORTING_VERBS})\b[^.!?\n]*$|` +
    String.raw`\b(?:agents?\s*\d*'s?|agents'|their|his|her)\s+(?:\w+\s+)?(?:answers?|solutions?|results?|boxes)?\s*(?:of\s+|is\s+|was\s+|:\s*)?\$*$`,
  'i',
);
export const ownBox = (text: string, box: { at: number }) => {
  const sentence =
    text
      .slice(0, box.at)
      .split(/[.!?]\s|\n/)
      .pop() ?? '';
  return !REPORTED_BOX.test(sentence) || /\b(?:I|my|we|our)\b/.test(sentence);
};

/** The text without its notes: "(Note: ...)" asides, nested brackets included, are no statement of the answer. */
export function withoutNotes(text: string): string {
  let out = text;
  for (let at = out.search(/\(\s*(?:Note|N\.B\.)\b/i); at >= 0; at = out.search(/\(\s*(?:Note|N\.B\.)\b/i)) {
    let depth = 0;
    let end = at;
    for (; end < out.length; end++)
      if (out[end] === '(') depth++;
      else if (out[end] === ')' && --depth === 0) break;
    out = out.slice(0, at) + out.slice(end + 1);
  }
  return out;
}

/** The answer a numeric or MATH response states (see the header), ambiguous readings kept. */
export function readStatement(response: string): Reading {
  const text = withoutNotes(response);
  const boxes = boxedContents(text).filter((box) => ownBox(text, box));
  if (!boxes.length) return { answer: unboxed(text, false) ?? null };
  const box = boxes[boxes.length - 1];
  const answer = boxValue(text, box);
  // What follows the sentence holding the box: a later statement or conclusion that disagrees.
  const rest = text.slice(box.end);
  const sentenceEnd = rest.search(/[.!?]\$*(?=\s|$)|\n/);
  const later = unboxed(sentenceEnd < 0 ? '' : rest.slice(sentenceEnd + 1), true);
  if (later === undefined || (later !== null && sameReading(answer, later))) return { answer };
  return { answer: null, ambiguous: [answer, later] };
}
