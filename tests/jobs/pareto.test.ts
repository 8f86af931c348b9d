import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { paretoJob } from '../../jobs/pareto.ts';
import { writeTinyCache } from '../fixtures/tinyWorld.ts';

/** The cells of one CSV line (method names hold commas, so they are quoted). */
function csvCells(line: string): string[] {
  const cells: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quoted && c === '"' && line[i + 1] === '"') (cell += '"'), i++;
    else if (c === '"') quoted = !quoted;
    else if (c === ',' && !quoted) cells.push(cell), (cell = '');
    else cell += c;
  }
  return [...cells, cell];
}

describe('pareto', () => {
  it('trains CPP to each budget and reports it beside the baselines at matched cost', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cpp-pareto-'));
    writeTinyCache(join(dir, 'tiny'));
    const config = join(dir, 'config.json');
    writeFileSync(config, JSON.stringify({ rounds: 2, miss: 'error', batchSize: 6, hidden: 8, backend: 'cpu', epochs: 2, dualLr: 5 }));
    const options = {
      cache: join(dir, 'tiny'),
      split: 'validation' as const,
      settings: { rounds: 2, miss: 'error' as const },
      config,
      seeds: 2,
      workers: 2,
      out: join(dir, 'out'),
      compute: { engine: 'auto' as const, threads: 1, backend: 'cpu' as const },
    };
    // Pruning every edge costs 120 of Full-Debate's 210 per question (57.1%): a lower target is refused before training.
    await expect(paretoJob({ ...options, budgets: [0.5, 0.8] })).rejects.toThrow(/--budgets: 0.5 below 0.571/);
    const text = await paretoJob({ ...options, budgets: [0.8] });
    for (const row of ['Full-Debate', 'CPP (target 80%)', 'Consistency-Best', 'Consistency-Fuse', 'Random pruning', 'Static mask (target 80%)'])
      expect(text).toContain(row);
    expect(text).toMatch(/\| +80% \| CPP \(target 80%\) +\| +2 \| [\d.]+ ± [\d.]+/);
    for (const f of ['pareto.md', 'pareto.csv', 'accuracy-cost.svg']) expect(existsSync(join(dir, 'out', 'report', f))).toBe(true);
    // Each baseline at the budget is tested against CPP (paired, same questions); CPP's row is not; miss = error: exact tier only.
    expect(text).toMatch(/\| Random pruning[^|]*\|.*\| [-+][\d.]+ \[[-+][\d.]+, [-+][\d.]+\]( \(not significant\))? +\| exact 100% +\|/);
    expect(text).toMatch(/\| CPP \(target 80%\) +\|.*\| - +\| exact 100% +\|/);
    expect(text).toMatch(/CPP against Full-Debate: CPP \(target 80%\) [-+][\d.]+ \[/);
    const [header, ...lines] = readFileSync(join(dir, 'out', 'report', 'pareto.csv'), 'utf8')
      .trim()
      .split('\n')
      .map(csvCells);
    const col = (l: string[], name: string) => l[header.indexOf(name)];
    const cpp = lines.find((l) => col(l, 'family') === 'CPP')!;
    const random = lines.find((l) => col(l, 'family') === 'Random pruning')!;
    for (const name of ['budget', 'n', 'accuracy_mean', 'accuracy_ci_low', 'cost_pct_mean', 'kept_edges_pct', 'tier_exact_pct'])
      expect(Number.isFinite(Number(col(cpp, name))), name).toBe(true);
    expect(col(cpp, 'cpp_minus_pp')).toBe('');
    // The paired difference of per-question means is the difference of the two accuracy means.
    expect(Number(col(random, 'cpp_minus_pp'))).toBeCloseTo(Number(col(cpp, 'accuracy_mean')) - Number(col(random, 'accuracy_mean')), 6);
  }, 240_000);
});
