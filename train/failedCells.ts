// The cells of a grid that failed, remembered beside its results (`<results>/failed.json`): a rerun
// of the grid (local workers, or a restarted coordinator of a queue) knows them and does not train
// them again (a failure of its own, a user error or a bug, would only repeat) unless asked
// (`ablate --retry-failed`). A cell is remembered with the settings it failed with: changed
// settings are another cell, trained as any other.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { writeFileAtomic } from '../src/io/atomic.ts';
import { readJsonFile } from '../src/io/jsonFile.ts';
import type { Cell, CellOutcome } from './grid.ts';

const FailedFile = z.strictObject({
  cells: z.array(z.strictObject({ id: z.string(), settings: z.string(), reason: z.string(), at: z.string() })),
});
type Failure = z.infer<typeof FailedFile>['cells'][number];

export const failedFile = (results: string) => join(results, 'failed.json');

const settingsOf = (c: Cell) => JSON.stringify(c.settings);

const remembered = (results: string): Failure[] => (existsSync(failedFile(results)) ? readJsonFile(failedFile(results), FailedFile).cells : []);

/**
 * The cells to train now, and the outcomes of those that failed before with the same settings
 * (left out unless `retry`), each saying why and how to train it again.
 */
export function skipFailed(cells: Cell[], results: string, retry: boolean): { train: Cell[]; skipped: CellOutcome[] } {
  const failures = new Map(remembered(results).map((f) => [`${f.id}\n${f.settings}`, f]));
  const before = (c: Cell) => (retry ? undefined : failures.get(`${c.id}\n${settingsOf(c)}`));
  return {
    train: cells.filter((c) => !before(c)),
    skipped: cells.flatMap((c) => {
      const f = before(c);
      return f
        ? [{ cell: c, status: 'failed' as const, error: `failed in an earlier run (${f.at}): ${f.reason}; not trained again (--retry-failed trains it again)` }]
        : [];
    }),
  };
}

/** Remember the failed cells of `outcomes` (a skipped one keeps its first failure); those that trained or were reused now are forgotten. */
export function rememberFailed(results: string, outcomes: CellOutcome[], skipped: CellOutcome[]): void {
  const kept = new Map(remembered(results).map((f) => [f.id, f]));
  const now = new Date().toISOString();
  for (const o of outcomes) {
    if (skipped.includes(o)) continue;
    if (o.status === 'failed') kept.set(o.cell.id, { id: o.cell.id, settings: settingsOf(o.cell), reason: o.error ?? 'unknown', at: now });
    else kept.delete(o.cell.id);
  }
  if (kept.size || existsSync(failedFile(results))) writeFileAtomic(failedFile(results), [`${JSON.stringify({ cells: [...kept.values()] }, null, 2)}\n`]);
}
