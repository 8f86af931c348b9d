import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ablationReport, differs, type AblationRow } from '../../eval/table6.ts';
import { expandGrid, GridFile, type CellOutcome } from '../../train/grid.ts';
import { resolveConfig } from '../../train/config.ts';
import { train } from '../../train/trainer.ts';
import { writeTinyCache } from '../fixtures/tinyWorld.ts';
import { METHOD } from '../fixtures/method.ts';

describe('Table 6', () => {
  it('says which test finds a difference from the reference variant', () => {
    const row = (low: number, high: number, p: number) =>
      ({ delta: { accuracy: { estimate: (low + high) / 2, low, high }, cost: { estimate: 0, low: 0, high: 0 } }, welch: { t: 0, df: 2, p } }) as AblationRow;
    expect(differs(row(0.5, 3, 0.01))).toBe('yes (both)');
    expect(differs(row(-3, -0.5, 0.2))).toBe('over questions only');
    expect(differs(row(-1, 3, 0.01))).toBe('over seeds only');
    expect(differs(row(-1, 3, NaN))).toBe('no');
    expect(differs({ delta: null, welch: null } as AblationRow)).toBe('-');
  });

  it('a grid of two variants and two seeds: intervals, tests against the reference, numeric CSV, plots', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cpp-table6-'));
    writeTinyCache(join(dir, 'cache'));
    const grid = GridFile.parse({
      name: 'tiny',
      seeds: 2,
      caches: [join(dir, 'cache')],
      reference: 'full method',
      base: { ...METHOD, rounds: 2, miss: 'error', k: -1, batchSize: 6, hidden: 8, backend: 'cpu', evalEvery: 1, epochs: 3, lr: 0.03 },
      variants: [{ name: 'full method' }, { name: 'k = 1', settings: { k: 1 } }],
    });
    const results = join(dir, 'results');
    const outcomes: CellOutcome[] = [];
    for (const cell of expandGrid(grid, results)) {
      await train(resolveConfig(cell.settings), { log: () => {} });
      outcomes.push({ cell, status: 'trained' });
    }
    const { markdown, files } = await ablationReport(grid, outcomes, results, 'validation', { engine: 'auto', backend: 'cpu', threads: 1 });
    expect(markdown).toMatch(/\| full method +\| [\d.]+ ± [\d.]+ \(n = 2\) +\| (\[[\d.]+, [\d.]+\]|-) +\|.*\| reference +\|/);
    const [header, ...lines] = readFileSync(files[1], 'utf8')
      .trim()
      .split('\n')
      .map((l) => l.split(','));
    expect(lines).toHaveLength(2);
    const col = (l: string[], name: string) => l[header.indexOf(name)];
    expect(col(lines[0], 'reference')).toBe('true');
    expect(col(lines[0], 'delta_accuracy_pp')).toBe('');
    for (const name of ['n', 'accuracy_mean', 'accuracy_sd', 'cost_pct_mean', 'delta_accuracy_pp', 'delta_accuracy_ci_low', 'delta_accuracy_ci_high'])
      expect(Number.isFinite(Number(col(lines[1], name))), name).toBe(true);
    // The verdict is the one the CSV's interval and Welch p give (not any verdict): "differs" over questions when the interval excludes 0, over seeds when p < 0.05.
    // (Welch p is empty when neither variant spreads: no difference over seeds is found.)
    const [low, high, p] = ['delta_accuracy_ci_low', 'delta_accuracy_ci_high', 'welch_p'].map((name) => col(lines[1], name));
    const overQuestions = Number(low) > 0 || Number(high) < 0;
    const overSeeds = p !== '' && Number(p) < 0.05;
    const verdict = overQuestions && overSeeds ? 'yes (both)' : overQuestions ? 'over questions only' : overSeeds ? 'over seeds only' : 'no';
    expect([col(lines[1], 'differs_over_questions'), col(lines[1], 'differs_over_seeds')]).toEqual([String(overQuestions), p === '' ? '' : String(overSeeds)]);
    expect(markdown).toMatch(
      new RegExp(`\\| k = 1 +\\|.*\\| [-+][\\d.]+ +\\| \\[[-+][\\d.]+, [-+][\\d.]+\\] +\\| +(\\d\\.\\d{3}|-) +\\| ${verdict.replace(/[()]/g, '\\$&')} +\\|`),
    );
    expect(Number(col(lines[1], 'delta_accuracy_pp'))).toBeCloseTo(Number(col(lines[1], 'accuracy_mean')) - Number(col(lines[0], 'accuracy_mean')), 8);
    // k = 1 keeps every edge (Full-Debate's cost); the paired cost difference is the difference of the cost columns.
    expect(Number(col(lines[1], 'cost_pct_mean'))).toBeCloseTo(100, 8);
    expect(Number(col(lines[1], 'delta_cost_pp'))).toBeCloseTo(100 - Number(col(lines[0], 'cost_pct_mean')), 8);
    expect(Number(col(lines[1], 'delta_cost_ci_low'))).toBeLessThanOrEqual(Number(col(lines[1], 'delta_cost_pp')));
    // miss = error: every revision of both variants was answered by the exact tier, and the table says so.
    expect(markdown).toMatch(/\| k = 1 +\|.*\| exact 100% +\|/);
    for (const l of lines) expect([col(l, 'tier_exact_pct'), col(l, 'tier_model_pct')]).toEqual(['100', '0']);
    for (const f of files) expect(existsSync(f)).toBe(true);
    expect(readFileSync(files[3], 'utf8')).toContain('k = 1');
  }, 180_000);
});
