// Small data said before any time is spent: a batch larger than the train split, an empty split,
// and splits too small for the 95% intervals the reports print.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { evalJob } from '../../jobs/eval.ts';
import { wilson } from '../../src/significance.ts';
import { writeCacheRecords } from '../../src/cache/write.ts';
import { defaultCompute } from '../../src/policy/backends.ts';
import { resolveConfig } from '../../train/config.ts';
import { checkSplitSizes, fewQuestionsNote, halfWidthPoints } from '../../train/smallData.ts';
import { setup } from '../../train/setup.ts';
import { handRecords } from '../fixtures/handCache.ts';
import { writeTinyCache } from '../fixtures/tinyWorld.ts';

afterEach(() => vi.restoreAllMocks());

describe('split sizes a training run is told about', () => {
  it('a batch larger than the train split is a warning that says what happens and what would give several steps', () => {
    expect(checkSplitSizes({ train: 60, validation: 300, test: 300 }, 64, 'c.jsonl')).toEqual([
      'c.jsonl: batch size 64 exceeds the 60 train questions: each step replays all 60, one step an epoch; a batch of at most 15 gives several steps an epoch',
    ]);
    expect(checkSplitSizes({ train: 600, validation: 300, test: 300 }, 64, 'c.jsonl')).toEqual([]);
  });

  it('an empty train or validation split is an error; no test questions, or too few, a warning', () => {
    expect(() => checkSplitSizes({ train: 0, validation: 0, test: 5 }, 8, 'c.jsonl')).toThrow(
      'c.jsonl: no train and no validation questions this team can debate (train 0, validation ' +
        '0, test 5): training needs both (the validation split picks the best checkpoint)',
    );
    expect(() => checkSplitSizes({ train: 50, validation: 0, test: 5 }, 8, 'c.jsonl')).toThrow(/no validation questions/);
    const w = checkSplitSizes({ train: 100, validation: 40, test: 0 }, 8, 'c.jsonl');
    expect(w).toEqual(['c.jsonl: no test questions: evaluating on the test split afterwards will find none']);
  });

  it('a validation split under 30 questions is a warning with the half-width of its 95% interval', () => {
    const [w] = checkSplitSizes({ train: 100, validation: 12, test: 300 }, 8, 'c.jsonl');
    const half = (100 * (wilson(6, 12).high - wilson(6, 12).low)) / 2;
    expect(half).toBeGreaterThan(20);
    expect(w).toBe(
      `c.jsonl: validation split: only 12 questions: a 95% interval of an accuracy on them is ±${half.toFixed(1)} points ` +
        `wide (at 50% right, Wilson); differences smaller than that are not told apart: the best checkpoint is picked on noise`,
    );
    expect(fewQuestionsNote('x', 30)).toBeUndefined();
    expect(halfWidthPoints(300)).toBeLessThan(6);
  });

  it('training setup says it (tiny world: 18 train, 6 validation, no test questions; batch 64)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cpp-small-'));
    writeTinyCache(join(dir, 'cache'));
    const said: string[] = [];
    vi.spyOn(console, 'error').mockImplementation((line: string) => void said.push(line));
    await setup(resolveConfig({ cache: join(dir, 'cache'), rounds: 2, miss: 'error', batchSize: 64, backend: 'cpu', out: join(dir, 'run') }));
    expect(said.filter((l) => l.startsWith('warning: '))).toEqual([
      expect.stringMatching(/batch size 64 exceeds the 18 train questions: each step replays all 18/),
      expect.stringMatching(/validation split: only 6 questions: a 95% interval of an accuracy on them is ±\d+\.\d points wide/),
      expect.stringMatching(/no test questions/),
    ]);
  }, 600_000);
});

describe('a report on few questions says its intervals are wide', () => {
  it("eval on the hand-built cache (2 test questions) prints the half-width of the reference's interval", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cpp-small-'));
    writeCacheRecords(dir, handRecords());
    const { table, rows } = await evalJob({
      policies: [],
      cache: dir,
      split: 'test',
      compute: defaultCompute(),
      settings: { rounds: 2, miss: 'error' },
      methods: ['full', 'single'],
      seeds: 1,
      reference: 'Full-Debate',
    });
    const full = rows.find((r) => r.method === 'Full-Debate')!;
    const half = ((full.accuracyHigh - full.accuracyLow) / 2).toFixed(1);
    expect(table).toContain(
      `test split (Full-Debate): only 2 questions: a 95% interval of an accuracy on them is ±${half} points wide (at 50.0% right, Wilson)`,
    );
  }, 600_000);
});
