// Reading the stated answer of a numeric or MATH response (multiple choice: mcq.ts).
//
// Rules, in order:
//   1. the last \boxed{} (or \fbox{}; nested braces allowed);
//   2. else the last answer statement: "The answer is X", "Answer: X", "my answer remains the same:
//      X", "the answer would be X", "the same answer of $X$", "I agree with their answer of $X$";
//      not one about another agent's answer ("their answer is 12") nor a verdict ("the answer is
//      correct"). A concluding sentence after it (rule 3) wins over it. Its value is a leading math
//      segment or number, bold or not; an expression's result ("12*40+79 = 559" is 559, the value
//      after its last "="); a multiple-choice letter; a short phrase; or the one number a sentence
//      states. One that names no value ("the answer is that there is no solution") means none:
//      earlier values are not guessed from;
//   3. else a concluding sentence (Therefore, Thus, So, The value of ..., There are ..., or the
//      closing sentence) that states a value: a math segment closing it ("... is $9$", "... at the
//      point $(15,-29)$ at $t=2$", "... received $\frac{x}{2}$ dollars in the last division"), a
//      number after "is"/"are"/"=" ("... is 2382", "... is (sqrt(3) - sqrt(6))/4"), a leading value
//      ("Therefore, 70 students did not ...", "Thus, $\frac{11}{60}$ of the students ..."), a
//      count ("There are 120 ways ..."), a value on its own line after "is:", or even/odd/neither.
// Hedged or wordy conclusions ("either 12 or 28, depending on ...", "between 0 and 36") state no
// answer: they stay unparsed and are counted, never guessed.
import { unwrapMath } from './normalize.ts';

/** Every `\boxed{...}` (or `\fbox{...}`) with its position, nested braces allowed; unclosed ones are skipped. */
export function boxedContents(text: string): { at: number; content: string }[] {
  const out: { at: number; content: string }[] = [];
  for (const m of text.matchAll(/\\(?:boxed|fbox)\s*\{/g)) {
    const start = m.index + m[0].length;
    for (let i = start, depth = 1; i < text.length; i++) {
      if (text[i] === '{') depth++;
      else if (text[i] === '}' && --depth === 0) {
        out.push({ at: m.index, content: text.slice(start, i) });
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

// Sentences that state a conclusion: "Therefore, X is 9.", "So the son is 6 years old.",
// "The value of $b$ is 7004.", "There are 120 ways to ...".
const CONCLUSION =
  /^(?:therefore|thus|hence|so|in conclusion|in interval notation|finally|overall|as a result|in summary|consequently|the (?:final |correct |updated )?answer|there (?:are|is)|the (?:value|number|sum|probability|product|area|result|solution|ratio|length|distance|expected value|total|remainder|maximum|minimum)\b)/i;
// A number as stated in prose: "-3", "1,000", "0.25", "3/4", "6 3/4" or "6 and 3/4" (mixed), "35.1%".
const NUMBER = String.raw`-?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:(?: and)? \d+\/\d+|\/\d+)?%?`;
// An expression in plain text: "(sqrt(3) - sqrt(6))/4", "2^10 - 1", "5pi" (a digit, and an operator or sqrt/pi).
const PLAIN_EXPR = String.raw`(?=[^\s]*?(?:[+*/^]|sqrt|pi|π|√|\d\s*-))[-(]*(?:\d|sqrt|√|pi|π)[\d\s+\-*/^().]*?(?:sqrt\([^()]*\)|pi|π|[\d)])(?:[\d\s+\-*/^().]*[\d)])?`;
const WORD_NUMBERS = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten', 'eleven', 'twelve'];
const WORD_NUMBER = `(?:${WORD_NUMBERS.join('|')})`;
const STATING = String.raw`(?:\bis|\bare|\bwas|\bwere|=|(?<=\w):|\bequals|\bbe|\bget|\bobtain|\bgives(?: us)?|\bas|\bhas(?: a value of)?|\bvalue of|\bevaluates to|\bcomes to|\bmakes|\bearns|\bcosts|\bpays|\bsaves|\bspends|\bneeds)`;
const ADVERBS = String.raw`(?:(?:approximately|about|exactly|indeed|equal to|equivalent to|just|still|now|then|currently|simply|also|actually|only|roughly|given by|a total of|\w+ly)\s+)*`;
// A sentence that denies a value or hedges between several states none ("there is no value of $k$
// that ...", "it is not possible to arrive at a meaningful answer", "either 105 or 0, depending on
// ...", "between 0 and 36").
const NO_VALUE =
  /\bthere (?:is|are|exists?) no\b|\b(?:not possible|impossible|cannot|can't|unable)\b(?:\s+\w+){0,4}?\s+(?:answer|determin\w*|solv\w*|find|give|arriv\w*)\b|\b(?:no|not any)\s+(?:\w+\s+)?(?:value|solution|answer|such)s?\b|\b(?:is|are|be|was|were|=)\s+(?:\w+\s+)?(?:either|between)\b|\bdepending\b|\bboth\s+\$?-?\d[^\s$]*\$?\s+and\s+\$?-?\d[^\s$]*\$?\s+(?:can|could|may|might|are)\b/i;
// A place or time after a stated value: "... dollars in the last division", "... every day at the market".
const PLACE = String.raw`(?:\s+(?:in|at|for|on|during|after|before)\s+(?:the\s+)?[a-z]+(?:\s+[a-z]+)?)?`;
// Words after a closing value that make it part of a comparison, not the answer ("$5$ more than ...").
const COMPARING = /\b(?:less|more|greater|fewer|than|times|plus|minus|per|and|or)\b/i;

/**
 * A concluding statement's value: of the last conclusion sentence (see CONCLUSION) that states one,
 * the value rule 3 of the header reads; anything wordier is not an answer and stays unparsed.
 * `undefined` when no conclusion states a value; null when a later one hedges or denies (NO_VALUE).
 */
function concludingValue(text: string): string | null | undefined {
  const sentences = text
    .replace(/\*\*|\\\$/g, '') // bold, and escaped dollar signs (which would break math segments)
    .split(/\n+|(?<=[.!?])\s+|\s+(?=(?:Therefore|Thus|Hence|So),?\s)/)
    .map((l) =>
      l
        .trim()
        .replace(/[.!]+$/, '')
        .trim(),
    )
    .filter(Boolean);
  for (let k = sentences.length - 1; k >= 0; k--) {
    const line = sentences[k];
    if (k < sentences.length - 1 && !CONCLUSION.test(line)) continue; // the closing sentence needs no conclusion word
    // "Therefore, the integers are:" followed by a line that is only math, or only a value.
    const next = sentences[k + 1];
    if (line.endsWith(':') && next && new RegExp(String.raw`^(?:\$[^$]+\$|\$\$[^$]+\$\$|\\\[.+\\\]|${NUMBER})$`).test(next)) return resultOf(unwrapMath(next));
    if (NO_VALUE.test(line)) return null;
    // A closing line that is only a value ("**205**", "$\frac{1}{2}$").
    const alone = k === sentences.length - 1 && line.match(new RegExp(String.raw`^(?:\$([^$]+)\$|(${NUMBER}))$`));
    if (alone) return resultOf(alone[1] ?? alone[2]);
    const value = statedValue(line);
    if (value !== null) return value;
  }
  return undefined;
}

/** The value one sentence states (see `concludingValue`), or null. */
function statedValue(line: string): string | null {
  if (NO_VALUE.test(line)) return null;
  // "Therefore, $x = \frac{21}{31}$." / "Thus, $n=57$ is the solution.": the value after the last "=".
  const assigned = line.match(/^(?:therefore|thus|hence|so),?\s+\$([^$]*=[^$]*)\$/i);
  if (assigned) return assigned[1].slice(assigned[1].lastIndexOf('=') + 1).trim();
  // A math segment after a stating word and at most three words ("... is $9$", "... as the mixed
  // number $144\frac15$"), closing the sentence or its main clause, maybe followed by two words
  // that are not a comparison, a place ("in the last division") or a condition ("at $t=2$").
  const closing = line.match(
    new RegExp(
      `(?:${STATING}|\\bexpression|\\bpoint|\\bnotation|\\bat|\\breceived?|:)\\s+${ADVERBS}(?:[a-z]+\\s+){0,3}(?:\\$\\$([^$]+)\\$\\$|\\$([^$]+)\\$|\\\\\\[(.+?)\\\\\\])((?:\\s+[a-z]+){0,2})${PLACE}(?:\\s+(?:at|when|for|if|with|where|in base)\\s+\\$[^$]*\\$)?\\s*(?:[,;].*|\\s(?:which|where|since|because)\\b.*)?$`,
      'i',
    ),
  );
  if (closing && !COMPARING.test(closing[4])) {
    const math = (closing[1] ?? closing[2] ?? closing[3]).trim().replace(/[,.]$/, '');
    const value = math.includes('=') ? math.slice(math.lastIndexOf('=') + 1).trim() : math;
    if (!/^[a-zA-Z]$/.test(value)) return value; // a lone variable ("... of $k$ that ...") is no value
  }
  // "... are $x = 2$ and $x = -3$": a list of values (an answer set).
  const list = line.match(new RegExp(`${STATING}\\s+${ADVERBS}(\\$[^$]+\\$(?:\\s*(?:,|,?\\s*and|,?\\s*or)\\s*\\$[^$]+\\$)+)\\s*$`, 'i'));
  if (list) return mathList(list[1]);
  // "Therefore, 3172 is the answer.", "Thus, $x^2+1$ is the quadratic we want.": the value as subject.
  const subject = line.match(
    new RegExp(
      String.raw`^(?:(?:therefore|thus|hence|so|however),?\s+)?(\$[^$]+\$|${NUMBER})\s+is\s+(?:the|our|my)\s+(?:(?:final|correct|only|required|desired|smallest|largest|greatest|least)\s+)*(?:answer|solution|result|quadratic|polynomial|equation|expression|function|matrix|vector|point|value|number|integer)\b`,
      'i',
    ),
  );
  if (subject) return resultOf(subject[1].replace(/\$/g, ''));
  const count = line.match(
    new RegExp(`^(?:(?:therefore|thus|hence|so),?\\s+)?(?:.*\\bthat )?there (?:are|is) ${ADVERBS}\\$?(${NUMBER}|${WORD_NUMBER})\\$?\\s`, 'i'),
  );
  if (count) return WORD_NUMBERS.includes(count[1].toLowerCase()) ? String(WORD_NUMBERS.indexOf(count[1].toLowerCase())) : count[1];
  const outOf = line.match(new RegExp(`${STATING}\\s+${ADVERBS}(\\d+) out of (\\d+)(?:,? or ${ADVERBS}\\$?${NUMBER}\\$?)?$`, 'i'));
  if (outOf) return `${outOf[1]}/${outOf[2]}`;
  // "is 3^1, or just 3": the simple form.
  const simply = line.match(new RegExp(`${STATING}\\s+${ADVERBS}\\S+,?\\s+or\\s+(?:just|simply)\\s+\\$?(${NUMBER})\\$?$`, 'i'));
  if (simply) return simply[1];
  // "is 0.0225, or 2.25%": the first of the equivalent forms; "is Year 58": the number after its label.
  const stated = line.match(
    new RegExp(
      `${STATING}\\s+${ADVERBS}(?:[A-Z][a-z]+\\s+)?(\\$?${NUMBER}\\$?)(?:,? or ${ADVERBS}\\$?${NUMBER}\\$?)?(?:\\s+[a-z]+){0,4}${PLACE}(?:,\\s*(?:and|which|where|since|because)\\b.*)?$`,
      'i',
    ),
  );
  if (stated) return stated[1].replace(/\$/g, '');
  const expression = line.match(new RegExp(`${STATING}\\s+${ADVERBS}(${PLAIN_EXPR})(?:\\s+[a-z]+){0,3}$`, 'i'));
  if (expression) return expression[1].trim();
  // "... the sum of two odd functions is always even", "f is an odd function".
  const parity = line.match(/\b(?:is|are)\s+(?:always\s+)?(?:an?\s+)?(even|odd|neither)(?:\s+nor\s+odd)?(?:\s+(?:function|functions|number))?$/i);
  if (parity) return parity[1].toLowerCase();
  // "Therefore, $\frac{11}{60}$ of the students walk", "Thus, 70 students did not": a leading value.
  // Not the subject of a verb ("Thus, $f(1)$ is 9"), nor one of several values ("So 110 fallops are 44 wallops").
  const leading = line.match(
    new RegExp(
      String.raw`^(?:therefore|thus|hence|so),?\s+(?:\$([^$=]*\d[^$=]*)\$|(${NUMBER}))\s+(?!(?:is|are|was|were|equals|can|could|must|has|have|will|would|should|may|might|divided|times|plus|minus|as|in)\b)(?:of\s+)?[a-z]`,
      'i',
    ),
  );
  if (leading && !line.includes('=') && !/\d/.test(line.slice(leading[0].length))) return (leading[1] ?? leading[2]).trim();
  return null;
}

// An answer statement (rule 2): "answer is", "answer:", "answer remains the same:", ...; not another
// agent's. Verdicts ("the answer is correct") state no answer.
const OWNER = String.raw`(?<!\b(?:their|his|her|your|its|agent'?s?'?|agents'|other|one|second|first|third) (?:\w+ )?)`;
const ANSWER_IS = new RegExp(
  String.raw`${OWNER}answer(?:(?:\s+(?:is|was|remains|stays|would be|will be|should be|must be|becomes|equals))(?:\s+(?:still|now|also|unchanged|the same|therefore|indeed|then))*\s*[:=]?|\s*:)\s*([^\n]+?)(?:\.\s|\.?$|\n)`,
  'gim',
);
// "the same answer of $X$", "I agree with their answer of $X$", "their answer of $X$ ... is correct".
const ANSWER_OF = new RegExp(String.raw`(?<!\bincorrect |\bwrong )\banswer of (\$[^$]+\$|${NUMBER})`, 'gi');
const ANSWER_OF_OWN = /\b(?:same|my(?: \w+)?|our(?: \w+)?|agree with (?:their|the|this|that|his|her|the \w+ agent's)(?: \w+)?)\s+answer of\s*$/i;
const ANSWER_OF_OTHERS = /\b(?:their|his|her|its|agent'?s?|agents'|other)\s+(?:\w+\s+)?answer of\s*$/i;
/** Ends the text before an answer statement reported from someone else ("Agent 2 says the answer is", "the solutions that suggest the answer is"). */
export const REPORTED =
  /\b(?:agents?\s*\d*|solutions?\s*\d*|they|he|she|others?)\s+(?:\w+\s+)?(?:says?|said|states?|stated|claims?|claimed|thinks?|thought|believes?|believed|argues?|argued|concludes?|concluded|suggests?|suggested|chose|chooses|picked|selected|answered|proposes?|proposed)\s+(?:that\s+)?(?:the\s+)?(?:\w+\s+)?$/i;
const VERDICT =
  /^(?:not |also |indeed |still )*(?:correct|incorrect|wrong|right|valid|invalid|accurate|inaccurate|reasonable|reliable|consistent|verified|confirmed)\b/i;

/** The raw stated answer of a numeric or MATH response (see the header); null when none is found. */
export function statedAnswer(text: string): string | null {
  const boxed = lastBoxed(text);
  if (boxed !== null) return boxed.trim();
  const statements = [...text.matchAll(ANSWER_IS)]
    .filter((m) => !VERDICT.test(m[1].replace(/\*\*/g, '').trim()) && !REPORTED.test(text.slice(Math.max(0, m.index - 80), m.index)))
    .map((m) => ({ at: m.index, end: m.index + m[0].length, phrase: m[1] }));
  for (const m of text.matchAll(ANSWER_OF)) {
    const before = text.slice(Math.max(0, m.index - 60), m.index + 'answer of '.length);
    const after = text.slice(m.index + m[0].length).split(/[.\n]/)[0];
    const own = ANSWER_OF_OWN.test(before) && (/\bagree with\b/i.test(before) || !ANSWER_OF_OTHERS.test(before));
    if (own || /\bis (?:also )?(?:correct|accurate|right)\b/.test(after)) statements.push({ at: m.index, end: m.index + m[0].length, phrase: m[1] });
  }
  statements.sort((a, b) => a.at - b.at);
  const last = statements[statements.length - 1];
  if (!last) return concludingValue(text) ?? null;
  // A concluding sentence after the last answer statement wins (a hedging one means none); else
  // that statement is the answer, and one that names no value means none: earlier values are not
  // guessed from.
  const later = concludingValue(text.slice(last.end));
  return later !== undefined ? later : answerPhrase(last.phrase);
}

/** "$x = 2$ or $x = -3$", "$1$, $2$ and $3$": the values, as a comma list (normalization reads it as a set). */
function mathList(segments: string): string {
  return [...segments.matchAll(/\$([^$]+)\$/g)].map((m) => resultOf(m[1])).join(', ');
}

const REFERRING = /^(?:as|same|unchanged|the same|not|no|in|on|at|to|from|of|for|with|by|also|still|this|that|these|those|it|what|which|because|since|if)\b/i;

/** "12*40+79 = 559", "$12 \times 40 + 79 = 559$", "x = 5", "\cos C = \frac{4}{5}": an arithmetic expression or a name, then its value. */
function resultOf(expr: string): string {
  const at = expr.lastIndexOf('=');
  if (at < 0) return expr.trim();
  const left = expr.slice(0, at);
  // Also a name: "x", "f(2)", "\cos C", "\frac{AB}{DC}" (no digits, no sums); not an equation's left side ("x^2+y^2").
  const arithmetic =
    /^[\d\s+\-*/^().,{}×÷]*$|^[\d\s+\-*/^().,{}]*(?:\\(?:times|cdot|div|frac|left|right)[\d\s+\-*/^().,{}]*)+$|^\s*[a-zA-Z](?:_\{?\d+\}?)?\s*$|^\s*[a-zA-Z]\([^()]*\)\s*$|^[^\d+\-=]+$/;
  return arithmetic.test(left.slice(left.lastIndexOf('=') + 1)) || arithmetic.test(left) ? expr.slice(at + 1).trim() : expr.trim();
}

/**
 * The value in what follows "The answer is": a leading math segment or number ("$12$, as agent 1
 * found", "0.377 or 37.7%", "that there are 49 ways"), an expression's result, a multiple-choice
 * letter with its text, or a short phrase, else the value a sentence states ("that last year's
 * enrollment was 575 students"); null for other prose ("To find the probability, ...").
 */
function answerPhrase(phrase: string): string | null {
  const p = phrase.replace(/\*\*|\\\$/g, '').trim();
  const list = p.match(/^\$[^$]+\$(?:\s*(?:,|,?\s*and|,?\s*or)\s*\$[^$]+\$)+/);
  if (list && !NO_VALUE.test(p)) return mathList(list[0]);
  const math = p.match(/^(?:\$\$([^$]+)\$\$|\$([^$]+)\$)/);
  if (math) return resultOf(math[1] ?? math[2]);
  // "12*40+79 = 559", "12 + 3160 - 980 = 2192 dollars": the result, not the expression's first number.
  const expression = p.match(new RegExp(`^([\\d\\s+\\-*/^().,×÷x]+)=\\s*(${NUMBER})(?=$|[\\s,;])`));
  if (expression && /[+\-*/^×÷x]/.test(expression[1])) return resultOf(`${expression[1]}=${expression[2]}`);
  const number = p.match(new RegExp(`^(?:that )?(?:there (?:are|is) )?${ADVERBS}(${NUMBER})(?=$|[\\s,;])`, 'i'));
  if (number) return number[1];
  // "the same as theirs: 371146600", "6!/8 = 720/8 = 90 ways to seat them": the value it ends on.
  const after = p.match(new RegExp(`(?::|=)\\s*\\$?(${NUMBER})\\$?(?:\\s+[a-z][^=:]*)?$`, 'i'));
  if (after) return after[1];
  if (/^\(?[A-J]\)/.test(p)) return p;
  // A short phrase is a text answer ("Monday", "\text{odd}"), unless it only refers to something ("the same", "as before").
  if (!/[a-z]{2,}\s+[a-z]{2,}\s+[a-z]{2,}/i.test(p)) return REFERRING.test(p) ? null : unwrapMath(p);
  const sentence = p.replace(/^that\s+/i, '').replace(/[.!]+$/, '');
  // A final answer stated in a sentence that names exactly one number ("the car travels 137.5 feet
  // from the time ...", "Tim ends on step $8$") states that number; with two ("either 12 or 28")
  // or none it states no single answer.
  const numbers = [...sentence.matchAll(new RegExp(`(?<![\\w.])${NUMBER}(?![\\w.])`, 'g'))];
  return statedValue(sentence) ?? (numbers.length === 1 ? numbers[0][0] : null);
}
