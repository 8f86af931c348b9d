import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readConfigFile, resolveConfig } from '../../train/config.ts';
import { flagSettings } from '../../cli/flags.ts';
import { readGrid } from '../../train/grid.ts';

const file = (name: string, json: unknown) => {
  const path = join(mkdtempSync(join(tmpdir(), 'cpp-config-')), name);
  writeFileSync(path, JSON.stringify(json));
  return path;
};

describe('training settings out of range', () => {
  it('are said as sentences naming the config file, the grid file or the flag (was: zod wording)', () => {
    const config = file('bad.json', { lr: 0 });
    expect(() => readConfigFile(config)).toThrow(`${config}: lr: must be more than 0`);
    const grid = file('grid.json', { name: 'g', variants: [{ name: 'v', settings: { batchSize: 0 } }] });
    expect(() => readGrid(grid)).toThrow(`${grid}: variants.0.settings.batchSize: must be more than 0`);
    expect(() => flagSettings({ batchSize: 0 })).toThrow('--batch-size: must be more than 0 (found 0)');
    expect(() => resolveConfig({ epochs: 1.5 })).toThrow('setting epochs: must be a whole number (found 1.5)');
  });

  it('rloo with one rollout in a config file is an error naming the file (was: "setting baseline")', () => {
    const config = file('rloo.json', { baseline: 'rloo', rollouts: 1 });
    expect(() => readConfigFile(config)).toThrow(`${config}: baseline: rloo needs rollouts >= 2 (found 1)`);
    expect(readConfigFile(file('rloo.json', { baseline: 'rloo' }))).toEqual({ baseline: 'rloo' }); // a flag may give the rollouts
    expect(() => resolveConfig({ baseline: 'rloo', rollouts: 1 })).toThrow('setting baseline: rloo needs rollouts >= 2 (found 1)');
  });
});
