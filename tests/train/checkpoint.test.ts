// The settings saved inside checkpoints and best policies are read back with the schema of a config
// file (train/checkpoint.ts): a bad value, an unknown setting or a missing cache is an error naming
// the file and the field, wherever a job reads the checkpoint, and before anything is made from it
// (was: `lr: "fast"` accepted by eval and export, and `train --resume` on a checkpoint without
// `cache` generating cache/default in the working folder before refusing).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadCheckpoint, saveCheckpoint } from '../../src/policy/artifact.ts';
import { readAnyPolicy, readCheckpoint } from '../../train/checkpoint.ts';
import { checkpoint } from '../fixtures/checkpoint.ts';

const saved = { cache: 'cache/tiny', seed: 0, epochs: 2, lr: 0.001 };

/** A checkpoint file whose saved settings are `config`. */
function withSettings(config: Record<string, unknown>): string {
  const file = join(mkdtempSync(join(tmpdir(), 'cpp-saved-')), 'checkpoint.json');
  saveCheckpoint(file, checkpoint(config));
  return file;
}

describe('settings saved in a checkpoint', () => {
  it('read back when they pass the schema of a config file (settings added since the run are absent)', () => {
    const file = withSettings(saved);
    expect(readCheckpoint(file).config).toEqual(saved);
    expect(readAnyPolicy(file).trainedOn).toEqual({ cache: 'cache/tiny', seed: 0, epoch: 2 });
  });

  it.each([
    ['a wrongly typed value', { ...saved, lr: 'fast' }, 'config.lr: must be a number'],
    ['a value out of range', { ...saved, epochs: 0 }, 'config.epochs: must be more than 0'],
    ['an unknown setting', { ...saved, speed: 3 }, 'config.speed: unknown field'],
    ['no cache', { seed: 0, epochs: 2 }, 'config.cache: missing: every run saves the cache it trained on'],
    ['no seed', { cache: 'cache/tiny' }, 'config.seed: missing: every run saves its seed'],
    ['settings that contradict each other', { ...saved, baseline: 'rloo', rollouts: 1 }, 'config: baseline: rloo needs rollouts >= 2 (found 1)'],
  ])('%s is an error naming the file and the field, as a checkpoint and as a best policy', (_, config, said) => {
    const file = withSettings(config);
    expect(() => readCheckpoint(file)).toThrow(`${file}: ${said}`);
    expect(() => readAnyPolicy(file)).toThrow(`${file}: ${said}`);
    // The library's reader checks the tensors only: the trainer's settings are not its to know.
    expect(loadCheckpoint(file).config).toEqual(config);
  });

  it('train --resume on a checkpoint without its cache refuses, naming the field, and creates nothing', () => {
    const file = withSettings({ seed: 0, epochs: 4 });
    const dir = resolve(file, '..');
    const r = spawnSync(process.execPath, [resolve(import.meta.dirname, '../../bin/cpp-workbench.mjs'), 'train', '--resume', '--out', dir], {
      cwd: dir,
      encoding: 'utf8',
    });
    expect(r.stderr.trim()).toBe(`${file}: config.cache: missing: every run saves the cache it trained on`);
    expect(r.status).toBe(1);
    expect(existsSync(join(dir, 'cache'))).toBe(false);
    expect(readdirSync(dir)).toEqual(['checkpoint.json']);
  }, 600_000);
});
