import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { activeJob } from '../../jobs/active.ts';
import { loadCache } from '../../src/cache/load.ts';
import { resolveConfig } from '../../train/config.ts';
import { sparseWorld } from '../fixtures/sparseWorld.ts';
import { METHOD } from '../fixtures/method.ts';

describe('active recording (small simulated world whose recorded debates are Full-Debate and No-communication only)', () => {
  it("records what the policy visits, within each round's limit; round 0's policy then finds it in the cache", async () => {
    const cache = sparseWorld(60, 2);
    const dir = mkdtempSync(join(tmpdir(), 'cpp-active-'));
    // k = -1 pushes the policy to prune: it goes where nothing was recorded.
    const config = resolveConfig({ ...METHOD, cache, k: -1, epochs: 2, batchSize: 8, hidden: 16, entropyBonus: 0.1, lr: 3e-3 });
    const lines: string[] = [];
    const { rounds, text } = await activeJob({
      config,
      out: join(dir, 'active'),
      rounds: 2,
      passes: 2,
      recording: { concurrency: 4, limits: { maxCalls: 25 } },
      evalRecord: true,
      log: (l) => lines.push(l),
    });
    expect(rounds.map((r) => r.round)).toEqual([0, 1, 2]);
    expect(rounds[0].modelShareTrain).toBeGreaterThan(0);
    expect(rounds[0].firstPolicyShareTrain).toBe(rounds[0].modelShareTrain);
    expect(rounds[1].firstPolicyShareTrain).toBeLessThan(rounds[0].firstPolicyShareTrain);
    for (const r of rounds.slice(0, 2)) {
      expect(r.calls).toBe(Math.min(25, r.askable));
      expect(r.askable).toBeLessThanOrEqual(r.visited);
    }
    // The world's own simulator answering (record) and the fitted response model (model) agree on each
    // round's validation accuracy: measured 53.3 vs 46.7, 53.3 vs 40.0, 53.3 vs 40.0 (of 15 questions,
    // gaps of 1, 2, 2 questions); tolerance 3 questions (20 points).
    for (const r of rounds) expect(Math.abs(r.accuracyRecord! - r.accuracyModel), `round ${r.round}`).toBeLessThanOrEqual(3 / 15 + 1e-9);
    expect(text).toMatch(/\| round \| tier-3 share, train/);
    expect(loadCache(cache).journal!.responses).toBe(rounds[0].calls + rounds[1].calls);
  }, 300_000);

  it('refuses --protocol recorded, which its recording cannot honour, before training anything', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cpp-active-'));
    const config = resolveConfig({ ...METHOD, cache: sparseWorld(20, 2), protocol: 'recorded' });
    await expect(
      activeJob({ config, out: join(dir, 'active'), rounds: 1, passes: 1, recording: { concurrency: 1, limits: {} }, evalRecord: false }),
    ).rejects.toThrow('active: its recording replays synchronous rounds');
    expect(existsSync(join(dir, 'active'))).toBe(false);
  });
});
