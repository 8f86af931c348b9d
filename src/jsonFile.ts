// Reading a JSON settings file, or a JSONL file, against a zod schema; every problem names the file, line and field.
import type { z } from 'zod';
import { formatProblem, zodProblems, type Problem } from './cache/load.ts';
import { fileLines, readTextFile } from './textFile.ts';

export function readJsonFile<T extends z.ZodType>(file: string, schema: T): z.infer<T> {
  const text = readTextFile(file);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new Error(`${file}: invalid JSON: ${(e as Error).message}`);
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) throw new Error(zodProblems(parsed.error.issues, file, 0).map(formatProblem).join('\n'));
  return parsed.data;
}

/** A JSONL file read against a zod schema, one record a line (blank lines skipped); every problem names file and line. */
export function readJsonLines<T extends z.ZodType>(file: string, schema: T): z.infer<T>[] {
  const problems: Problem[] = [];
  const records: z.infer<T>[] = [];
  let line = 0;
  for (const text of fileLines(file)) {
    line++;
    if (text.trim() === '') continue;
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (e) {
      problems.push({ file, line, field: '', message: `invalid JSON: ${(e as Error).message}` });
      continue;
    }
    const parsed = schema.safeParse(json);
    if (parsed.success) records.push(parsed.data);
    else problems.push(...zodProblems(parsed.error.issues, file, line));
  }
  if (problems.length) throw new Error(problems.map(formatProblem).join('\n'));
  return records;
}
