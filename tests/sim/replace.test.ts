import { describe, expect, it } from 'vitest';
import type { CacheLine, ResponseRecord } from '../../src/cache/format.ts';
import { cacheFromRecords } from '../../src/cache/load.ts';
import { generateWorld } from '../../src/sim/generate.ts';
import { parseReplacement, replaceAgent } from '../../src/sim/replace.ts';
import { simulatorEndpoint } from '../../src/sim/simulator.ts';
import { WorldConfig } from '../../src/sim/world.ts';

const SMALL = { questions: 80, round1Samples: 3 };
const records = (world: Partial<WorldConfig>) => [...generateWorld(world)];
const derived = (agent: string, ability: 'stronger' | 'weaker' | 'adversarial') => replaceAgent(WorldConfig.parse(SMALL), { agent, ability }).world;
const responses = (lines: CacheLine[]) => new Map(lines.filter((l): l is ResponseRecord => l.type === 'response').map((r) => [r.id, r]));
const withoutHeader = (lines: CacheLine[]) => lines.filter((l) => l.type === 'question');
/** Round-1 accuracy of one agent over all its samples. */
const accuracy = (lines: CacheLine[], agent: string) => {
  const cache = cacheFromRecords(lines);
  const a = cache.agents.findIndex((x) => x.id === agent);
  const first = cache.responses.filter((r) => r.a === a && r.round === 1);
  return first.filter((r) => r.correct).length / first.length;
};

describe('a world with one member replaced (cache gen --replace)', () => {
  const original = records(SMALL);
  const stronger = records(derived('brisk', 'stronger'));

  it('keeps the questions, splits and the team order, with the newcomer in the seat of the agent it replaces', () => {
    expect(withoutHeader(stronger)).toEqual(withoutHeader(original));
    expect(stronger.filter((l) => l.type === 'agent').map((l) => l.id)).toEqual(['atlas', 'sage', 'brisk-stronger']);
    const newcomer = stronger.find((l) => l.type === 'agent' && l.id === 'brisk-stronger');
    expect(newcomer).toMatchObject({ model: 'sim/brisk-mini-stronger', priceIn: 0.15e-6, priceOut: 0.6e-6 });
  });

  it("the other agents answer exactly as before wherever their context and history are the same, and differ only where the newcomer's replies reach them", () => {
    const before = responses(original);
    const after = responses(stronger);
    // A response is the same in both worlds when its own record is, recursively through what it was shown.
    const same = new Map<string, boolean>();
    const isSame = (id: string): boolean => {
      if (!same.has(id)) {
        const [a, b] = [before.get(id), after.get(id)];
        same.set(id, a !== undefined && b !== undefined && JSON.stringify(a) === JSON.stringify(b));
      }
      return same.get(id)!;
    };
    let identicalInputs = 0;
    let changedInputs = 0;
    for (const r of after.values()) {
      if (r.agent === 'brisk-stronger') continue;
      const shownSame = [...r.context, ...(r.prev ? [r.prev] : [])].every(isSame);
      if (shownSame) {
        identicalInputs++;
        expect(before.get(r.id), r.id).toEqual(r);
      } else changedInputs++;
    }
    // Round 1 (3 samples x 2 agents x 80 questions), the No-communication debates and the masks that left the newcomer out ...
    expect(identicalInputs).toBeGreaterThan(2 * 80 * 3 + 2 * 80 * 2);
    // ... and every revision that was shown the newcomer's reply (Full-Debate at least) had other inputs.
    expect(changedInputs).toBeGreaterThanOrEqual(2 * 80 * 2);
    const changed = [...after.values()].filter((r) => r.agent !== 'brisk-stronger' && !isSame(r.id)).length;
    expect(changed).toBeGreaterThan(0);
    expect(changed).toBeLessThanOrEqual(changedInputs);
  });

  it('a stronger newcomer is right more often in round 1, a weaker one less, an adversarial one argues for the distractor', () => {
    const weaker = records(derived('brisk', 'weaker'));
    const adversarial = records(derived('brisk', 'adversarial'));
    const base = accuracy(original, 'brisk');
    expect(accuracy(stronger, 'brisk-stronger')).toBeGreaterThan(base + 0.15);
    expect(accuracy(weaker, 'brisk-weaker')).toBeLessThan(base - 0.15);
    const cache = cacheFromRecords(adversarial);
    const a = cache.agents.findIndex((x) => x.id === 'brisk-adversarial');
    for (const r of cache.responses.filter((x) => x.a === a)) {
      const q = cache.questions[r.q];
      expect(r.answer).toBe('ABCD'[(q.meta as { distractor: number }).distractor]);
    }
  });

  it("the derived cache's header holds the derived world, which its simulator endpoint answers from (tests/sim/world.test.ts)", () => {
    const cache = cacheFromRecords(stronger);
    expect(WorldConfig.parse(cache.header.simulator)).toEqual(derived('brisk', 'stronger'));
    expect(simulatorEndpoint(cache).name).toBe('simulator (world seed 7)');
  });

  it('refuses an agent the world does not have, and a replacement it cannot read', () => {
    expect(() => derived('nobody', 'stronger')).toThrow(/no agent 'nobody' \(its team: atlas, sage, brisk\)/);
    expect(() => parseReplacement('brisk=smarter')).toThrow(/ABILITY one of stronger, weaker, adversarial/);
    expect(() => parseReplacement('=stronger')).toThrow(/expected AGENT=ABILITY/);
    expect(parseReplacement('sage=weaker')).toEqual({ agent: 'sage', ability: 'weaker' });
  });
});
