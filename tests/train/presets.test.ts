// Defaults that train: the built-in settings are the main job's measured ones, the method's
// are the preset `paper`, and preset < config file < flags, each override said.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readConfigFile, resolveConfig } from '../../train/config.ts';
import { PRESETS } from '../../train/presets.ts';

const repo = resolve(import.meta.dirname, '../..');
const cli = (...args: string[]) => spawnSync(process.execPath, [join(repo, 'bin/cpp-workbench.mjs'), ...args], { cwd: repo, encoding: 'utf8' });

describe('training defaults and presets', () => {
  it("the built-in defaults are the main job's settings (train/configs/main.json); the preset paper is the method's", () => {
    expect(resolveConfig({})).toEqual(resolveConfig(readConfigFile(join(repo, 'train/configs/main.json'))));
    expect(resolveConfig(PRESETS.paper.settings)).toMatchObject({
      lr: 1e-3,
      entropyBonus: 0.01,
      baseline: 'running',
      rollouts: 1,
      normalizeAdvantages: false,
      beta: 0.5,
      gamma: 0.9,
      epochs: 12,
      batchSize: 32,
    });
  });

  it('--print-config: preset < config file < flags, each override said, and the layers named', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'cpp-preset-')), 'mine.json');
    writeFileSync(file, JSON.stringify({ lr: 0.002, hidden: 32, epochs: 5 }));
    const r = cli('train', '--preset', 'paper', '--config', file, '--epochs', '2', '--print-config');
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ lr: 0.002, hidden: 32, epochs: 2, entropyBonus: 0.01, baseline: 'running', beta: 0.5 });
    const said = r.stderr.trim().split('\n');
    expect(said).toContain(`lr 0.002 of ${file} overrides lr 0.001 of preset paper`);
    expect(said).toContain('--epochs 2 overrides epochs 12 of preset paper');
    expect(said).toContain(`--epochs 2 overrides epochs 5 of ${file}`);
    expect(said.at(-1)).toBe(`settings: built-in defaults (the main job's settings) < preset paper < config file ${file} < flags (--epochs); later wins`);
    const plain = cli('train', '--print-config');
    expect(plain.stderr.trim()).toBe("settings: built-in defaults (the main job's settings); later wins");
  }, 600_000);

  it('--preset with --resume is refused (the run goes on with its own settings); an unknown preset is a usage error', () => {
    const resume = cli('train', '--resume', '--preset', 'paper', '--out', join(tmpdir(), 'no-such-run'));
    expect([resume.status, resume.stderr.trim()]).toEqual([1, expect.stringMatching(/^--preset is not used by --resume/)]);
    const unknown = cli('train', '--preset', 'papr', '--print-config');
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toContain('papr');
  }, 600_000);
});
