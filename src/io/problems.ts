// Settings that fail their schema, said as sentences a user can act on ("--workers 0: must be at
// least 1"), never as zod's raw issue list. Each setting's range lives in its schema; this only
// words what the schema found.
import type { z } from 'zod';
import { SettingsError } from './errors.ts';

/** A setting's flag name: batchSize -> batch-size. */
export const kebab = (s: string) => s.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

/** What a value must be, from a zod issue (zod's own message where no plainer one fits). */
export function issueSentence(i: z.core.$ZodIssue): string {
  // A schema's own message (a range with its reason) is already a sentence; zod's defaults are not.
  if (!/^(Too (small|big)|Invalid|Expected|Unrecognized)/.test(i.message)) return i.message;
  switch (i.code) {
    case 'too_small':
      if (i.origin === 'number' || i.origin === 'bigint') return `must be ${i.inclusive ? 'at least' : 'more than'} ${i.minimum}`;
      if (i.origin === 'array') return `needs at least ${i.minimum} ${Number(i.minimum) === 1 ? 'entry' : 'entries'}`;
      if (i.origin === 'string') return Number(i.minimum) === 1 ? 'must not be empty' : `must be at least ${i.minimum} characters`;
      return i.message;
    case 'too_big':
      if (i.origin === 'number' || i.origin === 'bigint') return `must be ${i.inclusive ? 'at most' : 'less than'} ${i.maximum}`;
      if (i.origin === 'array') return `takes at most ${i.maximum} entries`;
      return i.message;
    case 'invalid_type':
      return i.expected === 'int' ? 'must be a whole number' : `must be ${/^[aeiou]/.test(i.expected) ? 'an' : 'a'} ${i.expected}`;
    case 'invalid_value':
      return `must be ${i.values.length === 1 ? JSON.stringify(i.values[0]) : `one of ${i.values.map((v) => JSON.stringify(v)).join(', ')}`}`;
    case 'unrecognized_keys':
      return 'unknown field';
    default:
      return i.message;
  }
}

/** The value at an issue's path in `input`, for "found ..." (undefined when absent). */
function valueAt(input: unknown, path: PropertyKey[]): unknown {
  let v = input;
  for (const k of path) v = v && typeof v === 'object' ? (v as Record<PropertyKey, unknown>)[k] : undefined;
  return v;
}

/**
 * Parse `input` with `schema`; on failure one error whose lines say, for each problem, where it is
 * (`name(path)`: a flag, or a file and field), what the value must be, and what was found.
 */
export function parseSettings<T extends z.ZodType>(schema: T, input: unknown, name: (path: string) => string): z.infer<T> {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  throw new SettingsError(
    parsed.error.issues
      .flatMap((i) => {
        // An unknown key is named itself, one line each.
        if (i.code === 'unrecognized_keys') return i.keys.map((k) => `${name([...i.path, k].join('.'))}: ${issueSentence(i)}`);
        const found = valueAt(input, i.path);
        return [
          `${name(i.path.join('.'))}: ` +
            `${issueSentence(i)}${found !== undefined ? ` (found ${typeof found === 'number' ? String(found) : JSON.stringify(found)})` : ''}`,
        ];
      })
      .join('\n'),
  );
}

export interface Problem {
  file: string;
  line: number; // 1-based; 0 when the problem is about the file as a whole
  field: string;
  message: string;
}

export const formatProblem = (p: Problem) => `${p.file}${p.line ? `:${p.line}` : ''}: ${p.field ? `${p.field}: ` : ''}${p.message}`;

/** Zod issues as problems; an unknown key is named as the field. */
export function zodProblems(issues: z.core.$ZodIssue[], file: string, line: number): Problem[] {
  return issues.map((i) => ({
    file,
    line,
    field: i.code === 'unrecognized_keys' ? [...i.path, i.keys.join(',')].join('.') : i.path.join('.') || 'type',
    message: issueSentence(i),
  }));
}

/**
 * The lines of a JSON-lines file that parse and pass `schemaOf(line)`, with their line numbers;
 * every other line becomes a problem, unless `notJson` claims it (returns true).
 */
export function* checkedLines<T>(
  lines: Iterable<string>,
  file: string,
  schemaOf: (line: number) => z.ZodType<T>,
  problems: Problem[],
  notJson?: (text: string, line: number) => boolean,
): Generator<{ rec: T; line: number }> {
  let line = 0;
  for (const text of lines) {
    line++;
    if (text.trim() === '') continue;
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (e) {
      if (!notJson?.(text, line)) problems.push({ file, line, field: '', message: `invalid JSON: ${(e as Error).message}` });
      continue;
    }
    const parsed = schemaOf(line).safeParse(json);
    if (parsed.success)
      yield { rec: json as T, line }; // strict schemas without defaults: the JSON is the record
    else problems.push(...zodProblems(parsed.error.issues, file, line));
  }
}
