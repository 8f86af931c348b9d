// No setting silently ignored, as a user meets it on the command line: --rounds below 2 or beyond
// what the cache recorded, flags a command would not use in this invocation, a flag over a config
// file's setting (the flag wins, and it is said).
import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { writeCacheRecords } from '../../src/cache/write.ts';
import { keepRateCoerce } from '../../cli/options.ts';
import { handRecords } from '../fixtures/handCache.ts';
import { writeTinyCache } from '../fixtures/tinyWorld.ts';
import { builtCli as cli } from '../fixtures/cli.ts';

const errors = (r: ReturnType<typeof cli>) =>
  r.stderr
    .split('\n')
    .filter((l) => l && !l.startsWith('npm warn'))
    .join('\n');
const T = 600_000;

let dir: string;
let hand: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'cpp-options-'));
  hand = join(dir, 'hand'); // 2 questions (test split), 3 agents, 2 recorded rounds
  writeCacheRecords(hand, handRecords());
});

describe('--rounds', () => {
  it(
    'below 2 is an error saying a debate needs a revision round (was: NaN kept edges)',
    () => {
      const r = cli('baselines', '--cache', hand, '--rounds', '1');
      expect([r.status, errors(r)]).toEqual([
        1,
        'setting rounds: a debate needs at least 2 rounds: round 1 answers independently, ' +
          'round 2 revises after reading the others (below 2 there is no edge to keep or prune)',
      ]);
    },
    T,
  );

  it(
    "beyond the cache's recorded rounds is an error saying what the cache holds (was: the response model answered without a word)",
    () => {
      const r = cli('baselines', '--cache', hand, '--rounds', '3');
      expect(r.status).toBe(1);
      expect(errors(r)).toBe(
        `setting rounds: 3, but cache ${hand}/cache.jsonl records debates of team a1,a2,a3 of at most 2 rounds ` +
          `(deepest recorded round per question the team can debate: round 2: 2 questions); every answer of round 3 ` +
          `would be drawn by the tier-3 response model: allow that with allowUnrecordedRounds ` +
          `(--allow-unrecorded-rounds), or record those rounds with a live endpoint (miss = record)`,
      );
    },
    T,
  );

  it(
    'beyond them with --allow-unrecorded-rounds replays that many rounds, the tier-3 model answering the last',
    () => {
      const r = cli('baselines', '--cache', hand, '--rounds', '3', '--allow-unrecorded-rounds');
      expect(r.status).toBe(0);
      expect(r.stdout).toMatch(/test split, 2 questions, 3 rounds, miss = model/);
      expect(r.stdout).toMatch(/\| Full-Debate +\|.*\| exact 50%, model 50% +\|/);
      expect(r.stdout).toMatch(/Pricing: .* Calls priced from recorded counts: Full-Debate 67%/); // 6 round-1 and 6 exact calls of 18
    },
    T,
  );
});

describe('flags a command would not use are errors, naming each and why', () => {
  it(
    'eval: --keep-rate and --seeds without random pruning or the mask, --config without the mask, --threads without a policy',
    () => {
      writeFileSync(join(dir, 'mask.json'), '{"epochs": 2}');
      const r = cli(
        'eval',
        '--cache',
        hand,
        '--rounds',
        '2',
        '--methods',
        'full,none',
        '--keep-rate',
        '0.5',
        '--seeds',
        '2',
        '--config',
        join(dir, 'mask.json'),
        '--threads',
        '2',
      );
      expect(r.status).toBe(1);
      expect(errors(r)).toBe(
        '--keep-rate sets random pruning, which --methods leaves out; ' +
          "--config sets the static mask's training, which --methods leaves out (policies carry their own settings); " +
          '--seeds counts the seeded runs of random pruning and the static mask, which --methods leaves out; ' +
          '--threads sets how policy math is computed, and no --policy is evaluated: leave them out',
      );
    },
    T,
  );

  it(
    'flags left at their defaults are never refused',
    () => {
      const r = cli('eval', '--cache', hand, '--rounds', '2', '--methods', 'full,single');
      expect([r.status, errors(r)]).toEqual([0, '']);
      expect(r.stdout).toMatch(/only 2 questions: a 95% interval of an accuracy on them is ±\d+\.\d points wide/);
    },
    T,
  );

  it(
    'train: settings with --resume (the run goes on with its own), --threads with the tfjs engine',
    () => {
      const resume = cli('train', '--resume', '--out', join(dir, 'run'), '--epochs', '3', '--k', '-1');
      expect([resume.status, errors(resume)]).toEqual([
        1,
        '--epochs is not used by --resume: the run goes on with the settings it was started with (only --engine, --threads and --backend may change); --k ' +
          'is not used by --resume: the run goes on with the settings it was started with (only --engine, --threads and --backend may change): leave them out',
      ]);
      const threads = cli('train', '--engine', 'tfjs', '--threads', '2', '--out', join(dir, 'run'));
      expect([threads.status, errors(threads)]).toEqual([1, '--threads sets the CPU threads of the onnx engines, not of --engine tfjs: leave it out']);
    },
    T,
  );

  it(
    'record: --allow-unrecorded-rounds, and compute flags without --policy',
    () => {
      const r = cli('record', '--cache', hand, '--allow-unrecorded-rounds', '--engine', 'onnx');
      expect(r.status).toBe(1);
      expect(errors(r)).toMatch(
        /^--allow-unrecorded-rounds is not record's to set: .*; --engine sets how policy math is computed, and no --policy is replayed: leave them out$/,
      );
    },
    T,
  );

  it(
    'cache import: --price-in without --price-out, the split rule with --splits; serve: --retry-after without 429s',
    () => {
      writeFileSync(join(dir, 'splits.json'), '{}');
      const r = cli(
        'cache',
        'import',
        '--format',
        'du',
        join(dir, 'none.json'),
        '--out',
        join(dir, 'imported'),
        '--model',
        'm',
        '--price-in',
        '1',
        '--splits',
        join(dir, 'splits.json'),
        '--train-fraction',
        '0.5',
      );
      expect(r.status).toBe(1);
      expect(errors(r)).toBe(
        `--price-in needs its pair: --price-in and --price-out price the models --prices leaves out; --train-fraction ` +
          `sets the seeded split rule, which --splits ${join(dir, 'splits.json')} replaces: leave them out`,
      );
      const s = cli('serve', '--retry-after', '2');
      expect([s.status, errors(s)]).toEqual([1, '--retry-after sets the wait the 429 replies ask for, and --rate-429 is 0: leave it out']);
    },
    T,
  );
});

describe('a flag over a config file', () => {
  it('wins, and is said', () => {
    const tiny = join(dir, 'tiny');
    writeTinyCache(tiny);
    const config = join(dir, 'train.json');
    writeFileSync(config, JSON.stringify({ rounds: 2, miss: 'error', batchSize: 6, hidden: 8, epochs: 2 }));
    const r = cli(
      'train',
      '--config',
      config,
      '--cache',
      tiny,
      '--backend',
      'cpu',
      '--engine',
      'tfjs',
      '--epochs',
      '1',
      '--batch-size',
      '6',
      '--out',
      join(dir, 'trained'),
    );
    expect(r.status).toBe(0);
    expect(errors(r).split('\n')[0]).toBe(`--epochs 1 overrides epochs 2 of ${config}`); // --batch-size 6 equals the file's: nothing to say
    expect(r.stderr).not.toContain('install our node backend'); // TF.js's CPU backend in Node, silenced (src/policy/tfjs.ts)
    expect(r.stdout).toMatch(/^done: /);
  }, 600_000);
});

describe('ranges of the shared flags', () => {
  it('a keep rate is a probability: outside 0..1 a sentence naming the flag (was: keep 200% accepted)', () => {
    expect(keepRateCoerce(0.25)).toBe(0.25);
    expect(() => keepRateCoerce(-0.5)).toThrow('--keep-rate: must be at least 0 (a probability: 0 keeps no edge) (found -0.5)');
    expect(() => keepRateCoerce(2)).toThrow('--keep-rate: must be at most 1 (a probability: 1 keeps every edge) (found 2)');
    expect(() => keepRateCoerce(Number('x'))).toThrow('--keep-rate: must be a number (found NaN)');
  });

  it(
    'record refuses --max-calls -1 and --concurrency 0 by their schema, before any journal is written',
    () => {
      const cache = join(dir, 'record-cache');
      writeTinyCache(cache);
      const before = readdirSync(cache);
      for (const [flag, value, said] of [
        ['--max-calls', '-1', '--max-calls: must be at least 0 (found -1)'],
        ['--concurrency', '0', '--concurrency: must be at least 1 (with no call in flight nothing is recorded) (found 0)'],
      ]) {
        const r = cli('record', '--cache', cache, '--split', 'validation', flag, value);
        expect([r.status, errors(r)]).toEqual([1, said]);
      }
      expect(readdirSync(cache)).toEqual(before);
    },
    T,
  );
});
