// A run folder: what `train` writes (config, per-step and per-evaluation logs as JSON lines and
// CSV, checkpoints) and how its log is extended and cut back on resume.
import { stringify } from 'csv-stringify/sync';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../src/cache/write.ts';
import { TIERS, type TierCounts } from '../src/env/environment.ts';

export const LOG_COLUMNS = [
  'type', 'epoch', 'step', 'stage', 'k', 'loss', 'entropy', 'meanReward', 'meanReturn', 'keepRate',
  'accuracy', 'costPct', 'keptEdges', 'costMultiplier', 'dualCostPct', 'ownRewardCorrelation', 'otherRecipientShare', ...TIERS.map((t) => `tier_${t}`), 'best',
] as const;
export type LogLine = Partial<Record<(typeof LOG_COLUMNS)[number], number | string | boolean>>;

export const runFiles = (out: string) => ({
  config: join(out, 'config.json'),
  checkpoint: join(out, 'checkpoint.json'),
  best: join(out, 'best.json'),
  jsonl: join(out, 'log.jsonl'),
  csv: join(out, 'log.csv'),
});

export function tierShares(t: TierCounts): LogLine {
  const total = TIERS.reduce((s, k) => s + t[k], 0) || 1;
  return Object.fromEntries(TIERS.map((k) => [`tier_${k}`, round4(t[k] / total)]));
}
export const round4 = (x: number) => Math.round(x * 1e4) / 1e4;

export function appendLog(out: string, lines: LogLine[], header: boolean) {
  const files = runFiles(out);
  const jsonl = existsSync(files.jsonl) ? readFileSync(files.jsonl, 'utf8') : '';
  const csv = existsSync(files.csv) ? readFileSync(files.csv, 'utf8') : '';
  writeFileAtomic(files.jsonl, [jsonl, ...lines.map((l) => JSON.stringify(l) + '\n')]);
  writeFileAtomic(files.csv, [csv, stringify(lines.map((l) => LOG_COLUMNS.map((c) => l[c] ?? '')), { header, columns: [...LOG_COLUMNS] })]);
}

/** Drop log lines of epochs after `epoch` (a resumed run redoes them). */
export function truncateLog(out: string, epoch: number) {
  const files = runFiles(out);
  const kept = existsSync(files.jsonl)
    ? readFileSync(files.jsonl, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as LogLine).filter((l) => Number(l.epoch) <= epoch)
    : [];
  writeFileAtomic(files.jsonl, kept.map((l) => JSON.stringify(l) + '\n'));
  writeFileAtomic(files.csv, [stringify(kept.map((l) => LOG_COLUMNS.map((c) => l[c] ?? '')), { header: true, columns: [...LOG_COLUMNS] })]);
}

