import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { journalPath } from '../../src/cache/journal.ts';
import { loadCache } from '../../src/cache/load.ts';
import { resolveConfig } from '../../train/config.ts';
import { readLog, runFiles, type LogLine } from '../../train/runFolder.ts';
import { train } from '../../train/trainer.ts';
import { sparseWorld } from '../fixtures/sparseWorld.ts';
import { METHOD } from '../fixtures/method.ts';

describe('training with miss = record (small simulated world, sparse recorded debates)', () => {
  it('asks the simulator for every context the policy visits, embeds the replies as they arrive; a rerun asks nothing', async () => {
    const cache = sparseWorld(40, 2);
    const dir = mkdtempSync(join(tmpdir(), 'cpp-train-record-'));
    const responses = loadCache(cache).responses.length;
    // (random behavior init: the mean one would read the validation responses recorded by the first run)
    const settings = {
      ...METHOD,
      cache,
      miss: 'record' as const,
      epochs: 2,
      batchSize: 8,
      hidden: 16,
      entropyBonus: 1,
      evalEvery: 1,
      behavior: 'random' as const,
    };
    const said: string[] = [];
    await train(resolveConfig({ ...settings, out: join(dir, 'run') }), { log: (l) => said.push(l) });
    const steps = readFileSync(runFiles(join(dir, 'run')).jsonl, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as LogLine);
    expect(steps.some((l) => l.type === 'step' && Number(l.tier_record) > 0)).toBe(true);
    expect(steps.every((l) => l.tier_model === 0 && l.tier_signature === 0)).toBe(true);
    const calls = Number(said.at(-1)!.match(/: (\d+) calls/)![1]);
    expect(calls).toBeGreaterThan(0);
    expect(loadCache(cache).responses.length).toBe(responses + calls);
    expect(
      readFileSync(journalPath(cache), 'utf8')
        .split('\n')
        .filter((l) => l.includes('"type":"response"')).length,
    ).toBe(calls);
    // Same seed, same decisions: every context it visits is in the journal now, and the recorded
    // replies (exact hits now) train it exactly as the live ones did.
    const again: string[] = [];
    await train(resolveConfig({ ...settings, out: join(dir, 'again') }), { log: (l) => again.push(l) });
    expect(again.at(-1)).toMatch(/: 0 calls/);
    // (wall times differ between runs; the record and exact shares trade places)
    const withoutTiers = (run: string) =>
      readLog(join(dir, run)).map(({ time: _t, seconds: _s, decisionsPerSecond: _d, tier_exact: _e, tier_record: _r, ...l }) => l);
    expect(withoutTiers('again')).toEqual(withoutTiers('run'));
  }, 600_000);
});
