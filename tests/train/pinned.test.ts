// The warning of a collapsed policy: once, when the keep rate has sat at 0 or 1 for 5 steps, naming
// the likely cause and the flags to change.
import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../train/config.ts';
import { keepRateWatch } from '../../train/pinned.ts';
import { PRESETS } from '../../train/presets.ts';

function watched(settings: object, rates: number[]): string[] {
  const said: string[] = [];
  const watch = keepRateWatch(resolveConfig(settings), (l) => said.push(l));
  rates.forEach((r, i) => watch(r, i + 1));
  return said;
}

describe('a keep rate pinned at 0 or 1', () => {
  it("at 1 under the method's optimizer: said once, at the fifth step in a row, naming lr and the entropy bonus", () => {
    // The measured collapse of the method's settings: 0.52, 0.67, 0.86, 0.98, then 1 (docs/results.md).
    const said = watched(PRESETS.paper.settings, [0.52, 0.67, 0.86, 0.995, 1, 1, 1, 1, 1, 1, 1, 1]);
    expect(said).toHaveLength(1);
    expect(said[0]).toMatch(/^warning: the keep rate has been at 1 \(every edge kept: Full-Debate\) for 5 steps \(to step 8\)/);
    expect(said[0]).toContain('lr 0.001 against entropyBonus 0.01 without normalized advantages');
    expect(said[0]).toContain('lower --lr (built-in 0.0003) or raise --entropy-bonus (built-in 1, with --normalize-advantages)');
  });

  it('at 0 with prune pressure: names the pressure first; a soft policy, or a pin broken off, is not warned of', () => {
    const said = watched({ k: -1, lambda: 0.5 }, [0.004, 0, 0, 0, 0]);
    expect(said).toHaveLength(1);
    expect(said[0]).toContain('at 0 (no edge kept: No-communication)');
    expect(said[0]).toContain('the prune pressure of k -1 (--k), lambda 0.5 (--lambda) outweighs what keeping earns');
    expect(watched({}, [0.5, 0.55, 0.48, 0.6, 0.52, 0.5, 0.51])).toEqual([]);
    expect(watched({}, [1, 1, 1, 1, 0.6, 1, 1, 1, 1, 0, 0, 0, 0, 0.5])).toEqual([]);
  });
});
