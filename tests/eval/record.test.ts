import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { recordJob } from '../../eval/recordJob.ts';
import { journalPath } from '../../src/cache/journal.ts';
import { applyJournal, cacheFilePath, fileLines, loadCache, parseCache } from '../../src/cache/load.ts';
import type { Endpoint } from '../../src/env/endpoint.ts';
import { defaultCompute } from '../../train/config.ts';
import { countingSimulator, sparseWorld } from '../sparseWorld.ts';

const quiet = () => {};

const job = (dir: string, endpoint: Endpoint, limits = {}) =>
  recordJob({ cache: dir, split: 'train', settings: { seed: 0 }, method: 'random', keepRate: 0.6, compute: defaultCompute(), recording: { concurrency: 4, limits }, endpoint });

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

  it('kill -9 at random points, then rerun: no broken line, no paid call asked again once its reply was journaled, cache validate clean', async () => {
    const dir = sparseWorld(40);
    const log = join(dir, 'calls.log');
    const child = join(fileURLToPath(new URL('.', import.meta.url)), 'recordChild.ts');
    const run = (killAfterMs?: number) =>
      new Promise<{ code: number | null; signal: string | null; out: string }>((resolve) => {
        const p = spawn(process.execPath, ['--import', 'tsx', child, dir, log], { stdio: ['ignore', 'pipe', 'pipe'] });
        let out = '';
        p.stdout.on('data', (c: Buffer) => (out += c));
        p.stderr.on('data', (c: Buffer) => (out += c));
        // Kill once the endpoint has been asked something, a random while later.
        let timer: NodeJS.Timeout | undefined;
        if (killAfterMs !== undefined) {
          const calls = () => (existsSync(log) ? readFileSync(log, 'utf8').split('\n').length : 0);
          const start = calls();
          const poll = setInterval(() => {
            if (calls() > start) {
              clearInterval(poll);
              timer = setTimeout(() => p.kill('SIGKILL'), killAfterMs);
            }
          }, 20);
          p.on('exit', () => clearInterval(poll));
        }
        p.on('exit', (code, signal) => {
          clearTimeout(timer);
          resolve({ code, signal, out });
        });
      });
    let killed = 0;
    for (const ms of [30, 250, 100, 400]) if ((await run(ms)).signal === 'SIGKILL') killed++;
    expect(killed).toBeGreaterThan(1);
    const final = await run();
    expect(final.code, final.out).toBe(0);
    const again = countingSimulator(dir);
    await job(dir, again);
    expect(again.calls).toEqual([]);

    // The journal: every line complete JSON; each response once; no intent after its response.
    const lines = readFileSync(journalPath(dir), 'utf8').split('\n');
    expect(lines.at(-1)).toBe('');
    const records = lines.slice(0, -1).map((l) => JSON.parse(l) as { type: string; id: string; key?: string });
    const answeredAt = new Map<string, number>();
    const intents = new Map<string, number>();
    records.forEach((r, at) => {
      if (r.type === 'response') {
        expect(answeredAt.has(r.id)).toBe(false);
        answeredAt.set(r.id, at);
      } else {
        expect(answeredAt.has(r.id)).toBe(false); // never asked again once journaled
        intents.set(r.key!, (intents.get(r.key!) ?? 0) + 1);
      }
    });
    // Calls paid: never more per request than the intents written for it; more than one only when
    // an interrupted run's intent had no journaled reply (then the same idempotency key was sent).
    const calls = new Map<string, number>();
    for (const key of readFileSync(log, 'utf8').split('\n').filter(Boolean)) calls.set(key, (calls.get(key) ?? 0) + 1);
    for (const [key, n] of calls) expect(n).toBeLessThanOrEqual(intents.get(key)!);
    const { cache, problems } = parseCache(fileLines(cacheFilePath(dir)), cacheFilePath(dir));
    expect(problems).toEqual([]);
    const journal = applyJournal(cache!, dir);
    expect(journal).toEqual({ problems: [], warnings: [] });
    expect(cache!.journal!.unanswered.size).toBe(0);
    expect(cache!.journal!.responses).toBe(answeredAt.size);
  }, 300_000);
});
