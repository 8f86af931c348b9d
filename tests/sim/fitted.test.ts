// The simulator fitted to a recorded cache (src/sim/fitted.ts, fitFile.ts, fittedEndpoint.ts): the
// fit, its endpoint, its checks, and active recording on imported DyLAN MATH records with it as the
// endpoint.
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { activeJob } from '../../jobs/active.ts';
import { fitJob } from '../../jobs/cache.ts';
import { importJob } from '../../jobs/import.ts';
import { normalizeAnswer } from '../../src/answer.ts';
import type { Cache, Response } from '../../src/cache/types.ts';
import { loadCache } from '../../src/cache/load.ts';
import { writeCacheRecords } from '../../src/cache/write.ts';
import type { EndpointRequest } from '../../src/env/endpoint.ts';
import { cacheEndpoint } from '../../src/recording.ts';
import { fitPath, loadFit, saveFit, type SimulatorFit } from '../../src/sim/fitFile.ts';
import { fitSimulator, type CalibrationRow } from '../../src/sim/fitted.ts';
import { generateWorld } from '../../src/sim/generate.ts';
import { resolveConfig } from '../../train/config.ts';
import { dylanMathDir } from '../fixtures/dylanMath.ts';
import { mathImport } from '../fixtures/duLayout.ts';
import { killHolder, lockHolder } from '../fixtures/lockHolder.ts';
import { METHOD } from '../fixtures/method.ts';
import { recordedWorld } from '../fixtures/recordedWorld.ts';

// DyLAN's MATH debates, committed as fixtures (tests/fixtures/dylan-math/).
const DATA = dylanMathDir();

const load = (dir: string) => loadCache(dir, () => {});

/** Round 2 of agent `a` on question `q` after every round-1 answer of the team (its own included). */
function afterRound1(cache: Cache, q: number, a: number, sample = 0): EndpointRequest {
  const round1 = cache.responses.filter((r) => r.q === q && r.round === 1 && r.sample === 0);
  return { cache, question: cache.questions[q], agent: cache.agents[a], round: 2, context: round1, prev: round1.find((r) => r.a === a)!, sample };
}

describe('a simulator fitted to a recorded cache', () => {
  let dir: string, cache: Cache, fit: SimulatorFit, calibration: CalibrationRow[];
  beforeAll(() => {
    dir = recordedWorld(80);
    cache = load(dir);
    ({ fit, calibration } = fitSimulator(cache, { seed: 0, sweeps: 2 }));
  }, 600_000);

  it('reproduces the recorded revisions it was fitted to, and explains them better than "state the previous answer again"', () => {
    const n = calibration.reduce((s, r) => s + r.n, 0);
    const recorded = calibration.reduce((s, r) => s + r.n * r.recorded, 0) / n;
    const fitted = calibration.reduce((s, r) => s + r.n * r.fitted, 0) / n;
    expect(n).toBe(fit.fit.revisions);
    expect(Math.abs(fitted - recorded)).toBeLessThan(0.03);
    // Right and wrong previous answers apart: a lone right peer pulls more than a lone wrong one in
    // this world (swayRight ~ swayWrong, but the own knowledge favours gold).
    const fromWrong = calibration.filter((r) => !r.fromRight);
    const fromRight = calibration.filter((r) => r.fromRight);
    const rate = (rows: typeof calibration, k: 'recorded' | 'fitted') => rows.reduce((s, r) => s + r.n * r[k], 0) / rows.reduce((s, r) => s + r.n, 0);
    expect(Math.abs(rate(fromWrong, 'fitted') - rate(fromWrong, 'recorded'))).toBeLessThan(0.05);
    expect(Math.abs(rate(fromRight, 'fitted') - rate(fromRight, 'recorded'))).toBeLessThan(0.05);
    expect(fit.fit.logLik).toBeGreaterThan(fit.fit.keepPreviousLogLik);
    for (const q of cache.questions) {
      const options = fit.questions[q.id].options;
      expect(normalizeAnswer(options[0].answer, 'mcq')).toBe(q.gold); // option 0: the gold answer
      expect(options.at(-1)!.answer).toBeNull(); // the last: no stated answer
    }
  }, 600_000);

  it('is the endpoint of the cache once written beside it: same request, same reply; ' +
    "replies state the question's answers; two right peers carry a wrong recipient", async () => {
    expect(() => cacheEndpoint(cache)).toThrow(
      new RegExp(`or fit a simulator to its records with \`cache fit ${dir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\``),
    );
    saveFit(dir, fit);
    const endpoint = cacheEndpoint(load(dir));
    expect(endpoint.name).toMatch(/simulator fitted to the records of cache 'recorded-world'/);
    const c = load(dir);
    // Revisions of a wrong recipient whose two peers both state the gold answer: mostly right afterwards, as recorded.
    let asked = 0,
      right = 0;
    for (const question of c.questions) {
      const request = afterRound1(c, question.index, 0);
      const a = await endpoint.respond(request);
      expect(await endpoint.respond({ ...request })).toEqual(a);
      const stated = new Set(fit.questions[question.id].options.map((o) => normalizeAnswer(o.answer, 'mcq')));
      expect(stated.has(normalizeAnswer(a.answer, 'mcq'))).toBe(true);
      expect(a.outTokens).toBeGreaterThan(0);
      if (!request.prev!.correct && (request.context as Response[]).filter((r) => r !== request.prev).every((r) => r.correct))
        for (let sample = 0; sample < 5; sample++) {
          asked++;
          right += +(normalizeAnswer((await endpoint.respond(afterRound1(c, question.index, 0, sample))).answer, 'mcq') === question.gold);
        }
    }
    expect(asked).toBeGreaterThanOrEqual(20);
    expect(right / asked).toBeGreaterThan(0.5);
  }, 600_000);

  it('refuses a simulated cache, a fit of another cache, a broken fit file, and replacing a fit without --force', async () => {
    const simulated = mkdtempSync(join(tmpdir(), 'cpp-fit-sim-'));
    writeCacheRecords(simulated, generateWorld({ questions: 4, round1Samples: 1, randomTrajectories: 0 }, 'sim'));
    expect(() => fitSimulator(load(simulated), { seed: 0 })).toThrow(/is simulated: its own simulator answers every context/);

    const other = recordedWorld(4);
    writeFileSync(fitPath(other), JSON.stringify({ ...fit, cache: 'another-cache' }));
    expect(() => loadFit(load(other))).toThrow(
      new RegExp(`${fitPath(other)} does not fit the cache beside it \\(it was fitted to cache 'another-cache'.*cache fit .* --force`),
    );

    const broken = JSON.parse(readFileSync(fitPath(dir), 'utf8'));
    broken.knobs.slip = 2;
    writeFileSync(fitPath(other), JSON.stringify(broken));
    expect(() => loadFit(load(other))).toThrow(new RegExp(`${fitPath(other)}.*knobs\\.slip`));

    await expect(fitJob(dir, { seed: 0 })).rejects.toThrow(`${fitPath(dir)} exists: pass --force`);
  });

  it('cache fit holds the cache lock: beside another writer of the cache it is refused, naming it, and writes nothing', async () => {
    const other = recordedWorld(4);
    const holder = await lockHolder(other);
    try {
      await expect(fitJob(other, { seed: 0 })).rejects.toThrow(`${other} is being written by another process (a test holder: pid ${holder.pid} on `);
      expect(existsSync(fitPath(other))).toBe(false);
    } finally {
      await killHolder(holder);
    }
  }, 600_000);
});

describe('active recording on imported DyLAN MATH records, the fitted simulator answering', () => {
  it("the share of the policy's lookups the tier-3 model answers falls round by round", async () => {
    const root = mkdtempSync(join(tmpdir(), 'cpp-fit-dylan-'));
    const dir = join(root, 'dylan');
    await importJob({ ...mathImport, files: ['algebra_1_248_4_3.json', 'prealgebra_7_631_4_3.json'].map((f) => join(DATA, f)), out: dir, name: 'dylan-two' });
    const report = await fitJob(dir, { seed: 0 });
    expect(report).toMatch(/a simulator fitted to the \d+ round-1 answers and \d+ revisions/);
    // The team a1,a2,a3 recorded 2 rounds (the 2-agent debates alone reach round 3): it replays 2.
    const config = resolveConfig({
      ...METHOD,
      cache: dir,
      agents: ['a1', 'a2', 'a3'],
      rounds: 2,
      epochs: 2,
      batchSize: 16,
      hidden: 16,
      entropyBonus: 1,
      lr: 3e-4,
    });
    const { rounds, text } = await activeJob({
      config,
      out: join(root, 'active'),
      rounds: 2,
      passes: 2,
      recording: { concurrency: 4, limits: { maxCalls: 400 } },
      evalRecord: true,
      log: () => {},
    });
    expect(rounds.map((r) => r.calls)).toEqual([400, 400, 0]);
    expect(rounds[1].modelShareTrain).toBeLessThan(rounds[0].modelShareTrain);
    expect(rounds[2].modelShareTrain).toBeLessThan(rounds[1].modelShareTrain);
    expect(rounds[2].firstPolicyShareTrain).toBeLessThan(rounds[0].firstPolicyShareTrain);
    // The fitted simulator answering (record) and the response model (model) agree on each round's
    // validation accuracy: measured 75.8, 81.8, 75.8 against 81.8 (of 33 questions: gaps of 2, 0, 2
    // questions); tolerance 10 points (3 questions).
    for (const r of rounds) expect(Math.abs(r.accuracyRecord! - r.accuracyModel), `round ${r.round}`).toBeLessThanOrEqual(0.1);
    expect(text).toMatch(/active recording on .*dylan/);
    // What was recorded came from the fitted simulator, journaled beside the imported records.
    const grown = load(dir);
    expect(grown.journal?.responses).toBe(800);
  }, 600_000);
});
