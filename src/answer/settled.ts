// The second reading: the value a reply SETTLES ON, read by position, not by the phrases
// that state an answer (statement.ts, mcq.ts). It looks only at where a reply ends: of its last four
// sentences, the last that holds a value of the reply's own (notes, checks of the answer, sentences
// that reject the values they name, and sentences about other agents alone, aside; values after a
// turn to a condition or to other agents, ", where $k$ ...", aside), and takes the value that
// sentence closes on: its own \boxed{} (as the stated reading takes a box: what it ends on, or the
// value it is said to equal), else its last value (the value a math segment's chain ends on, a bound
// a chain of relations computes, or a number; with the letter a span assigns it to, "$y = 0$", which
// src/answer.ts checks against the unknown the question asks for); for multiple choice
// the one option it names (by letter, text, place or paraphrase; lines of an option list aside). It
// abstains (null) where that sentence does not settle: two options named, an option rejected ("(A)
// is wrong"), a value in a comparison or a description ("5 more than 50", "seat the 8 people", "the
// 100-meter final"), a relation ("f(3) \ge 8"), a number inside a plain-text expression ("sqrt(17)/12"). Names, relations and case lists are no
// values. With the question's text, a closing value that is a given the sentence attributes to the
// question's data, or an expression in an unknown where a value is asked (given.ts), is passed over
// for the sentence's own value before it, else the reply's last solved assignment (`passOver`).
// src/answer.ts stores an answer only where this reading and the stated one agree (or this one
// abstains).
import { boxedContents, boxValue, ownBox, withoutNotes } from './statement.ts';
import { congruenceValue, isClosed, NO_VALUE, NUMBER, REJECTED, resultOf } from './conclusion.ts';
import { normalizeMath } from './normalize.ts';
import { letterOf, lettersOf, optionByText, type McqOption } from './mcq.ts';
import { askedUnknowns, inUnknown, isGiven } from './given.ts';
import { allMatches, lineStartMatches } from './scan.ts';

/** Math spans, displays first: `$$...$$`, `\[...\]`, `\(...\)`, `$...$`. */
const MATH = /\$\$([\s\S]+?)\$\$|\\\[([\s\S]+?)\\\]|\\\(([\s\S]+?)\\\)|\$([^$]+)\$/g;
// A number outside math, not part of a word, a longer number, an exponent or a subscript ("cm^2").
// A number joined to a word by a hyphen ("the 100-meter final", "a 3-digit number") describes, and is no value either.
const PLAIN_NUMBER = new RegExp(String.raw`(?<![\w.^_{])${NUMBER}(?![\w}]|\.\d|-[a-zA-Z])`, 'g');
// Words before a value that make it part of a comparison or a condition, not what the sentence settles on.
// ("comes to 84", "amounts to 84" state the value: their "to" leads to it).
const COMPARED =
  /(?<!\b(?:comes|amounts|adds up|works out|totals) )\b(?:than|of|out of|per|times|by|from|over|between|and|or|to|at|for|with|if|when|unlike|not|in base)\s+(?:\w+\s+)?\$?$|\b(?:the|these|those|all|any|each|every)\s+\$?$/i;
// What is no value of its own: a bare name ("$C$"), a relation ("$|x+4| < 9$"), a table or case list.
const NOT_A_VALUE = /^[a-zA-Z]+$|^[a-zA-Z(),\s]+$|^[a-zA-Z](?:\^\{-1\})?\([a-z]\)$|<|>|\\[lg]eq?\b|\\neq\b/;
// A span that states a relation holds no value (the reading abstains on it), but for a bound it
// computes or the residue a congruence of a number states ("$31n \equiv 3 \pmod{7}$" holds none).
const RELATION = /<|>|\\[lg]eq?\b|\\neq\b|\\equiv\b/;
/** The number a chain of relations ends on after "=" (a bound: "\ge \frac{256}{4} = 64"); '' (the reading abstains there) for any other relation ("x < 3", "f(3) \ge 8", "\le \frac{b^2}{2}"). */
function boundOf(body: string): string {
  const members = body.split(/(<|>|\\[lg]eq?\b|\\neq\b|=)/);
  const last = (members.pop() ?? '').trim();
  return members.pop() === '=' && isClosed(last) ? last : '';
}
const NOT_A_DISPLAY = /\\begin\{(?:cases|array|align\*?|aligned)\}|\\multicolumn|\\cline/;
/** How many sentences from the end are searched: a reply settles on a value at its end, or not at all. */
const CLOSING = 4;
// A sentence about other agents' answers (and not the reply's own).
const ABOUT_OTHERS =
  /\b(?:agents?'?s?|(?:other|another|their|previous|first|second|third|fourth|each) (?:solutions?|answers?)|solutions? \d|they|their|others)\b/i;
// A note ("Note that ...", "*Note: ...*", "I should note that ...") or a check of the answer ("Check:
// $84 / 7 = 12$", "To verify, ...", a line ticked ✓) is an aside, never what the reply settles on:
// its values are the question's or a step's. So is a sentence that rejects the values it names ("$x
// = -1$ is extraneous", "the root $-5$ is rejected"). A sentence that boxes a value is none of these.
const NOTE = /^\s*[(*_]*\s*(?:note|n\.b\.)\b|^\s*(?:I|we) should note\b|^\s*it(?: is|'s) worth noting\b/i;
const CHECK =
  /^\s*[(*_#\s]*(?:(?:check(?:ing)?|verification|double-check(?:ing)?)\s*\**:|to (?:check|verify|confirm)\b|as a check\b|we can (?:check|verify|confirm)\b)|✓|✔/i;
// Where a sentence turns to a condition or a reason: values after it ("..., where $k$ is an integer") are not what it settles on.
const TAIL = /,?\s+(?:where|for|if|when|since|because|given|provided|that)\b/i;
const OWN = /\b(?:I|my|we|our)\b/;
// A sentence that rejects the option it names ("(A) is wrong", "rules out C").
const REJECTS = /\b(?:not|incorrect|wrong|false|rule[sd]? out|eliminat\w*|unlikely|cannot)\b/i;

interface Candidate {
  at: number;
  value: string;
  boxed: boolean;
  /** The letter a math span assigns its value to ("$y = 0$"). */
  assigns?: string;
}

/** What a reply settles on: the value, the letter its closing span assigns it to, and the values of its sentence passed over as the question's data or as expressions in an unknown. */
export interface Settled {
  value: string;
  assigns?: string;
  passed?: string[];
  /** Where values were passed over: whether the value is the sentence's only value of its own. */
  sole?: boolean;
}

// Words before a given that attribute it to the question's data, not to the quantity asked for: a
// relative clause ("a fraction whose value is", "a wall that is"), "equal to", "satisfies", or a
// preposition and a few words that are no stating verb ("to make", "of", "on the").
const STATES = String.raw`(?!(?:is|are|was|were|equals|be)\b)`;
const ATTRIBUTED = new RegExp(
  String.raw`(?:\b(?:whose|that|which)\b(?:\s+[\w-]+){0,3}?\s+(?:is|are|was|were)|\bequal to|\bsatisf(?:y|ies|ying)|` +
    String.raw`\b(?:of|for|by|with|to|from|on|in|after)\b(?:\s+${STATES}[\w-]+){0,4})\s*\$?\s*$`,
  'i',
);
// Words after a given that make it the subject of the sentence's value ("18 pencils cost $4.50").
const SUBJECT = /^\$?\s*(?:[a-z]+\s+){1,2}(?:costs?|is|are|was|were|weighs?|takes?|makes?|needs?)\b/i;
// A letter assigned a value ("$y = 84.5$", "n=-\frac{5}{3}", "y = (90 x 108) / 60 = 162"), the chain's last member.
const ASSIGNMENT = /(?<![\w\\{^_])([a-zA-Z])\s*=\s*([^=$\n]+(?:=[^=$\n]+)*)/g;

/** The reply's last solved assignment before `end` (its value closed and not given; of the unknown asked for where the question names one, else of one of `letters` where given): the value. */
function lastAssignment(text: string, end: number, question: string, letters?: string[]): string | null {
  const named = askedUnknowns(question);
  const asked = named.length ? named : (letters ?? []);
  if (letters && !asked.length) return null;
  let found: string | null = null;
  for (const [a, b] of sentenceRanges(text, maskMath(text))) {
    if (a >= end) break;
    const sentence = text.slice(a, Math.min(b, end));
    if (NOTE.test(sentence) || CHECK.test(sentence) || REJECTED.test(sentence)) continue;
    for (const m of sentence.replace(/\\\[|\\\]|\$\$?/g, ' ').matchAll(ASSIGNMENT)) {
      const value = (m[2].split('=').pop() ?? '')
        .replace(/\s+(?:[a-zA-Z]{2,}|[a-zA-Z]\b)[\s\S]*$/, '')
        .replace(/[\s.,;]+$/, '')
        .trim();
      if ((!asked.length || asked.includes(m[1])) && /\d/.test(value) && isClosed(value) && !isGiven(value, question)) found = value;
    }
  }
  return found;
}

/**
 * The closing value passed over (see given.ts): a given the sentence attributes to the question's
 * data, or an expression in an unknown where the question asks for a value. Then the sentence
 * settles on its last own value before it (closed, not given), else on the reply's last solved
 * assignment, else on none (null). `undefined` where the closing value is neither.
 */
function passOver(text: string, from: number, all: Candidate[], closing: Candidate, question: string): Settled | null | undefined {
  const given = (c: Candidate) =>
    isGiven(c.value, question) && (ATTRIBUTED.test(text.slice(from, c.at)) || SUBJECT.test(text.slice(c.at + c.value.length, c.at + c.value.length + 40)));
  const found = all.filter((c) => c.at <= closing.at).sort((a, b) => a.at - b.at);
  // What the sentence names after its value, past a turn to a condition ("a wall that is $12\times 9$"), is passed over too.
  const passed = all.filter((c) => c.value.trim() && (inUnknown(c.value, question) || given(c))).map((c) => c.value.trim());
  if (!passed.length) return undefined;
  const owns = found.filter((c) => c.value.trim() && /\d/.test(c.value) && isClosed(c.value) && !isGiven(c.value, question));
  const sole = owns.length === 1;
  const over = inUnknown(closing.value, question) ? 'unknown' : given(closing) ? 'given' : null;
  if (!over) return { value: closing.value.trim(), passed, sole };
  // The value just before the ones passed over, where it is the reply's own (not a number inside an expression, "720/8").
  const own = found.filter((c) => c.at < closing.at && !isGiven(c.value, question) && !inUnknown(c.value, question)).pop();
  if (own && owns.includes(own)) return COMPARED.test(text.slice(from, own.at)) ? null : { value: own.value.trim(), passed, sole };
  // The last solved assignment stands only where the sentence holds no value of its own at all.
  if (own || all.some((c) => c.value.trim() && isClosed(c.value) && !isGiven(c.value, question))) return null;
  // Of an expression in an unknown, the value solved for that unknown ("$y = 84.5$" before "the sum is $4y + 190$").
  const letters = over === 'unknown' ? [...new Set(closing.value.replace(/\\[a-zA-Z]+/g, ' ').match(/(?<![a-zA-Z])[a-df-hj-zA-Z](?![a-zA-Z])/g))] : undefined;
  const solved = lastAssignment(text, from, question, letters && letters.length === 1 ? letters : letters && []);
  return solved ? { value: solved, passed } : null;
}

/** A text with its math spans masked, so that no sentence ends inside one; a span keeps a closing period ("$\boxed{2}.$ The ..."), which ends its sentence. */
const maskMath = (text: string) => text.replace(MATH, (m) => 'M'.repeat(m.length - 1) + (/[.!?]\s*(?:\$\$|\$|\\\]|\\\))$/.test(m) ? '.' : 'M'));

// Where a sentence ends (sentenceRanges).
const SENTENCE_END = /[.!?](?=\s|$)|\n(?<!:\s*\n)/g;
/** The sentences of a text as [start, end) ranges, split where `masked` (the text, its math masked or not) ends one. */
function sentenceRanges(text: string, masked: string): [number, number][] {
  const ranges: [number, number][] = [];
  let start = 0;
  // A line break ends a sentence, unless a display follows it or the line ends with ":".
  // The lookbehind after the "\n" it guards, not before it: the same breaks, without trying it at every place.
  for (const m of allMatches(SENTENCE_END, masked)) {
    if (m[0] === '\n' && /^\s*(?:\$\$|\\\[)/.test(text.slice(m.index + 1, m.index + 40))) continue;
    ranges.push([start, m.index + 1]);
    start = m.index + 1;
  }
  ranges.push([start, text.length]);
  return ranges.filter(([a, b]) => text.slice(a, b).trim());
}

/** Of the last sentence holding a candidate (sentences about others aside), the candidates. */
function lastSentence<T extends { at: number }>(
  text: string,
  ranges: [number, number][],
  candidates: T[],
): { sentence: string; from: number; found: T[]; all: T[] } | null {
  for (let k = ranges.length - 1; k >= Math.max(0, ranges.length - CLOSING); k--) {
    const [a, b] = ranges[k];
    const found = candidates.filter((c) => c.at >= a && c.at < b);
    if (!found.length) continue;
    const sentence = text.slice(a, b);
    if (NOTE.test(sentence) || ((CHECK.test(sentence) || REJECTED.test(sentence)) && !found.some((c) => 'boxed' in c && c.boxed))) continue;
    // Values after a turn to other agents or to a condition are not what the sentence settles on,
    // when any come before it ("$a=3$, as shown in the first agent's solution"); a sentence about
    // others alone is not the reply's own, unless it boxes a value.
    const others = ABOUT_OTHERS.exec(sentence);
    const tail = TAIL.exec(sentence); // the first turn to a condition: only the earliest turn counts
    const turn = a + Math.min(sentence.length, tail ? tail.index : Infinity, others && !OWN.test(sentence) ? others.index : Infinity);
    const before = found.filter((c) => c.at < turn || ('boxed' in c && c.boxed));
    if (!before.length) {
      if (others && !OWN.test(sentence)) continue;
      return { sentence, from: a, found, all: found };
    }
    return { sentence, from: a, found: before, all: found };
  }
  return null;
}

const cleaned = (text: string) => withoutNotes(text).replace(/\*\*|\\\$/g, (m) => ' '.repeat(m.length));

/** The value a numeric or MATH reply settles on (see the header), raw; null when it does not settle on one. */
export const settledValue = (response: string, question = ''): string | null => settle(response, question)?.value ?? null;

/** The value a numeric or MATH reply to `question` settles on, with the letter its closing span assigns it to ("$y = 0$": y), if any, and what it passed over. */
export function settle(response: string, question = ''): Settled | null {
  const text = cleaned(response);
  const ranges = sentenceRanges(text, maskMath(text));
  const from = ranges[Math.max(0, ranges.length - CLOSING)]?.[0] ?? 0; // only the closing sentences are read
  const spans = [...text.matchAll(MATH)]
    .filter((m) => m.index >= from)
    .map((m) => ({ at: m.index, end: m.index + m[0].length, body: m[1] ?? m[2] ?? m[3] ?? m[4] }));
  // A box in a sentence reporting another agent's result is not the reply's own (the rule of the stated reading).
  const boxes = boxedContents(text).filter((b) => b.at >= from && ownBox(text, b));
  const inBox = (at: number) => boxes.some((b) => at >= b.at && at < b.end);
  const candidates: Candidate[] = [
    // A box's value as the stated reading takes it: what it ends on, or the value it is said to equal ("$\boxed{12}=144$").
    ...boxes.map((b) => ({ at: b.at, value: boxValue(text, b), boxed: true })),
    ...spans
      .filter((s) => !/\\(?:boxed|fbox)\b/.test(s.body) && !NOT_A_DISPLAY.test(s.body))
      .map((s) => ({
        at: s.at,
        value: RELATION.test(s.body) ? (congruenceValue(s.body) ?? boundOf(s.body)) : resultOf(s.body, false),
        boxed: false,
        assigns: s.body.match(/^\s*([a-zA-Z])\s*=[^=]+$/)?.[1],
      }))
      .filter((c) => !NOT_A_VALUE.test(c.value.trim().replace(/[_^]\{?\w+\}?/g, ''))),
  ];
  const outside = text.replace(MATH, (m) => ' '.repeat(m.length));
  // A number inside an expression written in plain text ("sqrt(17)/12", "525π", "(4/3)π") is no value on its own: the reading abstains there.
  for (const m of outside.matchAll(PLAIN_NUMBER)) {
    if (m.index < from) continue;
    const [before, after] = [outside.slice(Math.max(0, m.index - 12), m.index), outside.slice(m.index + m[0].length, m.index + m[0].length + 12)];
    const listMarker = /^[.)]/.test(after) && !outside.slice(outside.lastIndexOf('\n', m.index - 1) + 1, m.index).trim();
    if (inBox(m.index) || listMarker) continue;
    const inExpression = /[-+=/*^(√]\s*$/.test(before) || /^\s*[/*^)(π√]/.test(after);
    candidates.push({ at: m.index, value: inExpression ? '' : m[0], boxed: false });
  }
  const last = lastSentence(text, ranges, candidates);
  if (!last) return null;
  // A box is what its sentence settles on.
  const boxed = last.found.filter((c) => c.boxed).pop();
  if (boxed) return boxed.value.trim() ? { value: boxed.value.trim() } : null;
  const closing = last.found.reduce((a, b) => (b.at > a.at ? b : a));
  const passed = question ? passOver(text, last.from, last.all, closing, question) : undefined;
  if (passed !== undefined && passed?.value !== closing.value.trim()) return passed;
  if (COMPARED.test(text.slice(last.from, closing.at)) || !closing.value.trim()) return null;
  // What an answer statement names is the reply's answer whatever letter it is given ("the answer is $k = 7$").
  const assigns = /\banswer\b/i.test(last.sentence) ? undefined : closing.assigns;
  return { value: closing.value.trim(), ...(assigns && { assigns }), ...(passed?.passed && { passed: passed.passed, sole: passed.sole }) };
}

/**
 * A reply's plain answer where the stated reading finds none in words it knows: the value it
 * settles on, where the reply's last solved assignment is that value ("$$y = 84.5$$ Therefore,
 * she averaged 84.5 points on each of her first four quizzes.") or where it is the only value of
 * its sentence besides the question's data ("You need 2.5 cups to bake 40 muffins."); null
 * otherwise, or where its closing sentences hedge or deny.
 */
export function plainAnswer(response: string, question: string): string | null {
  const settled = settle(response, question);
  const text = cleaned(response);
  if (!settled || NO_VALUE.test(text.slice(-300))) return null;
  if (settled.sole) return settled.value;
  const solved = lastAssignment(text, text.length, question);
  return solved !== null && normalizeMath(solved) === normalizeMath(settled.value) ? settled.value : null;
}

// Option tokens (an option's text, place or paraphrase is matched per sentence): "(C)", "[C]", "**C**", "option C", "C)" opening a line, \boxed{C}.
const OPTION_TOKEN = /\(([A-Ja-j])\)|\[([A-Ja-j])\]|\*\*\(?([A-J])\)?\*\*|\b(?:[Oo]ption|[Cc]hoice|[Aa]nswer)\s+\(?([A-J])\b|^\s*([A-J])\)/gm;
/** An option listed at the start of a line (sticky: tried at line starts alone, lineStartMatches). */
const LISTED = /[ \t]*(?:[-*][ \t]+)?(?:\*\*)?(?:\([A-J]\)|[A-J][.):])/y;
/** The option a multiple-choice reply settles on (see the header), as its letter; null when it does not name exactly one. */
export function settledOption(response: string, options: McqOption[]): string | null {
  const text = withoutNotes(response).replace(/\\(?:boxed|fbox)\s*\{([^{}]*)\}/g, (m, inner: string) => {
    const letter = letterOf(inner, options);
    return letter ? `(${letter})`.padEnd(m.length) : m;
  });
  const letters = options.length ? lettersOf(options) : 'ABCDEFGHIJ';
  const candidates = allMatches(OPTION_TOKEN, text).map((m) => ({ at: m.index, letter: (m[1] ?? m[2] ?? m[3] ?? m[4] ?? m[5]).toUpperCase() }));
  // Options listed one a line name every option and choose none: their lines hold no candidate.
  const listLines = lineStartMatches(text, LISTED).map((m) => [m.index, text.indexOf('\n', m.index) >>> 0]);
  const inList = (at: number) => listLines.length >= 2 && listLines.some(([a, b]) => at >= a && at < b);
  const named = candidates.filter((c) => letters.includes(c.letter) && !inList(c.at));
  // The closing sentences one at a time from the last, as lastSentence reads them (a sentence's
  // reading depends on its own candidates alone): an option's text is looked for only in the
  // sentences read, not in those before the one that settles.
  const ranges = sentenceRanges(text, text).slice(-CLOSING);
  let last: ReturnType<typeof lastSentence<{ at: number; letter: string }>> = null;
  for (let k = ranges.length - 1; k >= 0 && !last; k--) {
    const [a, b] = ranges[k];
    const found = named.filter((c) => c.at >= a && c.at < b);
    const letter = options.length ? optionByText(text.slice(a, b), options) : null;
    if (letter && letters.includes(letter) && !inList(a)) found.push({ at: a, letter });
    last = lastSentence(text, [ranges[k]], found);
  }
  if (!last || REJECTS.test(last.sentence)) return null;
  const said = new Set(last.found.map((c) => c.letter));
  return said.size === 1 ? [...said][0] : null;
}
