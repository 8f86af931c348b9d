// `record` with the in-process simulator: every context once, limits, reruns. Killed with SIGKILL
// and rerun through `serve`: recordServe.test.ts.
import { describe, expect, it } from 'vitest';
import { recordJob } from '../../jobs/record.ts';
import { loadCache } from '../../src/cache/load.ts';
import type { Endpoint } from '../../src/env/endpoint.ts';
import { defaultCompute } from '../../src/policy/backends.ts';
import { countingSimulator, sparseWorld } from '../fixtures/sparseWorld.ts';

const quiet = () => {};

const job = (dir: string, endpoint: Endpoint, limits = {}) =>
  recordJob({
    cache: dir,
    split: 'train',
    settings: { seed: 0 },
    method: 'random',
    keepRate: 0.6,
    compute: defaultCompute(),
    recording: { concurrency: 4, limits, endpoint },
  });

describe('record', () => {
  it('answers every context the cache lacks once; a second run makes no call; after it the method replays from the cache alone', async () => {
    const dir = sparseWorld(30);
    const endpoint = countingSimulator(dir);
    const first = await job(dir, endpoint);
    expect(endpoint.calls.length).toBeGreaterThan(30);
    expect(new Set(endpoint.calls).size).toBe(endpoint.calls.length);
    expect(first.before.tiers.model).toBeGreaterThan(0);
    expect(first.during!.tiers.record).toBeGreaterThan(0);
    expect(first.during!.tiers.model + first.during!.tiers.signature).toBe(0);
    expect(first.after.tiers).toMatchObject({ signature: 0, model: 0 });
    expect(first.text).toMatch(new RegExp(`${endpoint.calls.length} calls, .* tokens, cost \\d+\\.\\d{4}, ${endpoint.calls.length} new responses`));
    const second = countingSimulator(dir);
    const again = await job(dir, second);
    expect(second.calls).toEqual([]);
    expect(again.during!.correct).toBe(first.during!.correct);
    expect(again.text).toMatch(/: 0 calls/);
  }, 120_000);

  it('stops before a call past --max-calls, and once the budget is reached; a rerun continues', async () => {
    const dir = sparseWorld(20);
    const endpoint = countingSimulator(dir);
    const capped = await job(dir, endpoint, { maxCalls: 7 });
    expect(endpoint.calls.length).toBe(7);
    expect(capped.during).toBeUndefined();
    expect(capped.text).toMatch(/stopped: --max-calls 7 reached/);
    expect(capped.text).toMatch(/the method did not finish: a rerun continues/);
    const cache = loadCache(dir, quiet);
    const perCall = capped.recording.spent.cost / 7;
    const budgeted = await job(dir, endpoint, { budget: 3 * perCall });
    expect(budgeted.recording.stopped).toMatch(/budget of .* reached/);
    expect(budgeted.recording.spent.cost).toBeGreaterThanOrEqual(3 * perCall * 0.5);
    expect(budgeted.recording.spent.calls).toBeLessThan(3 + 4 + 4); // in flight when the budget was reached: at most the concurrency
    const rest = await job(dir, endpoint);
    expect(rest.during).toBeDefined();
    expect(new Set(endpoint.calls).size).toBe(endpoint.calls.length);
    expect(cache.responses.length).toBeLessThan(loadCache(dir, quiet).responses.length);
  }, 120_000);
});
