// Reading a JSON settings file, or a JSONL file, against a zod schema; every problem names the file, line and field.
import { existsSync, readFileSync } from 'node:fs';
import type { z } from 'zod';
import { checkedLines, fileLines, formatProblem, zodProblems, type Problem } from './cache/load.ts';

export function readJsonFile<T extends z.ZodType>(file: string, schema: T): z.infer<T> {
  if (!existsSync(file)) throw new Error(`${file}: file not found`);
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new Error(`${file}: invalid JSON: ${(e as Error).message}`);
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) throw new Error(zodProblems(parsed.error.issues, file, 0).map(formatProblem).join('\n'));
  return parsed.data;
}

/** A JSONL file read against a zod schema, one record a line (blank lines skipped); every problem names file and line. */
export function readJsonLines<T extends z.ZodType>(file: string, schema: T): z.infer<T>[] {
  if (!existsSync(file)) throw new Error(`${file}: file not found`);
  const problems: Problem[] = [];
  // checkedLines yields each line's JSON as read; the schema's defaults come from parsing it once more.
  const records = [...checkedLines(fileLines(file), file, () => schema, problems)].map(({ rec }) => schema.parse(rec) as z.infer<T>);
  if (problems.length) throw new Error(problems.map(formatProblem).join('\n'));
  return records;
}
