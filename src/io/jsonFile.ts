// Reading a JSON settings file, or a JSONL file, against a zod schema; every problem names the file, line and field.
// Also the derived files of entries a process keeps for the next (keptEntries), where a bad file is no error: it is made again.
import { existsSync, readFileSync } from 'node:fs';
import type { z } from 'zod';
import { writeFileAtomic } from './atomic.ts';
import { InputError } from './errors.ts';
import { checkedLines, formatProblem, zodProblems, type Problem } from './problems.ts';
import { fileLines, readTextFile } from './textFile.ts';

export function readJsonFile<T extends z.ZodType>(file: string, schema: T): z.infer<T> {
  const text = readTextFile(file);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new InputError(`${file}: invalid JSON: ${(e as Error).message}`);
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) throw new InputError(zodProblems(parsed.error.issues, file, 0).map(formatProblem).join('\n'));
  return parsed.data;
}

/** A JSONL file read against a zod schema, one record a line (blank lines skipped); every problem names file and line. */
export function readJsonLines<T extends z.ZodType>(file: string, schema: T): z.infer<T>[] {
  const problems: Problem[] = [];
  // checkedLines yields each line's JSON as read; the schema's defaults come from parsing it once more.
  const records = [...checkedLines(fileLines(file), file, () => schema, problems)].map(({ rec }) => schema.parse(rec) as z.infer<T>);
  if (problems.length) throw new InputError(problems.map(formatProblem).join('\n'));
  return records;
}

/** The entries of a derived JSON object file (kept hashes, fits, behavior rows): none when it is not there or does not parse (each is then made again). */
export function keptEntries(file: string): Record<string, unknown> {
  if (!existsSync(file)) return {};
  try {
    const kept = JSON.parse(readFileSync(file, 'utf8')) as unknown;
    return kept && typeof kept === 'object' && !Array.isArray(kept) ? (kept as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** Keep `value` under `key` in the derived file `file` (its other entries as they are now); a file that cannot be written is said, with what the next process does `again`. */
export function keepEntry(file: string, key: string, value: unknown, again: string): void {
  try {
    writeFileAtomic(file, [`${JSON.stringify({ ...keptEntries(file), [key]: value })}\n`]);
  } catch (e) {
    console.error(`${file}: could not be written (${(e as Error).message}); the next process ${again} again`);
  }
}
