// What a case of the malformed-input corpus is (corpus.ts runs them), and what the cases of every kind
// share: the paths of the inputs they damage, the ways of damaging a file (a line edited or replaced by
// raw bytes, a file replaced, a folder in its place, a byte-order mark) and the commands that read a
// cache. The cases themselves, one file per kind of input, sit beside this file.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { INPUT } from '../inputs.ts';

export type Vars = Record<string, string | number>;

export interface CorpusCase {
  id: string;
  kind: 'cache' | 'embeddings' | 'config' | 'grid' | 'checkpoint' | 'flags' | 'import' | 'parquet' | 'columns';
  /** Damage the input in the case's folder (a copy of the inputs); returns values the error names (e.g. the line). */
  // biome-ignore lint/suspicious/noConfusingVoidType: a setup that names nothing returns nothing
  setup?: (ws: string) => Vars | void;
  args: string[];
  /** Expected exit code: 1 (bad input), 2 (a mistyped flag), 'nonzero', or 0 for an input that must be accepted. */
  code: number | 'nonzero';
  /** What the output must say (a regex, `{name}` filled from setup's values): the file, line and field, or the flag. */
  error: string;
  /** What an accepted input may write (e.g. an export): left out of the no-file-changed check. */
  writes?: string[];
  available?: () => boolean;
}

export const CACHE_FILE = `${INPUT.cache}/cache.jsonl`;
export const EMB_FILE = `${INPUT.cache}/embeddings/bof-256.jsonl`;
export const CHECKPOINT = `${INPUT.run}/checkpoint.json`;

const readLines = (file: string) => readFileSync(file, 'utf8').split('\n');

/** Replace the first line of `file` whose record matches `pick` with `edit(record)` (an object, or raw text). */
export function editLine(file: string, pick: (r: Record<string, unknown>) => boolean, edit: (r: Record<string, unknown>) => unknown): (ws: string) => Vars {
  return (ws) => {
    const path = join(ws, file);
    const lines = readLines(path);
    const i = lines.findIndex((l) => l && pick(JSON.parse(l)));
    const edited = edit(JSON.parse(lines[i]));
    if (edited === undefined) lines.splice(i, 1);
    else lines[i] = typeof edited === 'string' ? edited : JSON.stringify(edited);
    writeFileSync(path, lines.join('\n'));
    return { line: i + 1 };
  };
}

/** Write raw bytes in place of line `pick` of `file` (bytes that are no JSON, or no UTF-8). */
export function rawLine(file: string, pick: (r: Record<string, unknown>) => boolean, bytes: (line: string) => Buffer): (ws: string) => Vars {
  return (ws) => {
    const path = join(ws, file);
    const lines = readLines(path);
    const i = lines.findIndex((l) => l && pick(JSON.parse(l)));
    writeFileSync(path, Buffer.concat([Buffer.from(lines.slice(0, i).join('\n') + '\n'), bytes(lines[i]), Buffer.from('\n' + lines.slice(i + 1).join('\n'))]));
    return { line: i + 1 };
  };
}

export const without = (r: Record<string, unknown>, k: string) => Object.fromEntries(Object.entries(r).filter(([f]) => f !== k));
export const type = (t: string) => (r: Record<string, unknown>) => r.type === t;
export const round2 = (r: Record<string, unknown>) => r.type === 'response' && r.round === 2;
export const replaceFile = (file: string, content: string | Buffer) => (ws: string) => writeFileSync(join(ws, file), content);
export const folderInstead = (file: string) => (ws: string) => {
  rmSync(join(ws, file), { force: true });
  mkdirSync(join(ws, file), { recursive: true });
};
export const withBom = (file: string) => (ws: string) => writeFileSync(join(ws, file), '\uFEFF' + readFileSync(join(ws, file), 'utf8'));
/** Float32 values of a base64 vector, edited. */
export const editVector = (b64: string, edit: (v: Float32Array) => Float32Array) => {
  const bytes = Buffer.from(b64, 'base64');
  const v = edit(new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4).slice());
  return Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('base64');
};
export const nanAt0 = (v: Float32Array) => ((v[0] = NaN), v);

/** The commands that read a cache: `cache validate`, and `train` (with the inputs' config). */
export const validateArgs = ['cache', 'validate', INPUT.cache];
export const trainArgs = ['train', '--cache', INPUT.cache, '--config', INPUT.config, '--out', 'new-run'];
