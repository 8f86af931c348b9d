// A run folder: what `train` writes (config, provenance, a log line per step and per evaluation as
// JSON lines, CSV and TensorBoard scalars, checkpoints) and how its log is cut back on resume.
// checkpoints/README.md lists every file with what writes and what reads it.
import { stringify } from 'csv-stringify/sync';
import { existsSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { appendToFile, writeFileAtomic } from '../src/io/atomic.ts';
import { TIERS, type TierCounts } from '../src/env/tiers.ts';
import { eventWriter } from '../src/tensorboard.ts';
import { readTextFile } from '../src/io/textFile.ts';
import { InputError } from '../src/io/errors.ts';

const num = z.number().optional();
/** One line of `log.jsonl`: a training step, a validation evaluation or a test-split trace (train/trace.ts), with its wall time. */
export const LogLine = z.strictObject({
  type: z.enum(['step', 'eval', 'trace']),
  epoch: z.number().int().positive(),
  step: z.number().int().nonnegative(),
  stage: num,
  k: num,
  loss: num,
  entropy: num,
  meanReward: num,
  meanReturn: num,
  keepRate: num,
  /** With decisions beyond edges: the share of revise decisions that revised, of stop decisions that stopped. */
  reviseRate: num,
  stopRate: num,
  accuracy: num,
  costPct: num,
  keptEdges: num,
  /** Budget mode: the cost term's multiplier (Lagrange multiplier under a target cost) and the cost % it is held to. */
  costMultiplier: num,
  dualCostPct: num,
  /** Credit assignment: correlation of an action's return with its own reward; share of the return from other recipients' transitions. */
  ownRewardCorrelation: num,
  otherRecipientShare: num,
  ...Object.fromEntries(TIERS.map((t) => [`tier_${t}`, num])),
  /** Counterfactual credit (train/counterfactual.ts): branches replayed, the share whose outcome differs, record-tier calls they asked, their tier shares. */
  branches: num,
  branchesChanged: num,
  branchCalls: num,
  ...Object.fromEntries(TIERS.map((t) => [`branch_tier_${t}`, num])),
  best: z.boolean().optional(),
  /** Decisions per second of the whole training step (rollout, returns, engine step): the end-to-end speed. */
  decisionsPerSecond: num,
  /** When the line was written (ISO 8601, UTC). */
  time: z.iso.datetime(),
  /** Wall seconds since the previous line of this process: the step's or the evaluation's duration. */
  seconds: z.number().nonnegative(),
});
export type LogLine = z.infer<typeof LogLine> & Partial<Record<`${'' | 'branch_'}tier_${(typeof TIERS)[number]}`, number>>;
const LOG_COLUMNS = Object.keys(LogLine.shape) as (keyof LogLine)[];

export const runFiles = (out: string) => ({
  config: join(out, 'config.json'),
  provenance: join(out, 'provenance.json'),
  checkpoint: join(out, 'checkpoint.json'),
  best: join(out, 'best.json'),
  jsonl: join(out, 'log.jsonl'),
  csv: join(out, 'log.csv'),
  curves: join(out, 'learning-curves.svg'),
});

/**
 * Empty a run folder for a new run (a first start after a kill before the first checkpoint, or
 * --force over a finished one): the checkpoint first (a kill meanwhile leaves a folder that starts
 * anew), then every other file a run or its collection from a queue wrote. Files it does not know
 * stay, and so do the job's settings.json and train.log (train/runs.ts).
 */
export function clearRun(out: string): void {
  if (!existsSync(out)) return;
  const files = runFiles(out);
  rmSync(files.checkpoint, { force: true });
  for (const f of [files.best, files.config, files.provenance, files.jsonl, files.csv, files.curves, join(out, 'cell.json')]) rmSync(f, { force: true });
  for (const name of readdirSync(out))
    if (name.startsWith('events.out.tfevents.') || name === 'export') rmSync(join(out, name), { recursive: true, force: true });
}

export function tierShares(t: TierCounts): Partial<LogLine> {
  const total = TIERS.reduce((s, k) => s + t[k], 0) || 1;
  return Object.fromEntries(TIERS.map((k) => [`tier_${k}`, round4(t[k] / total)]));
}
export const round4 = (x: number) => Math.round(x * 1e4) / 1e4;

const csvLines = (lines: LogLine[], header: boolean) =>
  stringify(
    lines.map((l) => LOG_COLUMNS.map((c) => l[c] ?? '')),
    { header, columns: LOG_COLUMNS },
  );

/** The lines of a run's `log.jsonl`, checked; a last line cut short by a kill is left out. */
export function readLog(out: string): LogLine[] {
  const file = runFiles(out).jsonl;
  if (!existsSync(file)) return [];
  const text = readTextFile(file);
  const complete = text.slice(0, text.lastIndexOf('\n') + 1);
  return complete
    .split('\n')
    .map((l, i) => {
      if (l === '') return undefined;
      let json: unknown;
      try {
        json = JSON.parse(l);
      } catch (e) {
        throw new InputError(`${file}:${i + 1}: invalid JSON: ${(e as Error).message}`);
      }
      const parsed = LogLine.safeParse(json);
      if (!parsed.success) throw new InputError(`${file}:${i + 1}: ${parsed.error.issues.map((x) => `${x.path.join('.')}: ${x.message}`).join('; ')}`);
      return parsed.data;
    })
    .filter((l): l is LogLine => l !== undefined);
}

/** Keep only the log lines of epochs up to `epoch` (a resumed run redoes the later ones; a new run keeps none). */
export function truncateLog(out: string, epoch: number) {
  const files = runFiles(out);
  const kept = readLog(out).filter((l) => l.epoch <= epoch);
  writeFileAtomic(
    files.jsonl,
    kept.map((l) => JSON.stringify(l) + '\n'),
  );
  writeFileAtomic(files.csv, [csvLines(kept, true)]);
}

/** Scalars of a log line for TensorBoard: `train/<column>` for steps, `validation/<column>` for evaluations, `test/<column>` for traces. */
function scalarsOf(line: LogLine): Record<string, number> {
  const skip = new Set(['type', 'epoch', 'step', 'best', 'time']);
  const prefix = { step: 'train', eval: 'validation', trace: 'test' }[line.type];
  return Object.fromEntries(
    Object.entries(line)
      .filter(([k, v]) => !skip.has(k) && typeof v === 'number')
      .map(([k, v]) => [`${prefix}/${k}`, v as number]),
  );
}

/**
 * The run's log from step `fromStep` on: every line is appended to `log.jsonl` and `log.csv` as it
 * is made, and its numbers go to a TensorBoard event file in the run folder.
 */
export function openRunLog(out: string, fromStep: number) {
  const files = runFiles(out);
  const events = eventWriter(out, fromStep);
  let last = Date.now();
  return {
    eventFile: events.file,
    write(entry: Omit<LogLine, 'time' | 'seconds'>) {
      const now = Date.now();
      const line = LogLine.parse({ ...entry, time: new Date(now).toISOString(), seconds: round4((now - last) / 1000) }) as LogLine;
      last = now;
      appendToFile(files.jsonl, JSON.stringify(line) + '\n');
      appendToFile(files.csv, csvLines([line], !existsSync(files.csv) || statSync(files.csv).size === 0));
      events.scalars(line.step, scalarsOf(line), now / 1000);
    },
    close: () => events.close(),
  };
}
