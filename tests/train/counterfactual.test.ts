import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import seedrandom from 'seedrandom';
import { describe, expect, it } from 'vitest';
import { loadCache } from '../../src/cache/load.ts';
import { actionIndex, actionsPerDebate } from '../../src/env/actions.ts';
import { edgesOnly, playDebates } from '../../src/env/debate.ts';
import { makeEnvironment, type Environment } from '../../src/env/environment.ts';
import { influenceWeights, RewardSettings } from '../../src/reward.ts';
import type { AdvantageSettings } from '../../train/advantage.ts';
import { resolveConfig } from '../../train/config.ts';
import { counterfactualAdvantages, flipCounts, playBranches, type Sampled } from '../../train/counterfactual.ts';
import { sparseWorld } from '../fixtures/sparseWorld.ts';
import { METHOD } from '../fixtures/method.ts';
import { expectTinyLearned } from '../fixtures/tinyPolicy.ts';
import { tinyRecords } from '../fixtures/tinyWorld.ts';
import { writeCacheRecords } from '../../src/cache/write.ts';
import { readLog } from '../../train/runFolder.ts';
import { train } from '../../train/trainer.ts';

const SEED = 'cf-test';

/** Debates of `qs` played under random keeps (recipient 0 keeping everything in round 2 where `fullFirst`), as a sampled batch with p = 0.5. */
async function sampled(env: Environment, qs: number[], seed: string, fullFirst = false): Promise<Sampled> {
  const random = seedrandom(seed);
  const A = env.team.length;
  const rule = edgesOnly((d, n) =>
    Array.from({ length: n }, (_, i) => Array.from({ length: n }, () => (fullFirst && i === 0 && d.round === 1) || random() < 0.5)),
  );
  const results = await playDebates(env, qs, rule, SEED);
  const N = actionsPerDebate(A, env.rounds);
  const actions = new Uint8Array(results.length * N);
  results.forEach((d, k) =>
    d.keeps.forEach((round, t) => round.forEach((row, i) => row.forEach((kept, j) => (actions[k * N + actionIndex(A, t + 2, i, j)] = +kept)))),
  );
  return { results, tokens: new Float32Array(results.length * N).fill(10), actions, probs: new Float32Array(results.length * N).fill(0.5) };
}

const settings = (agents: number, rounds: number): AdvantageSettings => ({
  reward: RewardSettings.parse({}),
  W: influenceWeights(agents, rounds, 0, 0),
  meanTokens: 10,
  agents,
  baseline: 'running',
  rollouts: 1,
  normalize: false,
  state: [],
  momentum: 0.9,
  step: 0,
});
const every = { creditScale: 'policy', creditFlips: null, creditMaxBranches: null } as const;

describe('counterfactual credit', () => {
  it('a flip that cannot change anything gets advantage 0; one that changes the vote gets p x the difference (tiny world, exact tier)', async () => {
    // a2 answers B whatever it keeps; a1 and a3 are right iff they keep a2 and not the other wrong agent.
    const dir = mkdtempSync(join(tmpdir(), 'cpp-cf-'));
    writeCacheRecords(dir, tinyRecords(8));
    const env = makeEnvironment(loadCache(dir), { rounds: 2, miss: 'error' });
    const r = await sampled(env, [0, 1, 2, 4, 5, 6, 0, 1, 2, 4], 'tiny');
    const s = settings(3, 2);
    for (const outcome of ['correct', 'reward'] as const) {
      const a = await counterfactualAdvantages(
        r,
        s,
        { credit: 'counterfactual', creditOutcome: outcome, ...every },
        { env, debateSeed: SEED, random: seedrandom('flips') },
      );
      expect(a.stats.branches).toBe(10 * 9);
      r.results.forEach((d, k) => {
        // a2's own three decisions (recipient 1): its reply is B whatever it keeps, and with k = 0 a right recipient's edges earn 0.
        for (let j = 0; j < 3; j++) expect(a.advantages[k * 9 + actionIndex(3, 2, 1, j)]).toBe(0);
        // a1 keeping a2 (recipient 0, candidate 1): flipping it flips a1's answer; the vote follows where a3 is wrong.
        const x = k * 9 + actionIndex(3, 2, 0, 1);
        const keepsA3 = d.keeps[0][0][2];
        const a1Right = d.keeps[0][0][1] && !keepsA3;
        const a3Right = d.correct[1][2];
        const voteChanges = !a3Right; // a2 says B: with a3 wrong (C), a1 decides between B and a tie (lowest agent: a1's answer)
        if (outcome === 'correct') expect(a.advantages[x]).toBe(keepsA3 ? 0 : voteChanges ? 0.5 * (a1Right ? 1 : -1) : 0);
      });
    }
  });

  it("a branch shares the round-1 samples, every other decision and each lookup's draws with its factual debate (tier-3 world)", async () => {
    // Recorded: Full-Debate and No-communication only. Recipient 0 keeps every edge in round 2 (the
    // recorded context: an exact hit, no draw); flipping one of them sends its lookup to the tier-3
    // model, which draws. The others' lookups must take the draws they took in the factual debate.
    const dir = sparseWorld(40);
    const env = makeEnvironment(loadCache(dir), {});
    const A = env.team.length;
    const r = await sampled(
      env,
      Array.from({ length: 40 }, (_, q) => q),
      'sparse',
      true,
    );
    const branches = r.results.flatMap((_, k) => [0, 1, 2].map((j) => ({ k, x: actionIndex(A, 2, 0, j) })));
    const played = await playBranches(env, r, branches, SEED);
    let moved = 0;
    branches.forEach(({ k }, b) => {
      const [factual, branch] = [r.results[k], played.results[b]];
      expect(branch.answers[0]).toEqual(factual.answers[0]); // round 1: the same samples
      // Round 2: every recipient but 0 kept the same and drew the same.
      for (let i = 1; i < A; i++) expect(branch.answers[1][i]).toEqual(factual.answers[1][i]);
      if (branch.answers[1][0] !== factual.answers[1][0]) moved++;
      const flipped = branch.keeps.flat(2).filter((kept, n) => kept !== factual.keeps.flat(2)[n]);
      expect(flipped.length).toBe(1); // every other decision as it was
    });
    expect(moved).toBeGreaterThan(0); // the flips did change recipient 0's replies
    expect(played.results.reduce((n, d) => n + d.tiers.model, 0)).toBeGreaterThan(0);
  });

  it("creditScale logit: the decision's logit gradient (action - p) x advantage is the estimate Q(keep) - Q(prune) itself, not p (1 - p) times it", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cpp-cf-'));
    writeCacheRecords(dir, tinyRecords(8));
    const env = makeEnvironment(loadCache(dir), { rounds: 2, miss: 'error' });
    const r = await sampled(env, [0, 1, 2, 4, 5, 6], 'tiny-logit');
    r.probs.forEach((_, x) => (r.probs[x] = 0.1 + (0.8 * ((x * 7) % 10)) / 10)); // no two alike: p (1 - p) is not one constant
    const s = settings(3, 2);
    const credit = (creditScale: 'policy' | 'logit') =>
      counterfactualAdvantages(
        r,
        s,
        { credit: 'counterfactual', creditOutcome: 'correct', ...every, creditScale },
        { env, debateSeed: SEED, random: seedrandom('flips') },
      );
    const policy = await credit('policy');
    const logit = await credit('logit');
    let nonzero = 0;
    r.actions.forEach((a, x) => {
      const pa = a ? r.probs[x] : 1 - r.probs[x];
      const estimate = ((a ? 1 : -1) * policy.advantages[x]) / pa; // policy: p(a) x (outcome(a) - outcome(not a))
      expect(logit.advantages[x] * (a - r.probs[x])).toBeCloseTo(estimate, 5);
      if (estimate !== 0) nonzero++;
    });
    expect(nonzero).toBeGreaterThan(0);
  });

  it('flips a sample of each debate under a bound on the branches of a step', () => {
    expect(flipCounts(4, 18, null, null)).toEqual([18, 18, 18, 18]);
    expect(flipCounts(4, 18, 5, null)).toEqual([5, 5, 5, 5]);
    expect(flipCounts(4, 18, 5, 10)).toEqual([3, 3, 2, 2]);
    expect(flipCounts(4, 18, null, 3)).toEqual([1, 1, 1, 0]);
  });

  it('its settings are an error under the return credit', () => {
    expect(() => resolveConfig({ creditFlips: 4 })).toThrow(/creditFlips 4: counterfactual settings, but credit is return/);
    expect(() => resolveConfig({ creditOutcome: 'correct' })).toThrow(/credit: counterfactual/);
    expect(resolveConfig({ credit: 'counterfactual', creditFlips: 4 }).creditFlips).toBe(4);
  });
});

describe('training with counterfactual credit', () => {
  function tiny() {
    const dir = mkdtempSync(join(tmpdir(), 'cpp-cf-train-'));
    writeCacheRecords(join(dir, 'cache'), tinyRecords());
    const base = {
      ...METHOD,
      cache: join(dir, 'cache'),
      rounds: 2,
      miss: 'error' as const,
      batchSize: 6,
      hidden: 16,
      backend: 'cpu' as const,
      credit: 'counterfactual' as const,
    };
    return { dir, base };
  }
  const timeless = (out: string) => readLog(out).map(({ time: _t, seconds: _s, decisionsPerSecond: _d, ...l }) => l);

  it('learns the tiny world: keep the agent that helps, prune the one that hurts', async () => {
    const { dir, base } = tiny();
    const said: string[] = [];
    const config = resolveConfig({ ...base, out: join(dir, 'run'), epochs: 20, evalEvery: 20 });
    const { checkpoint, setup } = await train(config, { log: (l) => said.push(l) });
    expect(
      said.some((l) =>
        /^credit counterfactual \(outcome reward\): 54 branches a step of 6 debates \(every decision\);.*; not used: baseline running, baselineMomentum 0.9, beta 0.5, gamma 0.9$/.test(
          l,
        ),
      ),
    ).toBe(true);
    expect(said.some((l) => /^counterfactual credit: [\d,]+ branches in 60 steps, [\d.]+% changed their outcome; branch lookups exact 100%$/.test(l))).toBe(
      true,
    );
    const steps = readLog(config.out).filter((l) => l.type === 'step');
    expect(steps.every((l) => l.branches === 54 && l.branch_tier_exact === 1 && l.branchCalls === undefined)).toBe(true);
    await expectTinyLearned(checkpoint, setup);
  }, 600_000);

  it('a sample of flips with K rollouts and normalization: a resumed run repeats the uninterrupted one; TF.js trains it too', async () => {
    const { dir, base } = tiny();
    const settings = {
      ...base,
      k: -1,
      rollouts: 2,
      baseline: 'rloo' as const,
      normalizeAdvantages: true,
      creditFlips: 4,
      creditMaxBranches: 40,
      epochs: 3,
      evalEvery: 3,
    };
    const whole = resolveConfig({ ...settings, out: join(dir, 'whole') });
    const split = resolveConfig({ ...settings, out: join(dir, 'split') });
    await train(whole, { log: () => {} });
    await train(split, { log: () => {}, stopAfterEpochs: 1 });
    await train(split, { log: () => {}, resume: true });
    expect(timeless(split.out)).toEqual(timeless(whole.out));
    // 18 train questions: 3 steps an epoch of 12 debates; 4 flips each (48) under the bound of 40
    expect(
      readLog(whole.out)
        .filter((l) => l.type === 'step')
        .map((l) => l.branches),
    ).toEqual(new Array(9).fill(40));
    const tfjs = resolveConfig({ ...settings, engine: 'tfjs', epochs: 1, out: join(dir, 'tfjs') });
    await train(tfjs, { log: () => {} });
    expect(
      readLog(tfjs.out)
        .filter((l) => l.type === 'step')
        .map((l) => l.branches),
    ).toEqual([40, 40, 40]);
  }, 600_000);

  it('with miss = record the branches ask the endpoint for the contexts the cache lacks, counted apart; a rerun asks nothing', async () => {
    const cache = sparseWorld(40);
    const dir = mkdtempSync(join(tmpdir(), 'cpp-cf-record-'));
    const responses = loadCache(cache).responses.length;
    const settings = { cache, miss: 'record' as const, epochs: 1, batchSize: 8, hidden: 16, evalEvery: 1, behavior: 'random' as const };
    const cf = { ...settings, credit: 'counterfactual' as const, creditFlips: 3 };
    const said: string[] = [];
    await train(resolveConfig({ ...cf, out: join(dir, 'run') }), { log: (l) => said.push(l) });
    const steps = readLog(join(dir, 'run')).filter((l) => l.type === 'step');
    const branchCalls = steps.reduce((s, l) => s + l.branchCalls!, 0);
    expect(branchCalls).toBeGreaterThan(0);
    expect(steps.every((l) => l.branch_tier_model === 0 && l.branch_tier_signature === 0 && l.branch_tier_record! > 0)).toBe(true);
    expect(said.find((l) => l.startsWith('counterfactual credit:'))).toMatch(new RegExp(`the record tier's calls for branches: ${branchCalls}$`));
    // The record tier's own summary (the last lines are the run's time split).
    const recordCalls = (lines: string[]) => Number(lines.map((l) => l.match(/: (\d+) calls/)).find(Boolean)![1]);
    const calls = recordCalls(said);
    expect(calls).toBeGreaterThan(branchCalls);
    expect(loadCache(cache).responses.length).toBe(responses + calls);
    const again: string[] = [];
    await train(resolveConfig({ ...cf, out: join(dir, 'again') }), { log: (l) => again.push(l) });
    expect(recordCalls(again)).toBe(0);
    expect(again.find((l) => l.startsWith('counterfactual credit:'))).toMatch(/the record tier's calls for branches: 0$/);
  }, 600_000);
});
