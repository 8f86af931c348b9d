// Answer extraction and benchmark normalization (SPEC §1, "Correctness").
// Two answers are equal when their normalized forms are equal strings; an answer that cannot be
// parsed is `null` and is never guessed.

export const ANSWER_TYPES = ['mcq', 'numeric', 'math'] as const;
export type AnswerType = (typeof ANSWER_TYPES)[number];

/** The content of the last `\boxed{...}` (nested braces allowed), or null. */
export function lastBoxed(text: string): string | null {
  const at = text.lastIndexOf('\\boxed');
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

/** The raw stated answer of a response: last `\boxed{}`, else the last "The answer is ...". */
export function extractAnswer(text: string): string | null {
  const boxed = lastBoxed(text);
  if (boxed !== null) return boxed.trim();
  const matches = [...text.matchAll(/answer is[:\s]*([^\n]+?)(?:\.\s|\.?$|\n)/gim)];
  if (matches.length === 0) return null;
  return matches[matches.length - 1][1].trim().replace(/^\$(.*)\$$/, '$1');
}

function normalizeMcq(raw: string): string | null {
  const m = raw.trim().match(/^\(?([A-Ja-j])\)?(?:[.:)\s]|$)/);
  return m ? m[1].toUpperCase() : null;
}

function normalizeNumeric(raw: string): string | null {
  const cleaned = raw.replace(/[$,\s]|\\!|%/g, '');
  const value = Number(cleaned);
  return cleaned !== '' && Number.isFinite(value) ? String(value) : null;
}

function normalizeMath(raw: string): string | null {
  let s = raw
    .replace(/\\left|\\right|\\!|\\,|\\;|\\ /g, '')
    .replace(/\\[dt]frac/g, '\\frac')
    .replace(/\^\{?\\circ\}?|°/g, '')
    .replace(/\\text\{\s*\}/g, '')
    .replace(/\s+/g, '')
    .replace(/\.$/, '');
  if (s === '') return null;
  const numeric = normalizeNumeric(s);
  if (numeric !== null) s = numeric;
  return s;
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
