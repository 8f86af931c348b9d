// Reading a JSON settings file against a zod schema; every problem names the file and the field.
import { existsSync, readFileSync } from 'node:fs';
import type { z } from 'zod';
import { formatProblem, zodProblems } from './cache/load.ts';

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
