import seedrandom from 'seedrandom';
import { describe, expect, it } from 'vitest';
import { cacheFromRecords } from '../../src/cache/load.ts';
import { drawAnswer, fitWeights, outcomes, responseModelFidelity, type Revision } from '../../src/env/responseModel.ts';
import { generateWorld } from '../../src/sim/generate.ts';

describe('tier-3 response model', () => {
  it('outcome features: own indicator, kept peers per answer, smoothed log prior with an other bucket', () => {
    const o = outcomes(1, [2, 2, 1], new Map([[1, 3], [3, 1]]), 0.5);
    expect(o.answers).toEqual([1, 2, 3, -2]);
    const denom = 4 + 0.5 * 3;
    expect(o.features).toEqual([
      [1, 1, Math.log(3.5 / denom)],
      [0, 2, Math.log(0.5 / denom)],
      [0, 0, Math.log(1.5 / denom)],
      [0, 0, Math.log(0.5 / denom)],
    ]);
  });

  it('maximum likelihood recovers the weights that generated the data', () => {
    const truth = { own: 1.5, peer: 0.8, prior: 0.6 };
    const random = seedrandom('fit');
    const data: Revision[] = [];
    for (let n = 0; n < 4000; n++) {
      const peers = [Math.floor(random() * 4), Math.floor(random() * 4)];
      const prior = new Map([[Math.floor(random() * 4), 1 + Math.floor(random() * 4)], [Math.floor(random() * 4), 1]]);
      const o = outcomes(Math.floor(random() * 4), peers, prior, 0.5);
      // Draw including the OTHER bucket, as the likelihood counts it.
      const s = o.features.map((f) => Math.exp(truth.own * f[0] + truth.peer * f[1] + truth.prior * f[2]));
      let u = random() * s.reduce((a, b) => a + b, 0);
      let observed = s.length - 1;
      for (let k = 0; k < s.length; k++) if ((u -= s[k]) < 0) { observed = k; break; }
      data.push({ agent: 0, outcomes: o, observed });
    }
    const w = fitWeights(data);
    expect(w.own).toBeCloseTo(truth.own, 0);
    expect(w.peer).toBeCloseTo(truth.peer, 0);
    expect(w.prior).toBeCloseTo(truth.prior, 0);
    expect(Math.abs(w.own - truth.own) + Math.abs(w.peer - truth.peer) + Math.abs(w.prior - truth.prior)).toBeLessThan(0.3);
  });

  it('never draws the other bucket', () => {
    const o = outcomes(0, [], undefined, 0.5);
    const random = seedrandom('x');
    for (let k = 0; k < 200; k++) expect(drawAnswer({ own: -5, peer: 0, prior: 1 }, o, random)).toBe(0);
  });

  it('on the simulated world it beats "keep your previous answer" on held-out revisions', () => {
    const cache = cacheFromRecords([...generateWorld({ questions: 200, round1Samples: 4 })]);
    for (const row of responseModelFidelity(cache, 0.5)) {
      expect(row.heldOut).toBeGreaterThan(100);
      expect(row.model.logLik).toBeGreaterThan(row.keepPrevious.logLik);
      expect(row.model.accuracy).toBeGreaterThanOrEqual(row.keepPrevious.accuracy);
    }
  });
});
