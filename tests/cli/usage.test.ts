// The command line as a user meets it: the bin entry, one-line usage errors, and no cache made
// behind the user's back at a mistyped path.
import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { builtCli as cli } from '../fixtures/cli.ts';

describe('cpp-workbench', () => {
  it('runs from its bin entry and lists its commands', () => {
    const r = cli('--help');
    expect(r.status).toBe(0);
    for (const command of ['main', 'baselines', 'cache', 'train', 'eval', 'ablate', 'export']) expect(r.stdout).toContain(`cpp-workbench ${command}`);
  }, 600_000);

  it('train --help says what --engine auto picks and why', () => {
    const r = cli('train', '--help');
    expect(r.status).toBe(0);
    const help = r.stdout.replace(/\s+/g, ' ');
    expect(help).toContain('auto: webgpu for a training step of >= 8,192 decisions (batch size x rollouts x agents² x (rounds - 1)) on a hardware GPU adapter');
    expect(help).toContain(
      "else onnx (a software adapter is slower than the CPU), or tfjs where onnxruntime-node does not load; the run's first line says what it picked",
    );
  }, 600_000);

  it('a mistyped flag is one line and a hint, exit 2, not the whole help', () => {
    const r = cli('train', '--epochs', '2', '--learning-rate', '0.1');
    expect(r.status).toBe(2);
    const lines = r.stderr
      .trim()
      .split('\n')
      .filter((l) => !l.startsWith('npm warn'));
    expect(lines).toEqual(['cpp-workbench: unknown flag --learning-rate', "Run 'cpp-workbench train --help' for usage."]);
  }, 600_000);

  it('a mistyped flag or command gets the nearest real one; an unknown command is named as one, and --help on it is an error', () => {
    const said = (...args: string[]) => {
      const r = cli(...args);
      return [
        r.status,
        r.stdout,
        r.stderr
          .trim()
          .split('\n')
          .filter((l) => !l.startsWith('npm warn')),
      ];
    };
    expect(said('train', '--ephocs', '3')).toEqual([
      2,
      '',
      ['cpp-workbench: unknown flag --ephocs (did you mean --epochs?)', "Run 'cpp-workbench train --help' for usage."],
    ]);
    const trian = [2, '', ["cpp-workbench: unknown command 'trian' (did you mean 'train'?)", "Run 'cpp-workbench --help' for the commands."]];
    expect(said('trian', '--epochs', '3')).toEqual(trian); // was: "unknown flags --epochs, --trian"
    expect(said('trian', '--help')).toEqual(trian); // was: the top-level help, exit 0
    expect(said('cache', 'gne', '--help')).toEqual([
      2,
      '',
      ["cpp-workbench: unknown command 'cache gne' (did you mean 'cache gen'?)", "Run 'cpp-workbench cache --help' for its commands."],
    ]);
    expect(said('xyzzy')[2]).toEqual(["cpp-workbench: unknown command 'xyzzy'", "Run 'cpp-workbench --help' for the commands."]);
  }, 600_000);

  it('a flag given twice is one line naming it (was: expected number, received array); a repeatable flag may repeat', () => {
    const r = cli('train', '--epochs', '12', '--epochs=40', '--dry-run');
    expect([r.status, r.stderr.trim()]).toEqual([1, '--epochs given twice: give it once']);
    expect(cli('eval', '--policy', 'a', '--policy', 'b', '--cache', '/nonexistent/c').stderr).not.toContain('given twice');
  }, 600_000);

  it('a number flag given an empty or blank value is one line naming it, not 0', () => {
    for (const args of [
      ['train', '--behavior-rows', '', '--dry-run'],
      ['train', '--epochs=', '--dry-run'],
      ['cache', 'gen', '--questions', ' ', '--out', join(mkdtempSync(join(tmpdir(), 'cpp-cli-')), 'c')],
    ]) {
      const r = cli(...args);
      const flag = /^--[a-z-]+/.exec(args.find((a) => a.startsWith('--') && a !== '--dry-run' && a !== '--out') ?? '')![0];
      expect([r.status, r.stderr.trim()], args.join(' ')).toEqual([1, `${flag}: expected a number, found an empty value`]);
    }
  }, 600_000);

  it('a missing --cache other than the default path is an error naming it, and nothing is created', () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'cpp-cli-')), 'cahce', 'mine');
    const r = cli('baselines', '--cache', dir);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`${dir}/cache.jsonl: file not found`);
    expect(existsSync(dir)).toBe(false);
  }, 600_000);

  it('empty work and out-of-range settings are one sentence each, exit 1, and create nothing', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cpp-cli-'));
    // (--rounds below 2 is tests/cli/options.test.ts's; a negative --keep-rate is keepRateCoerce's test there.)
    const cases: [string[], string][] = [
      [['ablate', '--workers', '0', '--out', join(dir, 'a')], '--workers: must be at least 1 (with no worker nothing is trained) (found 0)'],
      [['main', '--seeds', '0', '--out', join(dir, 'm')], '--seeds: must be at least 1 (with no seed nothing is run) (found 0)'],
      [
        ['eval', '--methods', 'random', '--keep-rate', '2', '--out', join(dir, 'e')],
        '--keep-rate: must be at most 1 (a probability: 1 keeps every edge) (found 2)',
      ],
      [['cache', 'gen', '--questions', '-5', '--out', join(dir, 'g')], '--questions: must be more than 0 (found -5)'],
      [['cache', 'audit', join(dir, 'c'), '--limit', '-1'], '--limit: expected a whole number >= 0, found -1'],
    ];
    for (const [args, message] of cases) {
      const r = cli(...args);
      expect(r.status, args.join(' ')).toBe(1);
      expect(r.stderr.trim().split('\n')[0]).toContain(message);
    }
    expect(readdirSync(dir)).toEqual([]);
  }, 600_000);
});
