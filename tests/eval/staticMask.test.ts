import { describe, expect, it } from 'vitest';
import { cacheFromRecords } from '../../src/cache/load.ts';
import { makeEnvironment } from '../../src/env/environment.ts';
import { RewardSettings } from '../../src/reward.ts';
import { staticMask, trainStaticMask } from '../../eval/staticMask.ts';
import { resolveConfig } from '../../train/config.ts';
import { tinyRecords } from '../fixtures/tinyWorld.ts';
import { METHOD } from '../fixtures/method.ts';

describe('static learned mask', () => {
  it('learns one logit per edge position: keeps the helping edge, prunes the harmful ones', async () => {
    const cache = cacheFromRecords(tinyRecords());
    const env = makeEnvironment(cache, { rounds: 2, miss: 'error' });
    const train = cache.questions.filter((q) => q.split === 'train');
    const settings = resolveConfig({ ...METHOD, epochs: 40, batchSize: 6, entropyBonus: 0.01, beta: 0, gamma: 0, seed: 0 });
    const { theta, skipped } = await trainStaticMask(env, train, RewardSettings.parse({ k: -1 }), { ...settings, lr: 0.1 });
    expect(skipped).toBe(0);
    // positions (recipient, candidate): a1 sees [a1, a2, a3], a2 [a2, a1, a3], a3 [a3, a1, a2]
    expect(theta[0 * 3 + 1]).toBeGreaterThan(0); // a2 -> a1
    expect(theta[2 * 3 + 2]).toBeGreaterThan(0); // a2 -> a3
    expect(theta[0 * 3 + 2]).toBeLessThan(0); // a3 -> a1
    expect(theta[2 * 3 + 1]).toBeLessThan(0); // a1 -> a3
    const result = await staticMask(
      env,
      cache.questions.filter((q) => q.split === 'validation'),
      theta,
    );
    expect(result.correct).toBe(result.questions);
  });
});
