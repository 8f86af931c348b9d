// A command loads only what it uses (cli/commands/command.ts, and the libraries loaded at first use):
// run with tests/fixtures/forbidModules.mjs, a process fails as soon as it loads a forbidden
// package, so each command below succeeding shows it never loaded one. The command line runs as
// `npx cpp-workbench` runs it (BUILT_CLI: the fresh dist/, else the sources through tsx).
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BUILT_CLI as CLI } from '../fixtures/cli.ts';
import { writeTinyCache } from '../fixtures/tinyWorld.ts';

const GUARD = join(import.meta.dirname, '../fixtures/forbidModules.mjs');
/** Run the command line with the packages matching `forbidden` made unloadable. */
const guarded = (forbidden: RegExp, ...args: string[]) =>
  spawnSync(process.execPath, ['--import', GUARD, ...CLI, ...args], { encoding: 'utf8', env: { ...process.env, FORBIDDEN_MODULES: forbidden.source } });

// The big libraries of the package: policy engines, plots, live endpoints, queues, tokenizers, the
// symbolic engine, the text encoder, and zod (every settings schema).
const RUNTIMES = '@tensorflow/|^onnxruntime-node$|^vega|^openai$|^bullmq$|^ioredis$|^gpt-tokenizer|^@cortex-js/|^@energetic-ai/';

describe('what a command loads', () => {
  it('--help loads yargs and the list of commands: no command module, no settings schema, no library', () => {
    const r = guarded(new RegExp(`${RUNTIMES}|^zod$|^csv-stringify`), '--help');
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/cpp-workbench baselines +replay Full-Debate/);
  }, 600_000);

  it("a command loads its own module only: export's flags need no settings schema, baselines' do", () => {
    const noSchemas = new RegExp(`${RUNTIMES}|^zod$`);
    const exported = guarded(noSchemas, 'export', 'x.json', '--bogus');
    expect(exported.stderr).toContain('unknown flag --bogus');
    expect(exported.status).toBe(2);
    // The guard does stop a load: the same run of a command whose flags are built from schemas fails on zod.
    const baselines = guarded(noSchemas, 'baselines', '--bogus');
    expect(baselines.stderr).toContain('forbidden module loaded: zod');
  }, 600_000);

  it('baselines replays without loading a policy engine, the plots, the endpoint client, the queues, a tokenizer or the symbolic engine', () => {
    const cache = join(mkdtempSync(join(tmpdir(), 'cpp-startup-')), 'tiny');
    writeTinyCache(cache);
    const r = guarded(new RegExp(RUNTIMES), 'baselines', '--cache', cache, '--split', 'validation', '--rounds', '2');
    expect(r.stderr).not.toContain('forbidden module');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/\| Full-Debate +\|/);
  }, 600_000);

  it('cache validate <dir> with no flag runs without yargs, its verdict and exit status the same; with a flag it goes to yargs', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cpp-startup-'));
    const cache = join(dir, 'tiny');
    writeTinyCache(cache);
    const valid = guarded(/^yargs/, 'cache', 'validate', cache);
    expect(valid.stderr).toBe('');
    expect(valid.status).toBe(0);
    expect(valid.stdout).toContain(`${join(cache, 'cache.jsonl')}: valid (`);
    const missing = guarded(/^yargs/, 'cache', 'validate', join(dir, 'none'));
    expect(missing.stdout).toContain(`${join(dir, 'none', 'cache.jsonl')}: file not found`);
    expect(missing.status).toBe(1);
    // The guard does stop a load: the same command line with a flag goes through yargs.
    expect(guarded(/^yargs/, 'cache', 'validate', cache, '--help').stderr).toContain('forbidden module loaded: yargs');
  }, 600_000);

  it('ablate of a local grid loads neither BullMQ nor ioredis', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cpp-startup-'));
    const grid = join(import.meta.dirname, '../../train/grids/table6.json');
    const r = guarded(/^bullmq$|^ioredis$/, 'ablate', '--grid', grid, '--out', join(dir, 'grid'), '--dry-run');
    expect(r.stderr).not.toContain('forbidden module');
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('train 110 cells');
  }, 600_000);
});
