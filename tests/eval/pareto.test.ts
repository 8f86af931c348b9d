import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { paretoJob } from '../../eval/pareto.ts';
import { writeTinyCache } from '../train/tinyWorld.ts';

describe('pareto', () => {
  it('trains CPP to each budget and reports it beside the baselines at matched cost', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cpp-pareto-'));
    writeTinyCache(join(dir, 'tiny'));
    const config = join(dir, 'config.json');
    writeFileSync(config, JSON.stringify({ rounds: 2, miss: 'error', batchSize: 6, hidden: 8, backend: 'cpu', epochs: 2, dualLr: 5 }));
    const options = { cache: join(dir, 'tiny'), split: 'validation' as const, settings: { rounds: 2, miss: 'error' as const }, config, seeds: 2, workers: 2, out: join(dir, 'out'), compute: { engine: 'auto' as const, threads: 1, backend: 'cpu' as const } };
    // Pruning every edge costs 120 of Full-Debate's 210 per question (57.1%): a lower target is refused before training.
    await expect(paretoJob({ ...options, budgets: [0.5, 0.8] })).rejects.toThrow(/--budgets: 0.5 below 0.571/);
    const text = await paretoJob({ ...options, budgets: [0.8] });
    for (const row of ['Full-Debate', 'CPP (target 80%)', 'Consistency-Best', 'Consistency-Fuse', 'Random pruning', 'Static mask (target 80%)']) expect(text).toContain(row);
    expect(text).toMatch(/\| +80% \| CPP \(target 80%\) +\| +2 \| [\d.]+ ± [\d.]+/);
    for (const f of ['pareto.md', 'pareto.csv', 'accuracy-cost.svg']) expect(existsSync(join(dir, 'out', 'report', f))).toBe(true);
  }, 240_000);
});
