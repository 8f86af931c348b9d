// The malformed-input corpus: each case damages one input (a cache line, an
// embeddings file, a config, a grid, a checkpoint, an import file) or passes one bad flag, runs the
// command that reads it, and expects: its exit code, an error naming the file (and line and field)
// or the flag, no stack trace, and no file created or changed anywhere in the case's folder. A few
// cases are inputs that must be ACCEPTED (a pretty-printed checkpoint, a byte-order mark): the same
// checks with exit 0. The corpus is data: tables of damages crossed with the commands that read them.
// The cases, one file per kind of input (corpus/cache.ts, embeddings.ts, config.ts, grid.ts,
// checkpoint.ts, flags.ts, import.ts, parquet.ts, columns.ts) over what they share (corpus/case.ts); this file puts them in
// order and runs one.
import { rmSync } from 'node:fs';
import { cli, copyTree, excerpt, freshDir, STACK_TRACE } from './harness.ts';
import { changes, snapshot } from './tree.ts';
import { WIDE_INPUTS } from './inputs.ts';
import { slug } from './kill.ts';
import { cacheCases } from './corpus/cache.ts';
import type { CorpusCase } from './corpus/case.ts';
import { checkpointCases } from './corpus/checkpoint.ts';
import { configCases } from './corpus/config.ts';
import { embeddingCases } from './corpus/embeddings.ts';
import { flagCases } from './corpus/flags.ts';
import { gridCases } from './corpus/grid.ts';
import { importCases } from './corpus/import.ts';
import { columnsCases } from './corpus/columns.ts';
import { parquetCases } from './corpus/parquet.ts';

export const CORPUS: CorpusCase[] = [
  ...cacheCases,
  ...embeddingCases,
  ...configCases,
  ...gridCases,
  ...checkpointCases,
  ...flagCases,
  ...importCases,
  ...parquetCases,
  ...columnsCases,
];

export interface CorpusResult {
  id: string;
  kind: CorpusCase['kind'];
  /** Expected exit code met ('nonzero': any but 0). */
  codeOk: boolean;
  code: number | null;
  /** The output says what `error` asks (file, line, field, or flag). */
  named: boolean;
  stackTrace: boolean;
  /** zod's issue list, or for a setting zod's own wording, instead of a sentence. */
  rawSchema: boolean;
  /** Files created, changed or removed in the case's folder (+, ~, -). */
  changed: string[];
  said: string;
  hung: boolean;
}

export const casePassed = (r: CorpusResult) => r.codeOk && r.named && !r.stackTrace && !r.rawSchema && r.changed.length === 0 && !r.hung;

/**
 * zod's issue list printed as JSON, anywhere; and for settings (config, grid, flags, import flags)
 * zod's own wording ("Too small: expected number to be >0") where a sentence should say it.
 */
const rawSchema = (kind: CorpusCase['kind'], out: string) =>
  /"code": "(too_small|too_big|invalid_type|invalid_value|custom)"/.test(out) ||
  (['config', 'grid', 'flags', 'import'].includes(kind) && /Too (small|big): expected|Invalid input: expected/.test(out));

/** Run one case in a fresh copy of the inputs. */
export async function runCase(c: CorpusCase, inputs: string): Promise<CorpusResult> {
  const ws = freshDir('corpus', slug(c.id));
  copyTree(inputs, ws, WIDE_INPUTS); // (no case reads them)
  const vars = c.setup?.(ws) ?? {};
  const before = snapshot(ws, c.writes);
  const run = await cli(c.args, { cwd: ws, timeoutMs: 180_000 });
  const error = c.error.replace(/\{(\w+)\}/g, (_, k: string) => String(vars[k]));
  const result: CorpusResult = {
    id: c.id,
    kind: c.kind,
    code: run.code,
    codeOk: c.code === 'nonzero' ? run.code !== 0 && run.code !== null : run.code === c.code,
    named: new RegExp(error, 'i').test(run.out),
    stackTrace: STACK_TRACE.test(run.out),
    rawSchema: rawSchema(c.kind, run.out),
    changed: changes(before, snapshot(ws, c.writes)),
    said: excerpt(run.out),
    hung: run.hung,
  };
  if (casePassed(result)) rmSync(ws, { recursive: true, force: true });
  return result;
}
