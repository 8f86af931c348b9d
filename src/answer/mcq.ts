// Multiple-choice answers: which option a response states, by letter or by the option's text.
//
// A response states an option in any of these ways; when it states several (a response that
// revises itself, or an answer followed by a restatement), the one written LAST wins:
//   0. its first token ("C) Canberra. It was ...", "(C) The ...", "**C** — ..."), unless it opens a
//      list of options or a verdict against that option ("(A) is wrong: ...");
//   1. \boxed{C}, \boxed{(C)}, \boxed{\text{C}}, \boxed{\text{(C) Paris}}, or \boxed{Paris} (the option's text);
//   2. an answer statement: "the answer is (C)", "Answer: C", "**Answer:** C", "final answer: **C**",
//      "my answer remains C", "the correct option is C", "the best choice would be [C]", "the answer
//      is Paris"; not one about another agent's answer ("their answer is B", "Agent 2's answer is B");
//   3. a choice in the first person: "I choose C", "I'll go with option (C)", "I stick with C";
//   4. a verdict naming an option: "(C) is the correct answer", "option C is correct", "C is the correct choice", "(C) Canberra is correct";
//   5. a bold option: **C**, **(C)**, **C) Paris**;
//   6. a last line that is only an option: "C", "(C)", "C.", "[C]", "C) Paris", or an option's text;
//   7. "(C)" or "[C]" closing the response ("... which rules out the rest (C)."), unless it follows
//      "not", "than", "unlike", "of", "or", "nor" ("the answer is (B), not (C).") or closes a
//      sentence about other agents ("Agent 3 chose (D).").
// Options listed one a line ("A) Sydney", "B) Melbourne", ...) name every option and choose none:
// their lines are not read by rules 0, 5 and 6. Two options named at the end are ambiguous (no
// answer, both readings kept): a statement joined to a second option ("the answer is (A) or (C)",
// "B/C", "**A** and **C**"), a boxed option and a later statement naming another, or a last line that
// is only an option after a line whose statement names another with no word of revision between
// ("earlier", "but", ...) and no statement of the last option itself ("The answer is (C).").
// A bare capital A or I (also English words) counts only before punctuation, a line end, the
// option's text or "because"/"since"/"as"; a lowercase letter only inside brackets or \boxed{},
// or closing an answer statement ("answer: c"; not a or i, which may be words).
// The option's text is matched when the question's options are known (`questionOptions`): the
// stated phrase equals one option's text or contains exactly one (the longest, when one option's
// text lies inside another's). No statement means no answer: nothing is guessed.
import { allMatches, bareLine, lastSentenceOf, lineStartMatches } from './scan.ts';
import { boxedContents, REPORTED, type Reading } from './statement.ts';

export interface McqOption {
  letter: string;
  text: string;
}

const LETTERS = 'ABCDEFGHIJ';

// Option markers in a question: "(A) x", "A) x", "A. x", "A: x", each after a space or line start.
const MARKER = /(?<=^|[\s,;:])(?:\(([A-J])\)|([A-J])[).:])(?=\s)/gm;
// An instruction after the last option ("... D) Rome Explain your answer ...") is not its text.
const INSTRUCTION = /\s+(?:Explain|Put|Please|Answer|Choose|Select|Think|Give|Respond|Output|Return)\b[\s\S]*$/;

/**
 * The options a question lists ("(A) x (B) y", "A) x, B) y, C) z", one "A. x" per line): the longest
 * run of markers A, B, C, ... in order (the last such run on a tie); [] when fewer than two.
 */
export function questionOptions(question: string): McqOption[] {
  const marks = [...question.matchAll(MARKER)].map((m) => ({ letter: m[1] ?? m[2], at: m.index, end: m.index + m[0].length }));
  let best: typeof marks = [];
  marks.forEach((m, i) => {
    if (m.letter !== 'A') return;
    const run = [m];
    for (const next of marks.slice(i + 1)) if (next.letter === LETTERS[run.length]) run.push(next);
    if (run.length >= best.length) best = run;
  });
  if (best.length < 2) return [];
  return best.map((m, k) => {
    const stop = k + 1 < best.length ? best[k + 1].at : (question.indexOf('\n', m.end) + 1 || question.length + 1) - 1;
    let text = question.slice(m.end, stop);
    if (k === best.length - 1) text = text.replace(INSTRUCTION, '');
    return { letter: m.letter, text: text.trim().replace(/[,;]$/, '').trim() };
  });
}

const simplify = (s: string) =>
  s
    .replace(/\\(?:text|textbf|mathrm|mbox)\{([^{}]*)\}/g, '$1')
    .replace(/[*$_`"“”'‘’]/g, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}.%-]+/gu, ' ')
    .replace(/\.(?!\d)/g, ' ')
    .trim()
    .replace(/\s+/g, ' ');
const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const ORDINALS = ['first', 'second', 'third', 'fourth', 'fifth', 'sixth', 'seventh', 'eighth', 'ninth', 'tenth'];
const ORDINAL = new RegExp(String.raw`\b(${ORDINALS.join('|')}|last)\s+(?:option|choice|one|answer)\b`, 'gi');
// Words a paraphrase need not repeat.
const FILLER = new Set('the and that this with from which are was were its for not but has have been into than then they them'.split(' '));
/** An option's content words, each cut to its first five letters ("mitochondria" meets "mitochondrion"). */
const stems = (t: string) =>
  new Set(
    t
      .split(' ')
      .filter((w) => w.length > 2 && !FILLER.has(w))
      .map((w) => w.slice(0, 5)),
  );

/**
 * The option a phrase names by its place in the list ("the second option", "the last choice"), or by
 * a paraphrase of its text: at least 3/4 of one option's content words (cut to five letters; at
 * least two words, or one of six letters or more), and at most half of every other option's. Null when it names none, or two.
 */
function optionByPlaceOrParaphrase(p: string, options: McqOption[], texts: OptionText[]): string | null {
  const places = new Set([...p.matchAll(ORDINAL)].map((m) => options[m[1] === 'last' ? options.length - 1 : ORDINALS.indexOf(m[1])]?.letter));
  if (places.size) return places.size === 1 ? ([...places][0] ?? null) : null;
  const said = stems(p);
  const shares = texts.map((o) => {
    const own = o.stems;
    return { letter: o.letter, long: own.length >= 2 || o.t.length >= 6, share: own.length ? own.filter((w) => said.has(w)).length / own.length : 0 };
  });
  const close = shares.filter((o) => o.long && o.share >= 0.75);
  return close.length === 1 && shares.every((o) => o === close[0] || o.share <= 0.5) ? close[0].letter : null;
}

/** An option's simplified text, the pattern of that text inside a phrase, and its content words' stems. */
interface OptionText {
  letter: string;
  t: string;
  inside: RegExp;
  stems: string[];
}

// An answer is read against its question's options many times (every sentence of every response):
// their texts are simplified once per options list, and remade if the list has changed since.
const prepared = new WeakMap<McqOption[], { of: McqOption[]; texts: OptionText[] }>();
function optionTexts(options: McqOption[]): OptionText[] {
  const known = prepared.get(options);
  if (known && known.of.length === options.length && known.of.every((o, i) => o.letter === options[i].letter && o.text === options[i].text)) return known.texts;
  const texts = options
    .map((o) => ({ letter: o.letter, t: simplify(o.text) }))
    .filter((o) => o.t)
    .map((o) => ({ ...o, inside: new RegExp(`(?:^|\\s)${escapeRegExp(o.t)}(?:\\s|$)`), stems: [...stems(o.t)] }));
  prepared.set(options, { of: options.map((o) => ({ ...o })), texts });
  return texts;
}

// The responses to one question repeat their sentences ("The answer is (D).", a template's steps), and
// every closing sentence is looked up: what each phrase names is kept for the latest options list
// read (readers of a cache go question by question), up to PHRASES phrases, and dropped when
// another list (or this one, changed) is read.
const PHRASES = 4096;
let recent: { texts: OptionText[]; named: Map<string, string | null> } | undefined;

/** The option whose text a phrase states (see the header), or null. */
export function optionByText(phrase: string, options: McqOption[]): string | null {
  const texts = optionTexts(options);
  if (recent?.texts !== texts) recent = { texts, named: new Map() };
  const known = recent.named.get(phrase);
  if (known !== undefined) return known;
  const letter = namedByText(phrase, options, texts);
  if (recent.named.size >= PHRASES) recent.named.clear();
  recent.named.set(phrase, letter);
  return letter;
}

function namedByText(phrase: string, options: McqOption[], texts: OptionText[]): string | null {
  const p = simplify(phrase);
  if (!p) return null;
  const exact = texts.filter((o) => o.t === p);
  if (exact.length) return exact.length === 1 ? exact[0].letter : null;
  const inside = texts.filter((o) => o.inside.test(p));
  const longest = inside.filter((o) => !inside.some((x) => x !== o && x.t.length > o.t.length && x.t.includes(o.t)));
  if (longest.length) return longest.length === 1 ? longest[0].letter : null;
  return optionByPlaceOrParaphrase(p, options, texts);
}

/** The letter a short answer names ("C", "(c)", "[C]", "\\text{C}", "C) Paris", "**C**"), else its option text's. */
export function letterOf(answer: string, options: McqOption[]): string | null {
  const s = answer
    .replace(/\\(?:text|textbf|mathrm|mbox)\{([^{}]*)\}/g, '$1')
    .replace(/[*$]/g, '')
    .trim();
  const m = s.match(/^\(([A-Ja-j])\)|^\[([A-Ja-j])\]|^([A-J])(?:[.:)\s]|$)|^([a-j])$/);
  return m ? (m[1] ?? m[2] ?? m[3] ?? m[4]).toUpperCase() : optionByText(s, options);
}

/** Two options joined at one place ("(A) or (C)"), from the first to the end of the second. */
interface Hedge {
  from: number;
  to: number;
  letters: string[];
}

interface Stated {
  at: number;
  letter: string;
  /** Which rule found it: statements and choices (2-4) are what a boxed or closing option may contradict. */
  rule: 'opening' | 'boxed' | 'statement' | 'bold' | 'last line' | 'closing';
}

/** Normalized form of a stored multiple-choice answer: the letter ("(b)" and "C) Paris" read as B and C). */
export function normalizeMcq(raw: string): string | null {
  const m = raw.trim().match(/^\(?([A-Ja-j])\)?(?:[.:)\s]|$)/);
  return m ? m[1].toUpperCase() : null;
}

// The patterns of readMcq depend only on the option letters: built once per set of letters, not per reply.
const OWNER = String.raw`(?<!\b(?:their|his|her|your|its|other|others'|agents?'?s?|agent\s*\d+'?s?|solution\s*\d+'?s?)\s+(?:\w+\s+)?)`;
const VERB = String.raw`(?:\s+(?:is|was|would be|will be|should be|must be|remains|stays|becomes|here is|to this question is|to the question is))`;
const FILL = String.raw`(?:\s+(?:still|now|therefore|thus|then|clearly|definitely|indeed|again|also|the same|unchanged|probably|likely|most likely|that))*`;
const LABEL = String.raw`\s*(?:\*\*)?\s*(?:[:=\-–—]\s*)?(?:\*\*)?\s*(?:the\s+)?`;
/**
 * 2. An answer statement, not about another agent's answer: what precedes the option it names. The
 * leading lookahead only lets the engine skip the places where no such word starts before it tries
 * the owner lookbehind (the same matches, 3x quicker).
 */
const STATEMENT = new RegExp(String.raw`(?=answer|option|choice|pick)${OWNER}\b(?:answer|option|choice|pick)${VERB}?${FILL}${LABEL}`, 'gi');
const WILL = String.raw`'d|'ll|'m going to| would| will| am going to`;
const CHOOSING = String.raw`choose|select|pick|go with|stick with|stay with|maintain|keep|vote for|opt for|agree with`;
/** 3. A first-person choice: what precedes the option it names. */
const CHOOSE = new RegExp(
  String.raw`\bI(?:${WILL})?(?:\s+(?:still|now|also|therefore|thus|then))?\s+(?:${CHOOSING})\s+(?:the\s+)?(?:answer\s+|option\s+|choice\s+)?`,
  'gi',
);

interface LetterPatterns {
  /** A letter token at a position (sticky): bracketed (any case), bold, or a bare capital followed by a boundary. */
  token: RegExp;
  /** An option listed at the start of a line (sticky: tried at line starts alone, lineStartMatches). */
  lineStarts: RegExp;
  opening: RegExp;
  verdict: RegExp;
  bold: RegExp;
  only: RegExp;
  labelled: RegExp;
  closing: RegExp;
}
const letterPatterns = new Map<string, LetterPatterns>();
function patternsOf(letters: string): LetterPatterns {
  const known = letterPatterns.get(letters);
  if (known) return known;
  const L = `[${letters}]`;
  const l = `[${letters}${letters.toLowerCase()}]`;
  // The bare A and I also need what follows to be punctuation, a line end, or a connective (bareOk).
  const after = `(?=[^A-Za-z0-9'’]|$)`;
  const lower = letters.toLowerCase().replace(/[ai]/g, '');
  const LETTER = String.raw`(?:\((${l})\)|\[(${l})\]|(${L})${after}|([${lower}])(?=[.!;]?\s*$))`;
  const TOKEN = String.raw`(?:\*\*\s*)?(?:(?:option|choice|letter)\s+)?(?:\*\*)?${LETTER}(?:\*\*)?`;
  const NAMED = String.raw`\b(?:[Oo]ption|[Cc]hoice|[Aa]nswer)\s+(?:\*\*)?\(?(${L})\)?(?:\*\*)?|\((${l})\)|\*\*\(?(${L})\)?\*\*|^(${L})`;
  const made: LetterPatterns = {
    token: new RegExp(TOKEN, 'y'),
    lineStarts: new RegExp(String.raw`[ \t]*(?:[-*][ \t]+)?(?:\*\*)?(?:\((${L})\)|(${L})[.):])`, 'y'),
    opening: new RegExp(
      String.raw`^\s*(?:\*\*)?(?:(?:[Oo]ption|[Cc]hoice|[Aa]nswer)\s+)?(?:\((${l})\)|\[(${l})\]|(${L})(?:[).:]|\*\*|(?=\s*$)))(?:\*\*)?:?(?=\s|$)`,
    ),
    // The option's text may follow its letter: "(B) Helicase is correct".
    verdict: new RegExp(
      String.raw`(?:${NAMED})(?:\s+[A-Za-z][\w'-]*){0,3}?\s+is\s+(?:the\s+)?(?:most\s+|only\s+)?(?:correct|right|best|accurate|appropriate)\b`,
      'gm',
    ),
    bold: new RegExp(String.raw`\*\*\s*(?:\((${l})\)|(${L}))(?:[.:)]\s*[^*\n]{0,120}?)?\s*\*\*`, 'g'),
    only: new RegExp(`^(?:\\((${l})\\)|\\[(${l})\\]|(${L}))[.:)]?$`),
    labelled: new RegExp(`^(?:\\((${l})\\)|(${L})[.:)])\\s+(.+)$`),
    closing: new RegExp(String.raw`(?<!\b(?:not|than|unlike|of|or|nor|over)\s+(?:\w+\s+)?)(?:\((${l})\)|\[(${l})\])[\s.!*]*$`, 'y'),
  };
  letterPatterns.set(letters, made);
  return made;
}

const CLOSING_TAIL = /[\s.!*]/;
/**
 * Rule 7's "(C)" or "[C]" followed only by spaces and ".!*" to the end: it can stand only where the
 * text's last other character closes it, so the pattern (sticky) is tried there alone, not at every
 * place of the text (its lookbehind made that the costliest part of a reading).
 */
function closingOption(text: string, closing: RegExp): RegExpExecArray | null {
  let end = text.length;
  while (end > 0 && CLOSING_TAIL.test(text[end - 1])) end--;
  if (end < 3) return null;
  closing.lastIndex = end - 3;
  return closing.exec(text);
}

/** The options' letters in order ("ABCD"). */
export function lettersOf(options: McqOption[]): string {
  let letters = '';
  for (const o of options) letters += o.letter;
  return letters;
}

/** The option a response states (see the header), as its letter; two letters when it names two that disagree. */
export function readMcq(text: string, options: McqOption[] = []): Reading {
  const letters = options.length ? lettersOf(options) : LETTERS;
  const P = patternsOf(letters);
  const found: Stated[] = [];
  const hedges: Hedge[] = [];
  const add = (at: number, letter: string | null | undefined, rule: Stated['rule']) => {
    if (letter && letters.includes(letter.toUpperCase())) found.push({ at, letter: letter.toUpperCase(), rule });
  };
  const bareOk = (token: RegExpMatchArray, end: number) => {
    const bare = token[3];
    if (!bare || !'AI'.includes(bare)) return true;
    const rest = text.slice(end);
    return /^(?:\s*(?:[.,;:!?)\]\n/]|$)|\s+(?:because|since|as|which|or|and|—|-|\())/.test(rest) || optionByText(rest.split(/[.\n]/)[0], options) === bare;
  };
  const tokenAt = (start: number) => {
    P.token.lastIndex = start;
    const token = P.token.exec(text);
    return token && bareOk(token, start + token[0].length) ? { letter: token[1] ?? token[2] ?? token[3] ?? token[4], end: start + token[0].length } : null;
  };
  // "(A) or (C)", "B/C", "**A** and **C**", "(B) (C)": a second option joined to the first names two.
  const hedgeAfter = (at: number, first: { letter: string; end: number }) => {
    const joint = text.slice(first.end).match(/^\s*(?:,|\/|&|\bor\b|\band\b)?\s*/);
    const second = joint && tokenAt(first.end + joint[0].length);
    if (second && second.letter.toUpperCase() !== first.letter.toUpperCase())
      hedges.push({ from: at, to: second.end, letters: [first.letter, second.letter].map((x) => x.toUpperCase()) });
  };

  // Options listed one a line ("A) Sydney", "(B) Melbourne", "**C) Canberra** - ..."): a list names
  // every option and chooses none, so its lines are no statement of rules 0, 5 and 6.
  const lineStarts = lineStartMatches(text, P.lineStarts);
  const listLines = new Set(lineStarts.map((m) => m.index));
  const isList = new Set(lineStarts.map((m) => m[1] ?? m[2])).size >= 2;
  const inList = (at: number) => isList && listLines.has(text.lastIndexOf('\n', at - 1) + 1);

  // 0. The first token is the chosen option ("C) Canberra. It was ...", "(C) The ...", "**C** — ..."), unless it opens a list or a verdict against it.
  const opening = text.match(P.opening);
  if (opening && !isList && !/^\s*(?:is|are)\s+(?:not|incorrect|wrong|false)\b/i.test(text.slice(opening[0].length)))
    add(opening[0].length - opening[0].trimStart().length, opening[1] ?? opening[2] ?? opening[3], 'opening');

  // 1. \boxed{...}
  for (const { at, content } of boxedContents(text)) add(at, letterOf(content, options), 'boxed');

  // 2. Answer statements, not about another agent's answer.
  for (const m of allMatches(STATEMENT, text)) {
    if (!/(?:\bis|\bwas|\bbe|\bremains|\bstays|\bbecomes|[:=\-–—])\s*(?:the\s+)?$/i.test(m[0].replace(/\*\*/g, '').trimEnd())) continue;
    if (REPORTED.test(text.slice(Math.max(0, m.index - 80), m.index))) continue;
    const start = m.index + m[0].length;
    const token = tokenAt(start);
    if (token) {
      add(start, token.letter, 'statement');
      hedgeAfter(start, token);
    } else if (options.length) add(start, optionByText(text.slice(start).split(/\n|(?<!\d)\.(?!\d)|[,;(]/)[0], options), 'statement');
  }

  // 3. First-person choices.
  for (const m of allMatches(CHOOSE, text)) add(m.index + m[0].length, tokenAt(m.index + m[0].length)?.letter, 'statement');

  // 4. Verdicts naming an option.
  for (const m of allMatches(P.verdict, text)) add(m.index, m[1] ?? m[2] ?? m[3] ?? m[4], 'statement');

  // 5. Bold options (not the lines of a list).
  for (const m of allMatches(P.bold, text)) if (!inList(m.index)) add(m.index, m[1] ?? m[2], 'bold');

  // 6. A last line that is only an option, or an option's text (not the last line of a list).
  const trimmed = text.trimEnd();
  const lastLine = bareLine(trimmed.slice(trimmed.lastIndexOf('\n') + 1));
  const lastAt = trimmed.length - lastLine.length;
  const only = lastLine.match(P.only);
  const labelled = lastLine.match(P.labelled);
  if (!inList(trimmed.lastIndexOf('\n') + 1)) {
    if (only) add(lastAt, only[1] ?? only[2] ?? only[3], 'last line');
    else if (
      labelled &&
      (!options.length || optionByText(labelled[3], options) === (labelled[1] ?? labelled[2]).toUpperCase()) &&
      (options.length || /^\(|^.\)/.test(lastLine))
    )
      add(lastAt, labelled[1] ?? labelled[2], 'last line');
    // After a statement of an option, a last line is the option only when it is the option's text:
    // a sentence of explanation that names another ("Venus, by contrast, is ...") is no second answer.
    else if (options.length && lastLine.length <= 80) {
      const letter = optionByText(lastLine, options);
      const exact = options.some((o) => o.letter === letter && simplify(o.text) === simplify(lastLine));
      if (exact || !found.length) add(lastAt, letter, 'last line');
    }
  }

  // 7. "(C)" closing the response.
  const closing = closingOption(trimmed, P.closing);
  const lastSentence = lastSentenceOf(trimmed);
  const aboutOthers = /\b(?:agents?|solutions?|they|their|he|she|others?)\b/i.test(lastSentence) && !/\b(?:I|my|we|our)\b/i.test(lastSentence);
  if (closing && !aboutOthers) add(closing.index!, closing[1] ?? closing[2], 'closing');

  if (!found.length) return { answer: null };
  const last = found.reduce((a, b) => (b.at >= a.at ? b : a));
  return ambiguity(text, found, last, hedges) ?? { answer: last.letter, ...(last.rule !== 'closing' && { at: last.at }) };
}

/**
 * Two options named at the end: the last statement joined to another option ("the answer is (A) or
 * (C)"); a boxed option and a later statement naming another; or a last line that is only an option
 * after a line whose statement names another, with no word of revision between ("but", "actually").
 */
function ambiguity(text: string, found: Stated[], last: Stated, hedges: Hedge[]): Reading | undefined {
  const hedge = hedges.find((h) => h.from <= last.at && last.at < h.to);
  if (hedge) return { answer: null, ambiguous: hedge.letters };
  const before = found.filter((f) => f.at < last.at && f.letter !== last.letter);
  const boxed = found.filter((f) => f.rule === 'boxed').pop();
  if (boxed && boxed.letter !== last.letter && found.some((f) => f.rule === 'statement' && f.at > boxed.at && f.letter === last.letter))
    return { answer: null, ambiguous: [boxed.letter, last.letter] };
  if (last.rule !== 'last line' && last.rule !== 'closing') return undefined;
  const previousLine = text.slice(0, last.at).trimEnd();
  const lineStart = previousLine.lastIndexOf('\n') + 1;
  const stated = before.filter((f) => f.rule === 'statement' && f.at >= lineStart).pop();
  const revised =
    /\b(?:but|however|actually|instead|wait|reconsider\w*|initially|at first|earlier|previous(?:ly)?|originally|changed?|correct(?:ing|ed)? myself)\b/i;
  if (
    stated &&
    !found.some((f) => f !== last && f.at > stated.at && (f.at < last.at || (f.at === last.at && f.rule === 'statement')) && f.letter === last.letter) &&
    !revised.test(previousLine.slice(lineStart))
  )
    return { answer: null, ambiguous: [stated.letter, last.letter] };
  return undefined;
}
