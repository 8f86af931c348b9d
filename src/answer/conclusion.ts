// What a concluding sentence states (rule 3 of statement.ts), and the value an expression or a chain
// of equalities ends on. The patterns are built from named parts; each part says what it matches.
import { unwrapMath } from './normalize.ts';

/** Sentences that state a conclusion: "Therefore, X is 9.", "So the son is 6 years old.", "The value of $b$ is 7004.". */
const CONCLUSION_WORDS = String.raw`therefore|thus|hence|so|in conclusion|in interval notation|finally|overall|as a result|in summary|consequently`;
const QUANTITIES = String.raw`value|number|sum|probability|product|area|result|solution|ratio|length|distance|expected value|total|remainder|maximum|minimum`;
export const CONCLUSION = new RegExp(
  String.raw`^(?:${CONCLUSION_WORDS}|the (?:final |correct |updated )?answer|there (?:are|is)|the (?:${QUANTITIES})\b)`,
  'i',
);
/** A conclusion that leaves no doubt it is one: it opens with "Therefore", "Thus", "So", "Hence", "In conclusion", "Finally". */
export const STRONG_CONCLUSION = /^(?:therefore|thus|hence|so|in conclusion|finally|consequently|as a result)\b/i;

/** A number as stated in prose: "-3", "1,000", "0.25", "3/4", "6 3/4" or "6 and 3/4" (mixed), "35.1%". */
export const NUMBER = String.raw`-?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:(?: and)? \d+\/\d+|\/\d+)?%?`;
// An expression in plain text: "(sqrt(3) - sqrt(6))/4", "2^10 - 1", "5pi", "1/√5" (a digit, and an operator or sqrt/pi).
const EXPR_OPERATOR = String.raw`(?=[^\s]*?(?:[+*/^]|sqrt|pi|π|√|\d\s*-))`;
const EXPR_BODY = String.raw`[-(]*(?:\d|sqrt|√|pi|π)[\d\s+\-*/^().√]*?(?:sqrt\([^()]*\)|pi|π|[\d)])(?:[\d\s+\-*/^().√]*[\d)])?`;
export const PLAIN_EXPR = EXPR_OPERATOR + EXPR_BODY;
const WORD_NUMBERS =
  'zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty'.split(' ');
export const WORD_NUMBER = `(?:${WORD_NUMBERS.join('|')})`;
/** "fifteen" -> "15"; anything else unchanged. */
export const wordToNumber = (s: string) => (WORD_NUMBERS.includes(s.toLowerCase()) ? String(WORD_NUMBERS.indexOf(s.toLowerCase())) : s);

// Words that state a value after them ("is", "=", "gives us", "evaluates to", "gets", ...).
const STATING_WORDS = [
  String.raw`is|are|was|were|equals|be|gets?|got|found|obtain|gives(?: us)?|as|has(?: a value of)?|value of`,
  String.raw`evaluates to|comes to|makes|earns|costs|pays|saves|spends|needs`,
].join('|');
const STATING = String.raw`(?:\b(?:${STATING_WORDS})|=|(?<=\w):)`;
const ADVERB_WORDS = [
  String.raw`approximately|about|exactly|indeed|equal to|equivalent to|just|still|now|then|currently`,
  String.raw`simply|also|actually|only|roughly|given by|a total of|\w+ly`,
].join('|');
const ADVERBS = String.raw`(?:(?:${ADVERB_WORDS})\s+)*`;

// A sentence that denies a value or hedges between several states none ("there is no value of $k$
// that ...", "it is not possible to arrive at a meaningful answer", "either 105 or 0, depending on
// ...", "between 0 and 36", "difficult to determine which answer is correct"). A denial of something
// else ("there are no extraneous roots", "no other solution", "no need to change my answer", "no
// remainder") denies nothing about the answer.
const NOT_THE_ANSWER = String.raw`(?:other|extraneous|need|more|further|mistakes?|errors?|remainder|change|doubt|difference|issues?|problems?)\b`;
const DENIALS = [
  String.raw`\bthere (?:is|are|exists?) no (?!${NOT_THE_ANSWER})`,
  String.raw`\b(?:not possible|impossible|cannot|can't|unable|difficult)\b(?:\s+\w+){0,4}?\s+(?:answer|determin\w*|solv\w*|find|give|arriv\w*)\b`,
  String.raw`\b(?:no|not any)\s+(?!${NOT_THE_ANSWER})(?:\w+\s+)?(?:value|solution|answer|such)s?\b`,
  String.raw`\bnot uniquely determined\b|\binfinitely many\b|\bany (?:\w+ )?real number\b`,
  String.raw`\beither\s+(?:\$[^$]*\$|-?\d[\d.,/]*)\s+or\b|\branges? (?:from|between)\b`,
  String.raw`\b(?:is|are|be|was|were|=)\s+(?:\w+\s+)?(?:either|between)\b`,
  String.raw`\bdepending\b`,
  String.raw`\bboth\s+\$?-?\d[^\s$]*\$?\s+and\s+\$?-?\d[^\s$]*\$?\s+(?:can|could|may|might|are)\b`,
];
export const NO_VALUE = new RegExp(DENIALS.join('|'), 'i');
/** A sentence that rejects the values it names ("$x = -1$ is extraneous", "the root $-5$ is rejected"): no statement of the answer, in either reading. */
export const REJECTED = /\b(?:extraneous|(?:is|are) (?:rejected|discarded)|not an? (?:valid )?(?:solution|root)|does not satisfy)\b/i;

// A place or time after a stated value: "... dollars in the last division", "... every day at the market".
const PLACE = String.raw`(?:\s+(?:in|at|for|on|during|after|before)\s+(?:the\s+)?[a-z]+(?:\s+[a-z]+)?)?`;
// Words after a closing value that make it part of a comparison, not the answer ("$5$ more than ...").
const COMPARING = /\b(?:less|more|greater|fewer|than|times|plus|minus|per|and|or)\b/i;
// A unit after a value: "cm^2", "square units", "dollars".
const UNIT_WORDS = String.raw`(?:\s+[a-z]+(?:\^\d)?){0,4}`;
// What may follow a stated number: an aside in brackets ("0 (0/1 or simply 0 as a fraction)"), and
// a clause ("..., which ...", "..., not 1/5").
const ASIDE = String.raw`(?:\s*\([^()]*\))?`;
const CLAUSE_AFTER_VALUE = String.raw`(?:,\s*(?:and|which|where|since|because|not)\b.*)?`;
// What may follow a closing value in its sentence: a clause ("..., which ...") or a condition.
const CLAUSE_AFTER = String.raw`(?:[,;].*|\s(?:which|where|since|because)\b.*)?`;
const CONDITION = String.raw`(?:\s+(?:at|when|for|if|with|where|in base)\s+\$[^$]*\$)?`;
// A condition before a math segment: "... = 17 when $\omega = -1+4i$", "for $n = 3$".
const CONDITIONED = /\b(?:when|if|for|where|with|since|because|given|at)\s+(?:\w+\s+)?$/i;
const MATH_SEGMENT = String.raw`(?:\$\$([^$]+)\$\$|\$([^$]+)\$|\\\[(.+?)\\\])`;

// The members of a chain of equalities whose value the next member states: a closed expression (no
// unknowns: "12*40+79", "48 x 220", "12\times 9", "201_3+122_3", "\cos^3\frac{2\pi}{7}+...", "\sqrt{25}")
// or a name ("x", "f(2)", "\cos C", "BC", "\alpha", "a+b+n", "|a_1 - a_{4001}|"). An equation's left
// side with unknowns and numbers ("x^2+y^2", "2x - y + 3z") is neither: "x^2+y^2 = 25" is kept whole.
const unknowns = (s: string) =>
  s
    .replace(/_\{?\w+\}?|\\text\{[^{}]*\}/g, '') // subscripts, \text{}
    .replace(/\\[a-zA-Z]+/g, ' ') // commands
    .replace(/(?<=\d)i\b|(?<=\d\s*)x(?=\s*\d)/g, ' '); // the imaginary unit, "x" for times
export const isClosed = (s: string) => s.trim() !== '' && !/[a-zA-Z]/.test(unknowns(s));
const isName = (s: string) =>
  /^[a-zA-Z]\w*\(.*\)$/.test(s.trim()) || (/[a-zA-Z]/.test(unknowns(s)) && /^[\\a-zA-Z\s+\-{}|(),]+$/.test(s.trim().replace(/_\{?\w+\}?/g, '')));

/**
 * "12*40+79 = 559", "$12 \times 40 + 79 = 559$", "x = 5", "\cos C = \frac{4}{5}", "AB = \sqrt{25} = 5":
 * the value a chain of equalities ends on, when the member before it is closed or a name (with
 * `checkLeft` false, whatever it is). After
 * "\approx" the approximation is taken for a name ("\cos\theta \approx 0.96"); after a closed value,
 * that value is the exact one ("\frac{1}{3} \approx 0.333" is 1/3).
 */
export function resultOf(expr: string, checkLeft = true): string {
  const congruence = congruenceValue(expr);
  if (congruence !== null) return congruence;
  const cuts = [...expr.matchAll(/=|\\approx|≈/g)];
  if (!cuts.length) return expr.trim();
  const [prev, last] = [cuts[cuts.length - 2], cuts[cuts.length - 1]];
  const left = expr.slice(prev ? prev.index + prev[0].length : 0, last.index);
  const right = expr.slice(last.index + last[0].length).trim();
  if (!right) return expr.trim();
  if (last[0] !== '=') return isClosed(left) && /\d/.test(left) ? resultOf(expr.slice(0, last.index), checkLeft) : right;
  return !checkLeft || isClosed(left) || isName(left) ? right : expr.trim();
}

// A modulus closing a congruence: "\pmod{9}", "\pmod 9", "\mod 9", "(\text{mod } 9)", "(mod 9)".
const MODULUS =
  /(?:\s|\\[ ,;])*(?:\\pmod\s*(?:\{[^{}]*\}|\w+)|\\b?mod\s*(?:\{[^{}]*\}|\w+)|\(\s*(?:\\(?:text|mathrm|operatorname)\{\s*mod\s*\}|mod)\s*(?:\\[ ,;]\s*)*\w+\s*\))\s*$/;
/** "1234 \equiv 1 \pmod{9}", "2^{10} = 1024 \equiv 2 \pmod 7": the residue a congruence of a number (no unknowns) ends on; null for anything else. */
export function congruenceValue(expr: string): string | null {
  if (!/\\equiv|≡/.test(expr) || !MODULUS.test(expr)) return null;
  const members = expr.replace(MODULUS, '').split(/\\equiv|≡/);
  const [left, right] = [members[members.length - 2], members[members.length - 1].trim()];
  return new RegExp(String.raw`^${NUMBER}$`).test(right) && isClosed(left) ? right : null;
}

/** "3n", "2x + 1", "2^{y+1}": an expression in one unknown (letters of one kind, with numbers or operators), not a name of it. */
function inOneUnknown(s: string): boolean {
  const letters = new Set(unknowns(s).match(/[a-zA-Z]/g));
  return letters.size === 1 && !/^\s*[a-zA-Z]\s*$/.test(s) && !isName(s);
}
/** An assignment's value ("x = 5", "\frac{kn^2}{lm} = 2l", "\frac{k}{2} + k = \frac{3k}{2}"), except an equation in one unknown with a number on its right ("3n = 15", kept whole). */
function assignedValue(expr: string): string {
  const cuts = [...expr.matchAll(/=/g)];
  const last = cuts[cuts.length - 1];
  const left = last ? expr.slice(cuts.length > 1 ? cuts[cuts.length - 2].index + 1 : 0, last.index) : '';
  return last && inOneUnknown(left) && isClosed(expr.slice(last.index + 1)) ? expr.trim() : lastMember(expr);
}

/** The last member of a chain a sentence states as its value ("... is $180^\circ - x - z = 110^\circ$"), whatever stands before it. */
const lastMember = (expr: string) => resultOf(expr, false);

/** "$x = 2$ or $x = -3$", "$1$, $2$ and $3$": the values, as a comma list (normalization reads it as a set). */
export function mathList(segments: string): string {
  return [...segments.matchAll(/\$([^$]+)\$/g)].map((m) => resultOf(m[1])).join(', ');
}

/** A sentence with an odd number of "$": a bare dollar sign before an amount ("owe $668.50") is currency, not math. */
const currency = (line: string) => ((line.match(/\$/g)?.length ?? 0) % 2 ? line.replace(/\$(?=\d)/g, '') : line);

/** The sentences of a text, trimmed, each clause after ", so" / "; therefore" its own sentence. */
export function sentencesOf(text: string): string[] {
  return text
    .replace(/\*\*|\\\$/g, '') // bold, and escaped dollar signs (which would break math segments)
    .split(/\n+|(?<=[.!?])\s+|\s+(?=(?:Therefore|Thus|Hence|So),?\s)|(?<=[,;]\$?)\s+(?=(?:so|therefore|thus|hence)\s)/)
    .map((l) =>
      currency(
        l
          .trim()
          .replace(/[.!]+$/, '')
          .trim(),
      ),
    )
    .filter(Boolean);
}

/** Every number a text writes as a number (not part of a word or a longer number). */
export const NUMBERS = new RegExp(String.raw`(?<![\w.])${NUMBER}(?![\w.])`, 'g');
const KINDS = String.raw`answer|solution|result|quadratic|polynomial|equation|expression|function|matrix|vector|point|value|number|integer`;
const VERBS = String.raw`is|are|was|were|equals|can|could|must|has|have|will|would|should|may|might|divided|times|plus|minus|as|in`;
const LEAD = String.raw`(?:${STATING}|\bexpression|\bpoint|\bnotation|\bat|\breceived?|:)\s+${ADVERBS}(?:[a-z]+\s+){0,3}`;
const EQUIVALENT = String.raw`(?:,? or ${ADVERBS}\$?${NUMBER}\$?)?`;
const THEREFORE = String.raw`^(?:therefore|thus|hence|so),?\s+`;

/** The rules of `statedValue` and `concludingValue`, each said where it is used; compiled once. */
const RULES = {
  valueLine: new RegExp(String.raw`^(?:\$[^$]+\$|\$\$[^$]+\$\$|\\\[.+\\\]|${NUMBER})$`),
  alone: new RegExp(String.raw`^(?:\$\$([^$]+)\$\$|\$([^$]+)\$|\\\[(.+)\\\]|(${NUMBER})|(even|odd|neither))$`, 'i'),
  closing: new RegExp(String.raw`${LEAD}${MATH_SEGMENT}((?:\s+[a-z]+){0,2})${PLACE}${CONDITION}\s*${CLAUSE_AFTER}$`, 'i'),
  statedFirst: new RegExp(String.raw`${STATING}\s+${ADVERBS}\$?${NUMBER}\$?,\s*(?:which|where)\b`, 'i'),
  list: new RegExp(String.raw`${STATING}\s+${ADVERBS}(\$[^$]+\$(?:\s*(?:,|,?\s*and|,?\s*or)\s*\$[^$]+\$)+)\s*$`, 'i'),
  subject: new RegExp(
    String.raw`^(?:(?:therefore|thus|hence|so|however),?\s+)?(\$[^$]+\$|${NUMBER})\s+is\s+(?:the|our|my)\s+(?:[\w-]+\s+){0,4}?(?:${KINDS})\b`,
    'i',
  ),
  count: new RegExp(String.raw`^(?:(?:therefore|thus|hence|so),?\s+)?(?:.*\bthat )?there (?:are|is) ${ADVERBS}\$?(${NUMBER}|${WORD_NUMBER})\$?\s`, 'i'),
  outOf: new RegExp(String.raw`${STATING}\s+${ADVERBS}(\d+) out of (\d+)(?:,? or ${ADVERBS}\$?${NUMBER}\$?)?$`, 'i'),
  simply: new RegExp(String.raw`${STATING}\s+${ADVERBS}\S+,?\s+or\s+(?:just|simply)\s+\$?(${NUMBER})\$?$`, 'i'),
  stated: new RegExp(
    String.raw`${STATING}\s+${ADVERBS}(?:[A-Z][a-z]+\s+)?(\$?${NUMBER}\$?)${EQUIVALENT}${ASIDE}${UNIT_WORDS}${PLACE}${CLAUSE_AFTER_VALUE}$`,
    'i',
  ),
  expression: new RegExp(String.raw`${STATING}\s+${ADVERBS}(${PLAIN_EXPR})(?:\s+[a-z]+){0,3}${PLACE}$`, 'i'),
  parity: /\b(?:is|are)\s+(?:always\s+)?(?:an?\s+)?(even|odd|neither)(?:\s+nor\s+odd)?(?:\s+(?:function|functions|number))?$/i,
  leading: new RegExp(String.raw`${THEREFORE}(?:\$([^$=]*\d[^$=]*)\$|(${NUMBER}))\s+(?!(?:${VERBS})\b)(?:of\s+)?[a-z]`, 'i'),
  statingBefore: new RegExp(String.raw`${STATING}\s+${ADVERBS}$`, 'i'),
  closingNumber: new RegExp(String.raw`${THEREFORE}[^$\d]*?\s(${NUMBER}|${WORD_NUMBER})${UNIT_WORDS}${PLACE}$`, 'i'),
};

/**
 * A concluding statement's value: of the last conclusion sentence (see CONCLUSION) that states one,
 * the value rule 3 of statement.ts reads; anything wordier is not an answer and stays unparsed.
 * `undefined` when no conclusion states a value; null when a later one hedges or denies (NO_VALUE).
 * With `strong`, only sentences that open with a conclusion word count (and answer statements are
 * the caller's): what may contradict a boxed answer.
 */
export function concludingValue(text: string, strong = false): string | null | undefined {
  const sentences = sentencesOf(text);
  for (let k = sentences.length - 1; k >= 0; k--) {
    const line = sentences[k];
    if (strong ? !STRONG_CONCLUSION.test(line) : k < sentences.length - 1 && !CONCLUSION.test(line)) continue; // the closing sentence needs no conclusion word
    if (REJECTED.test(line)) continue;
    // "Therefore, the integers are:" followed by a line that is only math, or only a value.
    const next = sentences[k + 1];
    if (line.endsWith(':') && next && RULES.valueLine.test(next)) return resultOf(unwrapMath(next));
    if (NO_VALUE.test(line)) return strong && sentences.slice(k + 1).some((l) => /\d|\$/.test(l)) ? undefined : null;
    // A closing line that is only a value ("**205**", "$\frac{1}{2}$", "\[... = \frac{-53}{32}.\]", "Neither").
    const alone = !strong && k === sentences.length - 1 && line.match(RULES.alone);
    if (alone) return alone[5] ? alone[5].toLowerCase() : resultOf((alone[1] ?? alone[2] ?? alone[3] ?? alone[4]).replace(/[.,]\s*$/, ''));
    const value = statedValue(line);
    // After a boxed answer, a conclusion that more values follow is a step on the way, not a second answer.
    if (value !== null) return strong && sentences.slice(k + 1).some((l) => /\d|\$|\\\[|\\begin/.test(l)) ? undefined : value;
  }
  return undefined;
}

/** The value one sentence states (see `concludingValue`), or null. */
export function statedValue(line: string): string | null {
  if (NO_VALUE.test(line)) return null;
  // "Therefore, $x = \frac{21}{31}$.", "So $2x = 90$ and $x = 45$", "hence $\cos 60^\circ = \frac{1}{2}$":
  // a conclusion made of assignments states the value of the last one; an equation in one unknown
  // ("Therefore $3n = 15$") is kept whole: it is no value of the unknown.
  if (/^(?:therefore|thus|hence|so),?\s+\$[^$]*(?:=|\\approx|\\equiv)[^$]*\$/i.test(line)) {
    // (a congruence counts only where it states a residue: "$31n \equiv 3 \pmod{7}$" is no value)
    const assignments = [...line.matchAll(/\$([^$]*(?:=|\\approx|\\equiv)[^$]*)\$/g)].filter(
      (m) => !CONDITIONED.test(line.slice(0, m.index)) && (/=|\\approx/.test(m[1]) || congruenceValue(m[1]) !== null),
    );
    if (assignments.length) return assignedValue(assignments[assignments.length - 1][1]);
  }
  // "the exponents match: $y + 1 = 3$, giving $y = 2$": a sentence that ends on a result clause states its value.
  const result = line.match(/(?:,\s*|\s+)(?:giving|yielding|which gives|and so|and thus|and hence)\s+(?:us\s+)?\$([^$]*=[^$]*)\$$/i);
  if (result) return assignedValue(result[1]);
  // A math segment after a stating word and at most three words ("... is $9$", "... as the mixed
  // number $144\frac15$"), closing the sentence or its main clause, maybe followed by two words
  // that are not a comparison, a place ("in the last division") or a condition ("at $t=2$").
  const closing = line.match(RULES.closing);
  const statedFirst = line.match(RULES.statedFirst);
  if (closing && !COMPARING.test(closing[4]) && !(statedFirst && statedFirst.index! < closing.index!)) {
    const value = lastMember((closing[1] ?? closing[2] ?? closing[3]).trim().replace(/[,.]$/, ''));
    if (!/^[a-zA-Z]$/.test(value)) return value; // a lone variable ("... of $k$ that ...") is no value
  }
  // "... are $x = 2$ and $x = -3$": a list of values (an answer set).
  const list = line.match(RULES.list);
  if (list) return mathList(list[1]);
  // "Therefore, 3172 is the answer.", "Thus, $x^2+1$ is the quadratic we want.", "Therefore, 84,064 is
  // the positive five-digit whole number ...": the value as subject.
  const subject = line.match(RULES.subject);
  if (subject) return resultOf(subject[1].replace(/\$/g, ''));
  const count = line.match(RULES.count);
  if (count) return wordToNumber(count[1]);
  const outOf = line.match(RULES.outOf);
  if (outOf) return `${outOf[1]}/${outOf[2]}`;
  // "is 3^1, or just 3": the simple form.
  const simply = line.match(RULES.simply);
  if (simply) return simply[1];
  // "is 0.0225, or 2.25%": the first of the equivalent forms; "is Year 58": the number after its label.
  const stated = line.match(RULES.stated);
  if (stated) return stated[1].replace(/\$/g, '');
  const expression = line.match(RULES.expression);
  if (expression) return expression[1].trim();
  // "... the sum of two odd functions is always even", "f is an odd function".
  const parity = line.match(RULES.parity);
  if (parity) return parity[1].toLowerCase();
  // "Therefore, $\frac{11}{60}$ of the students walk", "Thus, 70 students did not": a leading value.
  // Not the subject of a verb ("Thus, $f(1)$ is 9"), nor one of several values ("So 110 fallops are 44 wallops").
  const leading = line.match(RULES.leading);
  if (leading && !line.includes('=') && !/\d/.test(line.slice(leading[0].length))) return (leading[1] ?? leading[2]).trim();
  // "Therefore, the swimmer is 300 meters from the finish line when ...": the one number of a conclusion,
  // stated, not compared ("5 more than ..."), about no agent or solution.
  const numbers = [...line.matchAll(NUMBERS)];
  if (STRONG_CONCLUSION.test(line) && numbers.length === 1 && !line.includes('$') && !/\b(?:agents?|solutions?)\b/i.test(line)) {
    const [n] = numbers;
    const next = line
      .slice(n.index + n[0].length)
      .split(/\s+/)
      .slice(0, 4)
      .join(' ');
    if (RULES.statingBefore.test(line.slice(0, n.index)) && !COMPARING.test(next)) return n[0];
  }
  // "Therefore, Tim ends up on step 8.": a conclusion whose one value closes it, about no agent or solution.
  const closingNumber = line.match(RULES.closingNumber);
  if (closingNumber && !/\b(?:agents?|solutions?|approach|method)\b/i.test(line)) return wordToNumber(closingNumber[1]);
  return null;
}
