import { describe, expect, it } from 'vitest';
import { adamStep } from '../../src/policy/adam.ts';

describe('Adam (src/policy/adam.ts)', () => {
  it('takes the bias-corrected steps worked out by hand, in float32 and float64', () => {
    for (const Floats of [Float32Array, Float64Array]) {
      const p = Floats.from([1, 2]),
        m = new Floats(2),
        v = new Floats(2);
      const s = { lr: 0.1, beta1: 0.9, beta2: 0.999, epsilon: 1e-8 };
      // Step 1: m = 0.05, v = 0.00025; m^ = 0.5, v^ = 0.25: a full lr step against the gradient's sign.
      adamStep(p, [0.5, 0], m, v, 1, s);
      expect(p[0]).toBeCloseTo(0.9, 6);
      expect(p[1]).toBe(2); // zero gradient, zero moments: no move
      // Step 2, gradient -1: m = 0.045 - 0.1 = -0.055, v = 0.00024975 + 0.001 = 0.00124975;
      // m^ = -0.055 / 0.19, v^ = 0.00124975 / 0.001999: p += 0.1 * 0.289474 / 0.790688
      adamStep(p, [-1, 0], m, v, 2, s);
      expect(p[0]).toBeCloseTo(0.9 + (0.1 * (0.055 / 0.19)) / Math.sqrt(0.00124975 / 0.001999), 6);
    }
  });
});
