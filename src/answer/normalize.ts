// Normalization of numeric and MATH answers: equal answers written differently become the same
// string, so that the fast path (string equality) decides most comparisons. What it cannot make
// equal (reordered terms, equivalent radicals, forms of pi) is left to equivalence.ts.
import { parseMath, printMath } from './structure.ts';

/** Strip one layer of `$...$`, `$$...$$` or `\(...\)` / `\[...\]` around a whole answer. */
export const unwrapMath = (s: string) =>
  s
    .trim()
    .replace(/^\$\$([\s\S]*)\$\$$|^\$([\s\S]*)\$$|^\\\(([\s\S]*)\\\)$|^\\\[([\s\S]*)\\\]$/, (_m, a, b, c, d) => a ?? b ?? c ?? d)
    .trim();

export function normalizeNumeric(raw: string): string | null {
  const cleaned = raw.replace(/\*\*|[$,\s]|\\!|\{,\}|\\?%/g, '');
  const value = Number(cleaned);
  return cleaned !== '' && Number.isFinite(value) ? String(value) : null;
}

const gcd = (a: bigint, b: bigint): bigint => (b === 0n ? (a < 0n ? -a : a) : gcd(b, a % b));

/**
 * A plain rational number (`-3`, `0.50`, `1,000`, `3/4`, `\frac{-3}{4}`, `-\frac34`, mixed `6\frac{3}{4}`) in one
 * canonical form: an integer or terminating decimal as a decimal, any other ratio as `p/q`.
 * So `\frac{1}{2}`, `1/2` and `0.5` compare equal. Null for anything that is not such a number.
 */
export function canonicalNumber(s: string): string | null {
  const m = s.match(/^(-?)\\frac\{(-?\d+)\}\{(-?\d+)\}$/) ?? s.match(/^(-?)\\frac(\d)(\d)$/) ?? s.match(/^(-?)(-?\d+)\/(-?\d+)$/);
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
  let twos = 0,
    fives = 0,
    rest = den;
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
const UNIT_NAMES = [
  String.raw`units?|inches|inch|feet|foot|ft|meters?|centimeters?|cm|mm|km|miles?|yards?|degrees?`,
  String.raw`dollars?|cents?|hours?|minutes?|seconds?|days?|weeks?|years?|mph|pounds?|ounces?`,
].join('|');
const UNIT_WORDS = String.raw`(?:square |cubic |sq\.? )?(?:${UNIT_NAMES})(?:\^\{?[23]\}?)?`;
const UNIT_TEXT = new RegExp(`\\\\(?:text|mbox|mathrm)\\{\\s*${UNIT_WORDS}\\s*\\}(?:\\^\\{?[23]\\}?)?`, 'gi');
const UNIT_BARE = new RegExp(`(?<=[\\d}])\\s*${UNIT_WORDS}\\b`, 'gi');
// "5 \text{ or } 9", "x = 5 or x = 9", "1, 2, and 3": the listed values, as a set (see structure.ts).
const LIST_WORD = /\s*,?\s*(?:\\(?:text|mbox|textrm|mathrm)\{\s*(?:or|and)\s*\}|(?<![\\a-zA-Z])(?:or|and)(?![a-zA-Z]))\s*/g;

/** A normalized expression leaf: plain numbers in canonical form. */
const leaf = (text: string) => canonicalNumber(text) ?? text;

/**
 * MATH answer normalization, after Hendrycks et al.'s `strip_string`, plus rational canonicalization
 * of every number, in lists, points, intervals and matrices too (see structure.ts).
 */
export function normalizeMath(raw: string): string | null {
  let s = unwrapMath(raw.replace(/\*\*/g, ''))
    .replace(/π/g, '\\pi ')
    .replace(/√/g, '\\sqrt')
    .replace(/−/g, '-')
    .replace(/×/g, '\\times ')
    .replace(/·/g, '\\cdot ')
    .replace(/∞/g, '\\infty ')
    .replace(/\{,\}/g, '') // "2{,}100": LaTeX's thousands separator
    .replace(/\\left|\\right|(?<!\\)\\[!,;: ]|\\quad|\\qquad|\\displaystyle|\\\$/g, ' ') // spacing commands, not the row break before a space
    .replace(/\\[dtc]frac/g, '\\frac')
    .replace(/\^\s*(?:\{\\circ\}|\\circ)|°|\\circ|\\degree/g, '') // a degree sign, never the brace it sits before
    .replace(/\\?%/g, '')
    .replace(/\$/g, '')
    .replace(/(?<![\\a-zA-Z])pi(?![a-zA-Z])/g, '\\pi ')
    .replace(/(?<![\\a-zA-Z])sqrt\s*\(([^()]*)\)/g, '\\sqrt{$1}') // plain-text sqrt(3)
    .trim();
  s = s.replace(/^(-?\d+)\s+(?:and\s+)?(\d+)\/(\d+)$/, '$1\\frac{$2}{$3}'); // "6 3/4" is six and three quarters
  s = s.replace(/^(?:either|both)\s+/i, '').replace(LIST_WORD, ',');
  s = s
    .replace(UNIT_TEXT, '')
    .replace(UNIT_BARE, '')
    .replace(/\\text\{\s*\}/g, '');
  // Hendrycks' rule: "\text{ ...}" opened by a space after a value is a unit, whatever it says.
  s = s.replace(/(?<=\S)\s*\\(?:text|mbox)\{\s[^{}]*\}.*$/, '');
  s = s.replace(/\s+/g, '').replace(/[.,;]+$/, '');
  // "x = 5", "n=11", "x \in [2, 5]": drop a short variable name on the left (not an equation's right-hand side).
  s = s.replace(/^[a-zA-Z](?:_\{?\d+\}?)?(?:=(?!=)|\\in(?![a-zA-Z]))/, '');
  s = s
    .replace(/\\text\{([^{}]*)\}/g, '$1') // remaining \text{} (e.g. text answers): keep the words
    .replace(/\\sqrt(\w)/g, '\\sqrt{$1}')
    .replace(/\\frac(\d)(\d)/g, '\\frac{$1}{$2}')
    .replace(/\\frac\{([^{}]+)\}(\d)/g, '\\frac{$1}{$2}')
    .replace(/\\frac(\d)\{/g, '\\frac{$1}{')
    .replace(/(^|[^\d])\.(\d)/g, '$10.$2')
    .replace(/(^|[,([{&])\\frac\{-([^{}]+)\}/g, '$1-\\frac{$2}'); // \frac{-1}{x} = -\frac{1}{x}
  if (s === '') return null;
  return canonicalNumber(s) ?? printMath(parseMath(s), leaf);
}

/**
 * Whether a MATH answer reads as mathematics: braces balanced and brackets as many closed as opened
 * (intervals mix them), no operator or punctuation dangling at either end, and not prose (no run of
 * four words outside LaTeX commands: "\text{odd}", "Monday", "A, B, E" and "\text{if }x>0" are
 * answers; ", which is 431" and "all nonnegative real numbers except 0" are not).
 */
export function wellFormedMath(raw: string): boolean {
  const s = unwrapMath(raw.replace(/\*\*/g, ''));
  let braces = 0;
  let brackets = 0;
  for (const c of s) {
    if (c === '{') braces++;
    else if (c === '}' && --braces < 0) return false;
    else if (c === '(' || c === '[') brackets++;
    else if (c === ')' || c === ']') brackets--;
  }
  if (braces !== 0 || brackets !== 0 || /^[,.;:=*/^]|[,;:=+\-*/^\\]$/.test(s)) return false;
  return !/(?:\b[a-zA-Z]{2,}\s+){3}[a-zA-Z]{2,}\b/.test(s.replace(/\\[a-zA-Z]+/g, ' '));
}
