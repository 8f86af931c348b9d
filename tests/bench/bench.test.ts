import { describe, expect, it } from 'vitest';
import { stepFlops } from '../../bench/engines.ts';
import { torchReference } from '../../bench/torch.ts';
import { interleaved, spread } from '../../bench/trials.ts';

describe('interleaved trials', () => {
  it('warm every contender up first, then time them in rounds of rotating order', async () => {
    const calls: string[] = [];
    const contender = (name: string, rate: number) => ({ name, run: async (seconds: number) => (calls.push(`${name}:${seconds}`), rate++) });
    const r = await interleaved([contender('a', 10), contender('b', 20), contender('c', 30)], { warmup: 2, seconds: 1, trials: 3 });
    expect(calls).toEqual(['a:2', 'b:2', 'c:2', 'a:1', 'b:1', 'c:1', 'b:1', 'c:1', 'a:1', 'c:1', 'a:1', 'b:1']);
    // The warm-up's rate is dropped: 10 went to the warm-up, 11, 12, 13 are the trials.
    expect(r.get('a')).toEqual({ trials: [11, 12, 13], min: 11, median: 12, max: 13 });
    expect(r.get('c')!.median).toBe(32);
  });

  it('give min, median and max (the mean of the middle two for an even count)', () => {
    expect(spread([5, 1, 3])).toEqual({ trials: [5, 1, 3], min: 1, median: 3, max: 5 });
    expect(spread([4, 1, 3, 10]).median).toBe(3.5);
  });
});

describe('the PyTorch reference', () => {
  it('says why it is missing instead of failing the bench', async () => {
    const r = await torchReference(1, 8, 4, ['/nonexistent/python3']);
    expect(r).toHaveProperty('missing');
    expect((r as { missing: string }).missing).toMatch(/nonexistent\/python3/);
  });
});

describe('the matmul bound', () => {
  it("counts a REINFORCE step's matmul FLOPs per decision as PyTorch computes them", () => {
    // Forward products per decision ([1 x k] x [k x n], 2kn FLOP): per block gate and up of x and
    // of y (4 of D x H) and down (H x D); the head (D x 1). The backward pass: two products per product.
    const [D, H] = [512, 256];
    const forward = [...Array(2)]
      .flatMap(() => [
        [D, H],
        [D, H],
        [D, H],
        [D, H],
        [H, D],
      ])
      .concat([[D, 1]]);
    const flops = 3 * forward.reduce((a, [k, n]) => a + 2 * k * n, 0);
    expect(stepFlops({ dim: D, hidden: H } as never)).toBe(flops);
    expect(flops / 1e6).toBeCloseTo(7.87, 2); // the figure docs/bench.md quotes
  });
});
