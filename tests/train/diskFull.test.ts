// A training run on a disk that fills up (faults injected into node:fs, tests/fixtures/fsFaults.ts):
// the write that fails (a checkpoint, the best policy, a log line) leaves the run as its last
// checkpoint left it, no temporary file, and one line naming the file and the cause; `train
// --resume` afterwards continues, and ends where an uninterrupted run ends.
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { clearFault, fault } from '../fixtures/fsFaults.ts';

vi.mock('node:fs', async (original) => (await import('../fixtures/fsFaults.ts')).faultyFs(await original()));
const { resolveConfig } = await import('../../train/config.ts');
const { readLog, runFiles } = await import('../../train/runFolder.ts');
const { train } = await import('../../train/trainer.ts');
const { readCheckpoint } = await import('../../train/checkpoint.ts');
const { writeTinyCache } = await import('../fixtures/tinyWorld.ts');

const dir = mkdtempSync(join(tmpdir(), 'cpp-full-'));
const config = (out: string) =>
  resolveConfig({ cache: join(dir, 'cache'), out: join(dir, out), rounds: 2, miss: 'error', batchSize: 6, hidden: 16, epochs: 3, evalEvery: 1 });
const quiet = { log: () => {} };
/** A run's log without its wall times, and its last checkpoint's weights. */
const outcome = (out: string) => ({
  log: readLog(out).map(({ time: _, seconds: __, decisionsPerSecond: ___, ...l }) => l),
  weights: readCheckpoint(runFiles(out).checkpoint).engine.weights,
  best: readFileSync(runFiles(out).best, 'utf8'),
});
let uninterrupted: ReturnType<typeof outcome>;

beforeAll(async () => {
  writeTinyCache(join(dir, 'cache'));
  await train(config('uninterrupted'), quiet);
  uninterrupted = outcome(config('uninterrupted').out);
}, 600_000);
afterEach(clearFault);

describe('a training run on a full disk', () => {
  it.each([
    ['the checkpoint of epoch 2', /checkpoint\.json\.\d+\.tmp$/, 2, 'checkpoint.json', 1],
    ['the best policy of epoch 1', /best\.json\.\d+\.tmp$/, 0, 'best.json', 0],
    ['a log line of epoch 2', /log\.jsonl$/, 0, 'log.jsonl', 1],
  ] as const)(
    '%s: refused in one line naming the file; the last checkpoint stays, no temporary file; --resume ends where an uninterrupted run ends',
    async (_, path, skip, name, epoch) => {
      const c = config(`full-${name.replace(/\W/g, '-')}`);
      // The write fails partway, 10 bytes in; of the log, the lines of epoch 1 go in (3 steps and an evaluation).
      Object.assign(fault, { path, code: 'ENOSPC', room: 10, skip: name === 'log.jsonl' ? 4 : skip });
      let failed: Error | undefined;
      await train(c, quiet).catch((e: Error) => (failed = e));
      expect(failed?.message).toMatch(new RegExp(`^${join(c.out, name)}: not written: no space left on device \\(ENOSPC\\); [^\\n]+$`));
      clearFault();
      expect(readCheckpoint(runFiles(c.out).checkpoint).epoch).toBe(epoch);
      expect(readdirSync(c.out).filter((f) => f.endsWith('.tmp') || f === '.lock')).toEqual([]);
      await train(c, { ...quiet, resume: true });
      expect(outcome(c.out)).toEqual(uninterrupted);
    },
    600_000,
  );
});
