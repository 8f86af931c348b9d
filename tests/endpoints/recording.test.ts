// The record tier through a team file (--endpoints): `serve` behind the `openai` client answers as
// the in-process simulator does, round after round, because both name recorded responses alike;
// the team's caps stop a recording cleanly; active recording and training record through it; the
// key reaches no file.
import { mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { activeJob } from '../../jobs/active.ts';
import { fullDebate, randomPruning } from '../../eval/baselines.ts';
import { evalJob } from '../../jobs/eval.ts';
import { recordJob } from '../../jobs/record.ts';
import type { CacheLine } from '../../src/cache/format.ts';
import type { Cache } from '../../src/cache/types.ts';
import { cacheFromRecords, loadCache } from '../../src/cache/load.ts';
import { NO_FAULTS, serveSimulator, type SimServer } from '../../src/endpoints/simServer.ts';
import { loadTeamEndpoints } from '../../src/endpoints/teamEndpoints.ts';
import type { Endpoint } from '../../src/env/endpoint.ts';
import { makeEnvironment } from '../../src/env/environment.ts';
import { newRecording } from '../../src/env/record.ts';
import { cacheEndpoint } from '../../src/recording.ts';
import { simulatorEndpoint } from '../../src/sim/simulator.ts';
import { defaultCompute } from '../../src/policy/backends.ts';
import { resolveConfig } from '../../train/config.ts';
import { train } from '../../train/trainer.ts';
import { sparseWorld } from '../fixtures/sparseWorld.ts';
import { essence, inProcess, KEY, KEY_ENV, requestOf, worldRecords, writeTeam } from '../fixtures/endpoints.ts';
import { METHOD } from '../fixtures/method.ts';

const quiet = () => {};
const filesUnder = (d: string): string[] => readdirSync(d).flatMap((f) => (statSync(join(d, f)).isDirectory() ? filesUnder(join(d, f)) : [join(d, f)]));
const keyEnv = { ...process.env, [KEY_ENV]: KEY };

/** Every response of `cache` recorded by a live endpoint equals the in-process simulator's reply to its request. */
async function expectSimulatorReplies(cache: Cache, sim: Cache) {
  const simulator = inProcess(sim);
  const recorded = cache.responses.filter((r) => r.id.startsWith('rec/'));
  for (const r of recorded) {
    const request = requestOf(cache, r);
    expect(essence(r), r.id).toEqual(essence(await simulator(request)));
  }
  return recorded.length;
}

describe('serve and the in-process simulator name recorded responses alike', () => {
  /**
   * Record 3 rounds of Full-Debate and of random pruning on every question of `records`, once
   * through `serve` (the openai client of a team file) and once with the in-process simulator, each
   * into its own copy; both copies must then hold the same responses under the same ids.
   */
  async function recordBoth(records: CacheLine[], settings: { round1Sample?: 'first' | 'random' }) {
    const server = await serveSimulator(cacheFromRecords(records, '<serve>'), { ...NO_FAULTS, port: 0, key: KEY });
    try {
      const record = async (cache: Cache, endpoint: Endpoint) => {
        const e = makeEnvironment(cache, { ...settings, miss: 'record', rounds: 3 }, newRecording(endpoint, { concurrency: 4 }));
        const full = await fullDebate(e, cache.questions);
        const random = await randomPruning(e, cache.questions, 0.5, 3);
        return [full.correct, random.correct, random.keptEdges];
      };
      const viaServe = cacheFromRecords(records, '<via serve>');
      const inProc = cacheFromRecords(records, '<in process>');
      const team = loadTeamEndpoints(writeTeam(mkdtempSync(join(tmpdir(), 'cpp-rec-serve-')), viaServe, server.url, { concurrency: 4 }), viaServe, {}, keyEnv);
      expect(await record(viaServe, team)).toEqual(await record(inProc, simulatorEndpoint(inProc)));
      const added = viaServe.responses.slice(records.filter((x) => x.type === 'response').length);
      expect(added.length).toBeGreaterThan(0);
      expect(viaServe.responses.map((r) => r.id)).toEqual(inProc.responses.map((r) => r.id));
      viaServe.responses.forEach((r, k) => expect(essence(r), r.id).toEqual(essence(inProc.responses[k])));
      expect(added.every((r) => r.id.startsWith('rec/'))).toBe(true);
      expect(server.stats).toMatchObject({ paid: added.length, ambiguous: 0 });
      return { added, stats: server.stats };
    } finally {
      await server.close();
    }
  }

  it('in every round: a world of questions without responses, every round of every debate recorded', async () => {
    const { added } = await recordBoth(
      worldRecords(10).filter((x) => x.type !== 'response'),
      {},
    );
    expect(new Set(added.map((r) => r.round))).toEqual(new Set([1, 2, 3]));
    expect(added.length).toBeGreaterThan(10 * 3 * 3); // round 1, Full-Debate's rounds 2 and 3, and more for random pruning
  }, 120_000);

  it('where texts repeat: debates from random round-1 samples, some of which share their text, read by their Idempotency-Key', async () => {
    const records = worldRecords(40).filter((x) => x.type !== 'response' || x.round === 1);
    const { stats } = await recordBoth(records, { round1Sample: 'random' });
    expect(stats.resolvedByKey).toBeGreaterThan(0);
  }, 120_000);
});

describe('recording through a team file', () => {
  /** `run` with `serve` answering for the cache in `dir` (10% 429s), a team file for it, and the key in the environment. */
  async function withServe<T>(dir: string, run: (team: string, sim: Cache, server: SimServer) => Promise<T>): Promise<T> {
    const sim = loadCache(dir, quiet);
    const server = await serveSimulator(sim, { ...NO_FAULTS, port: 0, key: KEY, rate429: 0.1, retryAfterS: 0.02, seed: 3 });
    const team = writeTeam(mkdtempSync(join(tmpdir(), 'cpp-team-')), sim, server.url, { concurrency: 4, retry: { maxRetries: 12, baseDelayMs: 5 } });
    process.env[KEY_ENV] = KEY;
    try {
      return await run(team, sim, server);
    } finally {
      delete process.env[KEY_ENV];
      await server.close();
    }
  }

  it('stops cleanly at the team cap (--max-calls): what it paid for is journaled, no intent is left without its reply, a rerun goes on', async () => {
    const dir = sparseWorld(20);
    await withServe(dir, async (team, sim, server) => {
      const o = { cache: dir, split: 'train' as const, settings: { seed: 0 }, method: 'random' as const, keepRate: 0.5, compute: defaultCompute() };
      const capped = await recordJob({ ...o, recording: { concurrency: 8, limits: { maxCalls: 7 }, endpoints: team } });
      expect(capped.recording.recorded).toHaveLength(7);
      expect(capped.text).toMatch(/limits: team caps no dollar cap, 7 calls/);
      expect(capped.text).toMatch(/stopped: call cap reached: a call of agent '\w+' .* refused, 7 of at most 7 calls made/);
      expect(server.stats.paid).toBe(7);
      expect(loadCache(dir, quiet).journal).toMatchObject({ responses: 7, unanswered: new Map() });
      const rest = await recordJob({ ...o, recording: { concurrency: 8, endpoints: team } });
      expect(rest.during).toBeDefined();
      expect(rest.text).toMatch(/\d+ attempts, retries: rate-limit \d+/);
      const cache = loadCache(dir, quiet);
      expect(server.stats.paid).toBe(cache.journal!.responses);
      expect(await expectSimulatorReplies(cache, sim)).toBe(cache.journal!.responses);
      for (const file of filesUnder(dir)) expect(readFileSync(file, 'utf8')).not.toContain(KEY);
    });
  }, 120_000);

  it('says to pass --endpoints where no simulator answers, and refuses --endpoints where nothing records', async () => {
    const dir = sparseWorld(4);
    const sim = loadCache(dir, quiet);
    const recorded: Cache = { ...sim, file: '<recorded>', header: { ...sim.header, source: 'recorded' } };
    expect(() => cacheEndpoint(recorded)).toThrow(
      /cache <recorded> \(source recorded\) has no live endpoint for miss = record: .*pass --endpoints FILE, a team file/,
    );
    const team = writeTeam(mkdtempSync(join(tmpdir(), 'cpp-team-')), sim, 'http://127.0.0.1:9/v1');
    await expect(
      evalJob({
        policies: [],
        cache: dir,
        split: 'test',
        compute: defaultCompute(),
        settings: { miss: 'model' },
        methods: ['full'],
        seeds: 1,
        reference: 'Full-Debate',
        recording: { endpoints: team },
      }),
    ).rejects.toThrow(/setting endpoints \(.*team\.json\): the record tier asks them only with miss = record, and miss is model/);
    const out = join(mkdtempSync(join(tmpdir(), 'cpp-run-')), 'run');
    await expect(train(resolveConfig({ cache: dir, endpoints: team, epochs: 1, out }))).rejects.toThrow(
      /setting endpoints \(.*team\.json\): the record tier asks them only with miss = record, and miss is model/,
    );
  }, 300_000);

  it("active recording and training with miss = record ask the team file's endpoints; the key reaches no file", async () => {
    const dir = sparseWorld(40, 2);
    const out = mkdtempSync(join(tmpdir(), 'cpp-active-team-'));
    await withServe(dir, async (team, sim) => {
      const config = resolveConfig({ ...METHOD, cache: dir, k: -1, epochs: 1, batchSize: 8, hidden: 16, entropyBonus: 0.1, lr: 3e-3, endpoints: team });
      const { rounds } = await activeJob({
        config,
        out: join(out, 'active'),
        rounds: 1,
        passes: 1,
        recording: { concurrency: 4, limits: { maxCalls: 15 }, endpoints: config.endpoints },
        evalRecord: true,
        log: quiet,
      });
      expect(rounds[0].calls).toBe(Math.min(15, rounds[0].askable));
      expect(rounds[0].calls).toBeGreaterThan(0);
      // Deterministic (seeded training; each reply a function of its request, served or not): the
      // round's policy answers 4 of the 10 validation questions right with the team's replies.
      expect(rounds[0].accuracyRecord).toBe(4 / 10);
      expect(loadCache(dir, quiet).journal!.responses).toBe(rounds[0].calls);
      const said: string[] = [];
      await train(
        resolveConfig({
          ...METHOD,
          cache: dir,
          miss: 'record',
          endpoints: team,
          epochs: 1,
          batchSize: 8,
          hidden: 16,
          behavior: 'random',
          out: join(out, 'run'),
        }),
        { log: (l) => said.push(l) },
      );
      expect(said.at(-1)).toMatch(/^record tier \(team .*team\.json\): [1-9]\d* calls, .* \d+ attempts, retries: /);
      const cache = loadCache(dir, quiet);
      expect(await expectSimulatorReplies(cache, sim)).toBe(cache.journal!.responses);
      for (const file of [...filesUnder(dir), ...filesUnder(out)]) expect(readFileSync(file, 'latin1'), file).not.toContain(KEY);
    });
  }, 300_000);
});
