import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import seedrandom from 'seedrandom';
import { describe, expect, it } from 'vitest';
import { fullDebate, noCommunication, runRule, singleAgent } from '../../eval/baselines.ts';
import { debateStatistics, type RevisionRow } from '../../src/cache/debateStats.ts';
import { importDu } from '../../src/cache/importDu.ts';
import type { Cache } from '../../src/cache/types.ts';
import { cacheFromRecords } from '../../src/cache/load.ts';
import { chunked, serializeRecords, writeCacheRecords } from '../../src/cache/write.ts';
import { candidateOrder } from '../../src/env/actions.ts';
import { makeEnvironment } from '../../src/env/environment.ts';
import { newRecording } from '../../src/env/record.ts';
import { edgesOnly, replay, keepAll } from '../../src/env/debate.ts';
import { generateCache, generateWorld, holdsWorld } from '../../src/sim/generate.ts';
import { agentLatent, gaussian, questionLatent, simulatorEndpoint } from '../../src/sim/simulator.ts';
import { independentAnswer, WorldConfig, worldAgents } from '../../src/sim/world.ts';
import { dylanMathFiles } from '../fixtures/dylanMath.ts';
import { mathImport } from '../fixtures/duLayout.ts';
import { requestOf } from '../fixtures/endpoints.ts';

const text = (config: object) => [...chunked(serializeRecords(generateWorld(config)))].join('');
const sumOfSquares = (p: number[]) => p.reduce((s, x) => s + x * x, 0);

/**
 * Chance that two round-1 samples of one agent on one question agree, averaged over (agent,
 * question): `shared`, if they are independent given the agent's latent on that question (how the
 * simulator draws them); `unshared`, if each sample drew its own latent (independent draws given
 * the question's subject and difficulty only).
 */
function expectedAgreement(cache: Cache): { shared: number; unshared: number } {
  const world = WorldConfig.parse(cache.header.simulator);
  const random = seedrandom('latents');
  let shared = 0;
  let unshared = 0;
  let n = 0;
  for (const question of cache.questions)
    for (const agent of worldAgents(world)) {
      const q = questionLatent(question);
      const latent = agentLatent(world, agent, q);
      shared += sumOfSquares(independentAnswer(world, agent, q, latent));
      const mean = [0, 0, 0, 0];
      const draws = 200;
      for (let k = 0; k < draws; k++)
        independentAnswer(world, agent, q, { ...latent, offset: world.latentSd * gaussian(random) }).forEach((p, o) => (mean[o] += p / draws));
      unshared += sumOfSquares(mean);
      n++;
    }
  return { shared: shared / n, unshared: unshared / n };
}

describe('simulated world', () => {
  it('the same seed gives the same cache; another seed another', () => {
    const small = { questions: 20, round1Samples: 2 };
    expect(text({ ...small, seed: 3 })).toBe(text({ ...small, seed: 3 }));
    expect(text({ ...small, seed: 4 })).not.toBe(text({ ...small, seed: 3 }));
  });

  it("one agent's samples on one question share its latent: they agree far more than independent draws", () => {
    const world = (config: object) => cacheFromRecords([...generateWorld({ questions: 120, round1Samples: 8, randomTrajectories: 0, ...config })]);
    const correlated = world({});
    const [same] = debateStatistics(correlated).agreement;
    expect(same.kind).toBe('same agent');
    expect(same.pairs).toBe(120 * 3 * 28);
    const expected = expectedAgreement(correlated);
    expect(Math.abs(same.agree / same.pairs - expected.shared)).toBeLessThan(0.03);
    expect(same.agree / same.pairs).toBeGreaterThan(expected.unshared + 0.1);
    // Without the latent only the question's subject and difficulty correlate the samples.
    const independent = world({ latentSd: 0 });
    const [free] = debateStatistics(independent).agreement;
    expect(Math.abs(free.agree / free.pairs - expectedAgreement(independent).shared)).toBeLessThan(0.03);
    expect(same.correctnessCorrelation).toBeGreaterThan(free.correctnessCorrelation + 0.25);
  });

  it('the latent is a function of (seed, question, agent) only', () => {
    const world = WorldConfig.parse({ seed: 5 });
    const [atlas, sage] = world.agents;
    const q = { id: 'q1', subject: 'law', difficulty: 0.5, gold: 0, distractor: 2 };
    expect(agentLatent(world, atlas, q)).toEqual(agentLatent(WorldConfig.parse({ seed: 5 }), atlas, { ...q }));
    expect(agentLatent(world, atlas, q)).not.toEqual(agentLatent(world, sage, q));
    expect(agentLatent(world, atlas, q)).not.toEqual(agentLatent(world, atlas, { ...q, id: 'q2' }));
    expect(agentLatent(world, atlas, q)).not.toEqual(agentLatent(WorldConfig.parse({ seed: 6 }), atlas, q));
  });

  it('a cache written by an earlier simulator is refused as a live endpoint, naming the missing settings', () => {
    const records = [...generateWorld({ questions: 2, round1Samples: 1 })];
    const header = records[0] as { simulator: Record<string, unknown> };
    const { latentSd: _, ...older } = header.simulator;
    header.simulator = { ...older, agents: (older.agents as object[]).map((a) => ({ ...a, slip: undefined })) };
    expect(() => simulatorEndpoint(cacheFromRecords(records))).toThrow(/earlier simulator .*latentSd, atlas\.slip, sage\.slip, brisk\.slip/);
  });

  it("tells a cache of today's default world from another world", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sim-'));
    await generateCache(dir, { questions: 3 }, 'small');
    expect(holdsWorld(dir)).toBe(false);
    const same = mkdtempSync(join(tmpdir(), 'sim-'));
    writeCacheRecords(same, [...generateWorld({}, 'default-sim')].slice(0, 5)); // today's header and a few lines
    expect(holdsWorld(same)).toBe(true);
  });

  it('is a valid cache with the configured splits, agents and recorded debates', async () => {
    const cache = cacheFromRecords([...generateWorld({ questions: 40, round1Samples: 3, adversary: true })]);
    expect(cache.header.source).toBe('simulator');
    expect(cache.agents.map((a) => a.id)).toEqual(['atlas', 'sage', 'brisk', 'mallory']);
    expect(cache.questions.filter((q) => q.split === 'train').length).toBe(20);
    expect(cache.questions.filter((q) => q.split === 'validation').length).toBe(10);
    expect(cache.responses.filter((r) => r.round === 1).length).toBe(40 * 4 * 3);
    // Full-Debate and No-communication are recorded for every question: exact hits only.
    const env = makeEnvironment(cache, { miss: 'error' });
    expect((await fullDebate(env, cache.questions)).tiers.exact).toBe(40 * 4 * 2);
    expect((await noCommunication(env, cache.questions)).tiers.exact).toBe(40 * 4 * 2);
    // The adversary always argues for a wrong answer.
    expect(cache.responses.filter((r) => r.agent === 'mallory').every((r) => !r.correct)).toBe(true);
  });

  it('texts carry subject, reasoning quality and the stated answer', () => {
    const cache = cacheFromRecords([...generateWorld({ questions: 30, round1Samples: 1 })]);
    for (const r of cache.responses) {
      const subject = (cache.questions[r.q].meta as { subject: string }).subject;
      expect(r.text).toContain(subject);
      expect(r.text.endsWith(`The answer is (${r.answer}).`)).toBe(true);
    }
    const careful = (t: string) => /carefully|rigorously|verifying|confirms|step by step|careful check/.test(t);
    const right = cache.responses.filter((r) => r.correct);
    const wrong = cache.responses.filter((r) => !r.correct);
    const share = (rs: typeof right) => rs.filter((r) => careful(r.text)).length / rs.length;
    expect(share(right)).toBeGreaterThan(share(wrong) + 0.2);
  });

  it('the simulator endpoint answers like the recorded cache for a recorded context', async () => {
    const cache = cacheFromRecords([...generateWorld({ questions: 10, round1Samples: 1 })]);
    const endpoint = simulatorEndpoint(cache);
    for (const r of cache.responses.filter((x) => x.round > 1).slice(0, 20)) {
      const reply = await endpoint.respond(requestOf(cache, r));
      expect(reply).toEqual({ text: r.text, answer: r.answer, inTokens: r.inTokens, outTokens: r.outTokens, meta: r.meta });
    }
  });

  it('makes pruning matter: debate beats single agents, and keeping only right answers beats Full-Debate at lower cost', async () => {
    const cache = cacheFromRecords([...generateWorld({ questions: 300, round1Samples: 1, randomTrajectories: 0 })]);
    const env = makeEnvironment(cache, { miss: 'record' }, newRecording(simulatorEndpoint(cache)));
    const qs = cache.questions;
    const full = await fullDebate(env, qs);
    const singles = [];
    for (const i of env.team.keys()) singles.push((await singleAgent(env, qs, i)).correct);
    const best = Math.max(...singles);
    expect(full.correct).toBeGreaterThan(best + 0.05 * qs.length);
    // An oracle pruner (it reads the gold answer) shows the headroom a learned policy can chase.
    const oracle = await runRule(
      env,
      qs,
      'oracle',
      edgesOnly((d, n) => Array.from({ length: n }, (_, i) => candidateOrder(n, i).map((c) => d.current[c].ans === cache.questions[d.q].goldKey))),
    );
    expect(oracle.correct).toBeGreaterThan(full.correct + 0.05 * qs.length);
    expect(oracle.cost).toBeLessThan(full.cost);
    expect(oracle.tiers.record).toBeGreaterThan(0);
    expect(replay(env, 0, keepAll).tiers.record).toBe(0); // recorded debates are exact hits
    expect(env.recording!.recorded.length).toBe(env.recording!.spent.calls); // each context asked once
  });
});

// The default world's knobs are calibrated to real debates: its statistics must stay near those of
// dylan-math (gpt-3.5-turbo on MATH), where they are comparable. dylan-math shows every revision its
// own previous response and one or three peers; the default world's teams have at most two peers,
// so the rows compared are those with one peer, and the correlation of two samples' correctness.
// dylan-math is committed as fixtures (tests/fixtures/dylan-math/, 700 problems).
function expectCalibrated(files: string[]): void {
  const real = debateStatistics(cacheFromRecords(importDu(files, { ...mathImport, name: 'dylan' }).records));
  const sim = debateStatistics(cacheFromRecords([...generateWorld({ questions: 400, round1Samples: 2 })]));
  // dylan-math has one sample per agent, but its agents are one model sampled independently.
  const [realPairs] = real.agreement;
  expect(realPairs.kind).toBe('same model, other agent');
  expect(Math.abs(sim.agreement[0].correctnessCorrelation - realPairs.correctnessCorrelation)).toBeLessThan(0.1);
  const cell = (rows: RevisionRow[], count: number) => rows.find((r) => r.ownShown && r.peers === 1 && r.count === count)!;
  // Wrong kept and right -> wrong by peers agreeing, wrong -> right by peers with the gold answer.
  const rates = (s: typeof sim) =>
    [0, 1].flatMap((k) => {
      const [agree, gold] = [cell(s.revisions.byAgreeing, k), cell(s.revisions.byGold, k)];
      return [{ hits: agree.wrongKept, n: agree.fromWrong.n }, agree.fromRight, gold.fromWrong];
    });
  const [simRates, realRates] = [rates(sim), rates(real)];
  // Some recorded cells are small (one has 9 revisions): allow two standard errors of the
  // difference, plus 0.05.
  const variance = (r: { hits: number; n: number }) => ((r.hits / r.n) * (1 - r.hits / r.n)) / r.n;
  for (let i = 0; i < realRates.length; i++) {
    const [a, b] = [simRates[i], realRates[i]];
    expect(Math.abs(a.hits / a.n - b.hits / b.n)).toBeLessThan(0.05 + 2 * Math.sqrt(variance(a) + variance(b)));
  }
}

describe('the default world is calibrated to dylan-math', () => {
  it('within-model correlation and revision rates with one peer sit near the recorded ones', () => {
    expectCalibrated(dylanMathFiles());
  }, 600_000);
});
