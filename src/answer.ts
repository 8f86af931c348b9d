// Answer extraction and benchmark normalization (SPEC §1, "Correctness").
// Two answers are equal when their normalized forms are equal strings; an answer that cannot be
// parsed is `null` and is never guessed.

export const ANSWER_TYPES = ['mcq', 'numeric', 'math'] as const;
export type AnswerType = (typeof ANSWER_TYPES)[number];

/** The content of the last `\boxed{...}` (or `\fbox{...}`; nested braces allowed), or null. */
export function lastBoxed(text: string): string | null {
  const at = Math.max(text.lastIndexOf('\\boxed'), text.lastIndexOf('\\fbox'));
  if (at < 0) return null;
  let i = text.indexOf('{', at);
  if (i < 0) return null;
  const start = ++i;
  for (let depth = 1; i < text.length; i++) {
    if (text[i] === '{') depth++;
    else if (text[i] === '}' && --depth === 0) return text.slice(start, i);
  }
  return null;
}

/** Strip one layer of `$...$`, `$$...$$` or `\(...\)` / `\[...\]` around a whole answer. */
const unwrapMath = (s: string) =>
  s
    .trim()
    .replace(/^\$\$([\s\S]*)\$\$$|^\$([\s\S]*)\$$|^\\\(([\s\S]*)\\\)$|^\\\[([\s\S]*)\\\]$/, (_m, a, b, c, d) => a ?? b ?? c ?? d)
    .trim();

// Sentences that state a conclusion: "Therefore, X is 9.", "So the son is 6 years old.",
// "The value of $b$ is 7004.", "There are 120 ways to ...".
const CONCLUSION = /^(?:therefore|thus|hence|so|in conclusion|in interval notation|finally|overall|as a result|in summary|consequently|the (?:final |correct |updated )?answer|there (?:are|is)|the (?:value|number|sum|probability|product|area|result|solution|ratio|length|distance|expected value|total|remainder|maximum|minimum)\b)/i;
// A number as stated in prose: "-3", "1,000", "0.25", "3/4", "6 3/4" or "6 and 3/4" (mixed), "35.1%".
const NUMBER = String.raw`-?\d[\d,]*(?:\.\d+)?(?:(?: and)? \d+\/\d+|\/\d+)?%?`;
const WORD_NUMBERS = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten', 'eleven', 'twelve'];
const WORD_NUMBER = `(?:${WORD_NUMBERS.join('|')})`;
const STATING = String.raw`(?:\bis|\bare|\bwas|\bwere|=|\bequals|\bbe|\bget|\bobtain|\bgives(?: us)?|\bas|\bhas(?: a value of)?|\bvalue of)`;
const ADVERBS = String.raw`(?:(?:approximately|about|exactly|indeed|equal to|just|still|now|then|currently|simply|also|actually|only|roughly|given by|a total of|\w+ly)\s+)*`;

/**
 * A concluding statement's value: of the last conclusion sentence (see CONCLUSION) that states one,
 * the math segment that closes it (after its last "="), or a plain number after its last "is",
 * "are" or "=" (a few unit words may follow; a "there are N ..." count may be followed by anything).
 * Anything wordier is not an answer and stays unparsed.
 */
function concludingValue(text: string): string | null {
  const sentences = text
    .split(/\n+|(?<=[.!?])\s+|\s+(?=(?:Therefore|Thus|Hence|So),?\s)/)
    .map((l) => l.trim().replace(/[.!]+$/, '').trim())
    .filter(Boolean);
  for (let k = sentences.length - 1; k >= 0; k--) {
    const line = sentences[k];
    if (k < sentences.length - 1 && !CONCLUSION.test(line)) continue; // the closing sentence needs no conclusion word
    // "Therefore, the integers are:" followed by a line that is only math.
    const next = sentences[k + 1];
    if (line.endsWith(':') && next && /^(?:\$[^$]+\$|\$\$[^$]+\$\$|\\\[.+\\\])$/.test(next)) return unwrapMath(next);
    const value = statedValue(line);
    if (value !== null) return value;
  }
  return null;
}

/** The value one sentence states (see `concludingValue`), or null. */
function statedValue(line: string): string | null {
  // "Therefore, $x = \frac{21}{31}$." / "Thus, $n=57$ is the solution.": the value after the last "=".
  const assigned = line.match(/^(?:therefore|thus|hence|so),?\s+\$([^$]*=[^$]*)\$/i);
  if (assigned) return assigned[1].slice(assigned[1].lastIndexOf('=') + 1).trim();
  // A math segment after a stating word and at most three words ("... is $9$", "... as the mixed
  // number $144\frac15$"), closing the sentence or its main clause.
  const closing = line.match(new RegExp(`(?:${STATING}|\\bexpression|\\bpoint|\\bnotation|:)\\s+${ADVERBS}(?:[a-z]+\\s+){0,3}(?:\\$\\$([^$]+)\\$\\$|\\$([^$]+)\\$|\\\\\\[(.+?)\\\\\\])(?:\\s+[a-z]+){0,2}\\s*(?:[,;].*|\\s(?:which|where|since|because)\\b.*)?$`, 'i'));
  if (closing) {
    const math = (closing[1] ?? closing[2] ?? closing[3]).trim().replace(/[,.]$/, '');
    return math.includes('=') ? math.slice(math.lastIndexOf('=') + 1).trim() : math;
  }
  const count = line.match(new RegExp(`^(?:(?:therefore|thus|hence|so),?\\s+)?(?:.*\\bthat )?there (?:are|is) ${ADVERBS}\\$?(${NUMBER}|${WORD_NUMBER})\\$?\\s`, 'i'));
  if (count) return WORD_NUMBERS.includes(count[1].toLowerCase()) ? String(WORD_NUMBERS.indexOf(count[1].toLowerCase())) : count[1];
  const outOf = line.match(new RegExp(`${STATING}\\s+${ADVERBS}(\\d+) out of (\\d+)(?:,? or ${ADVERBS}\\$?${NUMBER}\\$?)?$`, 'i'));
  if (outOf) return `${outOf[1]}/${outOf[2]}`;
  // "is 0.0225, or 2.25%": the first of the equivalent forms; "is Year 58": the number after its label.
  const stated = line.match(new RegExp(`${STATING}\\s+${ADVERBS}(?:[A-Z][a-z]+\\s+)?(\\$?${NUMBER}\\$?)(?:,? or ${ADVERBS}\\$?${NUMBER}\\$?)?(?:\\s+[a-z]+){0,4}(?:,\\s*(?:and|which|where|since|because)\\b.*)?$`, 'i'));
  if (stated) return stated[1].replace(/\$/g, '');
  return null;
}

/**
 * The raw stated answer of a response: the last `\boxed{}`, else the last "The answer is ...",
 * else a concluding statement's value (see `concludingValue`); null when none is found.
 */
export function extractAnswer(text: string): string | null {
  const boxed = lastBoxed(text);
  if (boxed !== null) return boxed.trim();
  // "The answer is", "my updated answer is", "Answer:"; not "their answer is" (debaters discuss each other's).
  // Verdicts ("the answer is correct") state no answer.
  const matches = [...text.matchAll(/(?<!\b(?:their|his|her|your|its|agent'?s?'?|agents'|other|one|second|first|third) (?:\w+ )?)answer(?: is[:\s]*|:\s*)([^\n]+?)(?:\.\s|\.?$|\n)/gim)]
    .filter((m) => !/^(?:not |also |indeed |still )*(?:correct|incorrect|wrong|right|valid|invalid|accurate|inaccurate|reasonable|reliable|consistent|verified|confirmed)\b/i.test(m[1].trim()));
  const last = matches[matches.length - 1];
  if (!last) return concludingValue(text);
  // A concluding sentence after the last answer statement wins; else that statement is the answer,
  // and one that names no value ("the answer is that there is no solution") means none: earlier
  // values are not guessed from.
  return concludingValue(text.slice(last.index + last[0].length)) ?? answerPhrase(last[1]);
}

/**
 * The value in what follows "The answer is": a leading math segment or number ("$12$, as agent 1
 * found", "0.377 or 37.7%", "that there are 49 ways"), a multiple-choice letter with its text, or a
 * short phrase, else the value a sentence states ("that last year's enrollment was 575 students");
 * null for other prose ("To find the probability, ...").
 */
function answerPhrase(phrase: string): string | null {
  const p = phrase.trim();
  const math = p.match(/^(?:\$\$([^$]+)\$\$|\$([^$]+)\$)/);
  if (math) return (math[1] ?? math[2]).trim();
  const number = p.match(new RegExp(`^(?:that )?(?:there (?:are|is) )?${ADVERBS}(${NUMBER})(?=$|[\\s,;])`, 'i'));
  if (number) return number[1];
  // "the same as theirs: 371146600", "6!/8 = 720/8 = 90 ways to seat them": the value it ends on.
  const after = p.match(new RegExp(`(?::|=)\\s*\\$?(${NUMBER})\\$?(?:\\s+[a-z][^=:]*)?$`, 'i'));
  if (after) return after[1];
  if (/^\(?[A-J]\)/.test(p) || !/[a-z]{2,}\s+[a-z]{2,}\s+[a-z]{2,}/i.test(p)) return unwrapMath(p);
  const sentence = p.replace(/^that\s+/i, '').replace(/[.!]+$/, '');
  // A final answer stated in a sentence that names exactly one number ("the car travels 137.5 feet
  // from the time ...", "Tim ends on step $8$") states that number; with two ("either 12 or 28")
  // or none it states no single answer.
  const numbers = [...sentence.matchAll(new RegExp(`(?<![\\w.])${NUMBER}(?![\\w.])`, 'g'))];
  return statedValue(sentence) ?? (numbers.length === 1 ? numbers[0][0] : null);
}

function normalizeMcq(raw: string): string | null {
  const m = raw.trim().match(/^\(?([A-Ja-j])\)?(?:[.:)\s]|$)/);
  return m ? m[1].toUpperCase() : null;
}

function normalizeNumeric(raw: string): string | null {
  const cleaned = raw.replace(/[$,\s]|\\!|\\?%/g, '');
  const value = Number(cleaned);
  return cleaned !== '' && Number.isFinite(value) ? String(value) : null;
}

const gcd = (a: bigint, b: bigint): bigint => (b === 0n ? (a < 0n ? -a : a) : gcd(b, a % b));

/**
 * A plain rational number (`-3`, `0.50`, `1,000`, `3/4`, `\frac{-3}{4}`, `-\frac34`, mixed `6\frac{3}{4}`) in one
 * canonical form: an integer or terminating decimal as a decimal, any other ratio as `p/q`.
 * So `\frac{1}{2}`, `1/2` and `0.5` compare equal. Null for anything that is not such a number.
 */
function canonicalNumber(s: string): string | null {
  const m =
    s.match(/^(-?)\\frac\{(-?\d+)\}\{(-?\d+)\}$/) ?? s.match(/^(-?)\\frac(\d)(\d)$/) ?? s.match(/^(-?)(-?\d+)\/(-?\d+)$/);
  const mixed = s.match(/^(-?)(\d+)\\frac\{(\d+)\}\{(\d+)\}$/); // MATH writes 6\frac{3}{4} for six and three quarters
  let num: bigint, den: bigint;
  if (mixed) {
    den = BigInt(mixed[4]);
    num = (BigInt(mixed[2]) * den + BigInt(mixed[3])) * (mixed[1] ? -1n : 1n);
  } else if (m) {
    num = BigInt(m[2]) * (m[1] ? -1n : 1n);
    den = BigInt(m[3]);
  } else {
    const d = s.replace(/^(-?\d{1,3}(?:,\d{3})+)(\.\d+)?$/, (_x, a: string, b = '') => a.replace(/,/g, '') + b);
    const dm = d.match(/^(-?)(\d*)(?:\.(\d+))?$/);
    if (!dm || (dm[2] === '' && dm[3] === undefined)) return null;
    const frac = dm[3] ?? '';
    num = BigInt((dm[2] || '0') + frac) * (dm[1] ? -1n : 1n);
    den = 10n ** BigInt(frac.length);
  }
  if (den === 0n) return null;
  if (den < 0n) [num, den] = [-num, -den];
  const g = gcd(num, den) || 1n;
  [num, den] = [num / g, den / g];
  let twos = 0, fives = 0, rest = den;
  while (rest % 2n === 0n) [rest, twos] = [rest / 2n, twos + 1];
  while (rest % 5n === 0n) [rest, fives] = [rest / 5n, fives + 1];
  if (rest !== 1n) return `${num}/${den}`;
  const places = Math.max(twos, fives);
  const scaled = (num * 10n ** BigInt(places)) / den; // exact: den divides 10^places
  const sign = scaled < 0n ? '-' : '';
  const digits = (scaled < 0n ? -scaled : scaled).toString().padStart(places + 1, '0');
  return places === 0 ? `${sign}${digits}` : `${sign}${digits.slice(0, -places)}.${digits.slice(-places)}`;
}

// Unit words stated after a MATH answer ("12 inches", "5\text{ cm}^2"); removed before comparing.
const UNIT_WORDS = '(?:square |cubic |sq\\.? )?(?:units?|inches|inch|feet|foot|ft|meters?|centimeters?|cm|mm|km|miles?|yards?|degrees?|dollars?|cents?|hours?|minutes?|seconds?|days?|weeks?|years?|mph|pounds?|ounces?)(?:\\^\\{?[23]\\}?)?';
const UNIT_TEXT = new RegExp(`\\\\(?:text|mbox|mathrm)\\{\\s*${UNIT_WORDS}\\s*\\}(?:\\^\\{?[23]\\}?)?`, 'gi');
const UNIT_BARE = new RegExp(`(?<=[\\d}])\\s*${UNIT_WORDS}\\b`, 'gi');

/** MATH answer normalization, after Hendrycks et al.'s `strip_string`, plus rational canonicalization. */
function normalizeMath(raw: string): string | null {
  let s = unwrapMath(raw)
    .replace(/\\left|\\right|\\!|\\,|\\;|\\:|\\ |\\displaystyle|\\\$/g, '')
    .replace(/\\[dtc]frac/g, '\\frac')
    .replace(/\^\s*\{?\\circ\}?|°|\\circ|\\degree/g, '')
    .replace(/\\?%/g, '')
    .replace(/\$/g, '');
  s = s.replace(UNIT_TEXT, '').replace(UNIT_BARE, '').replace(/\\text\{\s*\}/g, '');
  // Hendrycks' rule: "\text{ ...}" opened by a space after a value is a unit, whatever it says.
  s = s.replace(/(?<=\S)\s*\\(?:text|mbox)\{\s[^{}]*\}.*$/, '');
  s = s.replace(/^(-?\d+)\s+(?:and\s+)?(\d+)\/(\d+)$/, '$1\\frac{$2}{$3}'); // "6 3/4" is six and three quarters
  s = s.replace(/\s+/g, '').replace(/[.,;]+$/, '');
  // "x = 5", "n=11": drop a short variable name on the left (not an equation's right-hand side).
  s = s.replace(/^[a-zA-Z](?:_\{?\d+\}?)?=(?!=)/, '');
  s = s
    .replace(/\\text\{([^{}]*)\}/g, '$1') // remaining \text{} (e.g. text answers): keep the words
    .replace(/\\sqrt(\w)/g, '\\sqrt{$1}')
    .replace(/\\frac(\d)(\d)/g, '\\frac{$1}{$2}')
    .replace(/\\frac\{([^{}]+)\}(\d)/g, '\\frac{$1}{$2}')
    .replace(/\\frac(\d)\{/g, '\\frac{$1}{')
    .replace(/(^|[^\d])\.(\d)/g, '$10.$2')
    .replace(/^\\frac\{-([^{}]+)\}/, '-\\frac{$1}'); // \frac{-1}{x} = -\frac{1}{x}
  if (s === '') return null;
  return canonicalNumber(s) ?? s;
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
