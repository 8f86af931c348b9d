import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cacheHash } from '../../src/cache/hash.ts';
import { LOCK_FILE } from '../../src/io/lock.ts';
import { resolveConfig } from '../../train/config.ts';
import { runFiles } from '../../train/runFolder.ts';
import { runTraining } from '../../train/runs.ts';
import { lastWords } from '../../train/trainingProcesses.ts';
import { train } from '../../train/trainer.ts';
import { writeTinyCache } from '../fixtures/tinyWorld.ts';
import { METHOD } from '../fixtures/method.ts';

describe('training runs of a job', () => {
  it('a finished run whose process was killed before its end-of-run files gets them, and its dead lock is taken over', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cpp-runs-'));
    writeTinyCache(join(dir, 'tiny'));
    const settings = {
      ...METHOD,
      cache: join(dir, 'tiny'),
      rounds: 2,
      miss: 'error' as const,
      k: -1,
      batchSize: 6,
      hidden: 8,
      backend: 'cpu' as const,
      epochs: 1,
      out: join(dir, 'run'),
    };
    await train(resolveConfig(settings), { log: () => {} });
    // As a kill between the last checkpoint and the end leaves it: no curves, the dead child's lock.
    rmSync(runFiles(settings.out).curves);
    const dead = spawnSync(process.execPath, ['-e', '0']).pid!;
    const lock = { pid: dead, host: hostname(), started: new Date().toISOString(), ticks: null, command: ['train'], dir: settings.out, what: 'a training run' };
    writeFileSync(join(settings.out, LOCK_FILE), JSON.stringify(lock));
    expect(await runTraining(settings, await cacheHash(settings.cache), () => {})).toEqual({ status: 'reused' });
    expect(existsSync(runFiles(settings.out).curves)).toBe(true);
    expect(existsSync(join(settings.out, LOCK_FILE))).toBe(false);
  }, 600_000);

  it("a failed child's error is the line naming it, not Node's version line", () => {
    const stderr =
      "node:internal/modules/run_main:123\n    triggerUncaughtException(\n    ^\n\nError [ERR_MODULE_NOT_FOUND]: Cannot find package 'tsx' imported " +
      "from /tmp/\n    at packageResolve (node:internal/modules/esm/resolve:873:9) {\n  code: 'ERR_MODULE_NOT_FOUND'\n}\n\nNode.js v20.20.2\n";
    expect(lastWords(stderr)).toBe("Error [ERR_MODULE_NOT_FOUND]: Cannot find package 'tsx' imported from /tmp/");
    expect(lastWords('epoch 1: accuracy 50%\ncache has no live endpoint for miss = record\n')).toBe(
      'epoch 1: accuracy 50% | cache has no live endpoint for miss = record',
    );
  });
});
