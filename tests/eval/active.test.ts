import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { activeJob } from '../../eval/activeJob.ts';
import { evaluatePolicy } from '../../eval/policyEval.ts';
import { ensureEmbeddings } from '../../src/cache/embeddings.ts';
import { loadCache } from '../../src/cache/load.ts';
import { writeCacheRecords } from '../../src/cache/write.ts';
import { makeEnvironment, splitQuestions } from '../../src/env/environment.ts';
import { loadAnyPolicy } from '../../src/policy/artifact.ts';
import { inferenceEngine } from '../../src/policy/engines.ts';
import { encoderFor } from '../../src/policy/inference.ts';
import { generateWorld } from '../../src/sim/generate.ts';
import { resolveConfig } from '../../train/config.ts';
import { runFiles } from '../../train/runFolder.ts';

describe('active recording (small simulated world whose recorded debates are Full-Debate and No-communication only)', () => {
  it('records what the policy visits, within each round\'s limit; the policy then finds it in the cache', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cpp-active-'));
    const cache = join(dir, 'cache');
    writeCacheRecords(cache, generateWorld({ questions: 60, round1Samples: 2, randomTrajectories: 0 }, 'active-sim'));
    // k = -1 pushes the policy to prune: it goes where nothing was recorded.
    const config = resolveConfig({ cache, k: -1, epochs: 2, batchSize: 8, hidden: 16, entropyBonus: 0.1, lr: 3e-3 });
    const lines: string[] = [];
    const { rounds, text } = await activeJob({ config, out: join(dir, 'active'), rounds: 2, passes: 2, recording: { concurrency: 4, limits: { maxCalls: 25 } }, evalRecord: true, log: (l) => lines.push(l) });
    expect(rounds.map((r) => r.round)).toEqual([0, 1, 2]);
    expect(rounds[0].modelShareTrain).toBeGreaterThan(0);
    for (const r of rounds.slice(0, 2)) {
      expect(r.calls).toBe(Math.min(25, r.askable));
      expect(r.askable).toBeLessThanOrEqual(r.visited);
    }
    expect(rounds[0].accuracyRecord).toBeGreaterThan(0);
    expect(text).toMatch(/\| round \| tier-3 share, train/);
    expect(loadCache(cache).journal!.responses).toBe(rounds[0].calls + rounds[1].calls);

    // Round 0's policy, replayed greedily on the grown cache, meets the tier-3 model less often.
    const artifact = loadAnyPolicy(runFiles(join(dir, 'active', 'round-0')).best);
    const grown = loadCache(cache);
    const env = makeEnvironment(grown, { agents: artifact.team, rounds: artifact.shape.rounds, seed: config.seed });
    const engine = await inferenceEngine(config, artifact.shape, artifact.weights);
    const r = await evaluatePolicy(engine, env, await ensureEmbeddings(cache, grown, await encoderFor(artifact.encoder)), splitQuestions(env, 'train').questions, 'round 0');
    engine.dispose();
    const share = r.tiers.model / (r.tiers.exact + r.tiers.signature + r.tiers.model);
    expect(share).toBeLessThan(rounds[0].modelShareTrain);
  }, 300_000);
});
