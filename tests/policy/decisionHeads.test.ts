import * as ort from 'onnxruntime-node';
import { describe, expect, it } from 'vitest';
import { zeroMoments, type EngineState } from '../../src/policy/engine.ts';
import { initWeights, KIND, parameterShapes, sigmoid, type PolicyShape, type Weights } from '../../src/policy/model.ts';
import { onnxEngine } from '../../src/policy/onnxEngine.ts';
import { defaultCompute } from '../../src/policy/backends.ts';
import { createEngine } from '../../src/policy/createEngine.ts';
import { loadBackend, tfjsEngine } from '../../src/policy/tfjsEngine.ts';
import { forwardLogits } from '../fixtures/referenceForward.ts';
import { gradientCheck, OPT, TINY } from '../fixtures/gradientCheck.ts';
import { randomBatch } from '../../bench/randomBatch.ts';
import { exportFeeds, exportedSession } from '../fixtures/exportFeeds.ts';

const TOLERANCE = 1e-4;
const relative = (a: Float32Array, b: Float32Array) => {
  let d = 0,
    n = 0;
  a.forEach((x, i) => ((d += (x - b[i]) ** 2), (n += x ** 2)));
  return Math.sqrt(d / Math.max(n, 1e-30));
};
const fresh = (w: Weights): EngineState => ({ weights: w, step: 0, m: zeroMoments(w), v: zeroMoments(w) });

describe('the revise and stop heads: parameters and initial values', () => {
  const names = (s: PolicyShape) => parameterShapes(s).map(([n]) => n);
  it('edges adds nothing to the method; each further decision its kind table row and head', () => {
    expect(names(TINY)).not.toContain('kindEmb');
    expect(names({ ...TINY, decisions: 'edges+revise' })).toEqual(expect.arrayContaining(['kindEmb', 'reviseHead.w', 'reviseHead.b', 'reviseHead.agree']));
    expect(names({ ...TINY, decisions: 'edges+revise' })).not.toContain('stopHead.w');
    const all = parameterShapes({ ...TINY, decisions: 'edges+revise+stop' });
    expect(all.find(([n]) => n === 'kindEmb')![1]).toEqual([3, TINY.dim]);
    expect(names({ ...TINY, decisions: 'edges+revise+stop' })).toContain('stopHead.agree');
  });
  it('a fresh policy revises and goes on (nearly every round played), its agreement weights at 0', () => {
    const w = initWeights({ ...TINY, decisions: 'edges+revise+stop' }, 'init');
    expect(sigmoid(w['reviseHead.b'].data[0])).toBeGreaterThan(0.8);
    expect(sigmoid(w['stopHead.b'].data[0])).toBeLessThan(0.2);
    expect(w['stopHead.agree'].data[0]).toBe(0);
  });
});

describe('ONNX training graph with the revise and stop heads: gradients against float64 finite differences', () => {
  const parts: [string, Partial<PolicyShape>][] = [
    ['edges+revise', { decisions: 'edges+revise' }],
    ['edges+revise+stop', { decisions: 'edges+revise+stop' }],
    [
      'edges+revise+stop, no other candidate feature',
      { decisions: 'edges+revise+stop', ownFeature: false, sourceFeature: false, roundFeature: false, currentFeature: false, turnFeature: false },
    ],
    ['edges+revise+stop with behavior rows', { decisions: 'edges+revise+stop', behaviorRows: 1 }],
  ];
  for (const [label, change] of parts)
    it(`${label}: every parameter within relative ${TOLERANCE}, the heads included`, async () => {
      const errors = await gradientCheck({ ...TINY, ...change });
      expect(errors).toHaveProperty('kindEmb');
      expect(errors).toHaveProperty('reviseHead.agree');
      for (const [name, e] of Object.entries(errors)) expect(e, name).toBeLessThanOrEqual(TOLERANCE);
    });
});

describe('ONNX and TF.js engines with the revise and stop heads', () => {
  const shape: PolicyShape = { ...TINY, dim: 24, hidden: 12, behavior: 'mean', decisions: 'edges+revise+stop' };
  const w = () => {
    const out = initWeights(shape, 'heads');
    for (const t of Object.values(out)) t.data.forEach((_, i, a) => (a[i] += 0.1 * Math.sin(3.7 * i + t.data.length)));
    return out;
  };
  it('give the reference logits, read each row by the head of its kind, and agree on loss and gradients', async () => {
    await loadBackend('cpu');
    const engines = [await onnxEngine(shape, fresh(w()), OPT), tfjsEngine(shape, fresh(w()), OPT)];
    const { batch, actions, advantages } = randomBatch(shape, 36, 'heads');
    expect(new Set(batch.kind)).toEqual(new Set([KIND.edge, KIND.revise, KIND.stop]));
    const want = forwardLogits(shape, w(), batch);
    for (const engine of engines) expect(relative(await engine.keepLogits(batch), want), engine.name).toBeLessThan(TOLERANCE);
    // Agreement moves the revise and stop rows only; another kind moves every row.
    const agreed = await engines[0].keepLogits({ ...batch, agree: batch.agree!.map((x) => 1 - x) });
    const base = await engines[0].keepLogits(batch);
    batch.kind!.forEach((k, i) => (k === KIND.edge ? expect(agreed[i]).toBe(base[i]) : expect(agreed[i]).not.toBeCloseTo(base[i], 4)));
    const [a, b] = [await engines[0].lossAndGradients(batch, actions, advantages), await engines[1].lossAndGradients(batch, actions, advantages)];
    expect(Math.abs(a.loss - b.loss) / Math.abs(b.loss)).toBeLessThan(TOLERANCE);
    expect(Object.keys(a.gradients).sort()).toEqual(Object.keys(b.gradients).sort());
    for (const name of Object.keys(b.gradients)) expect(relative(a.gradients[name].data, b.gradients[name].data), name).toBeLessThan(TOLERANCE);
    for (const engine of engines) engine.dispose();
  });

  it('the exported model takes kind and agree and gives the reference probabilities of each kind', async () => {
    const weights = w();
    const session = await exportedSession(shape, weights);
    expect(session.inputNames).toEqual(['query', 'behavior', 'candidate', 'own', 'source', 'round', 'current', 'turn', 'kind', 'agree']);
    const { batch } = randomBatch(shape, 9, 'export heads');
    const D = shape.dim;
    const behavior = new Float32Array(batch.n * D);
    batch.recipient.forEach((r, i) => behavior.set(weights.behavior.data.subarray(r * D, (r + 1) * D), i * D));
    const out = await session.run({
      ...exportFeeds(batch, D, behavior),
      kind: new ort.Tensor('int64', BigInt64Array.from(batch.kind!, BigInt), [batch.n]),
      agree: new ort.Tensor('float32', batch.agree!, [batch.n]),
    });
    const want = Float32Array.from(forwardLogits(shape, weights, batch), sigmoid);
    expect(relative(out.keep_probability.data as Float32Array, want)).toBeLessThan(1e-5);
  });
});

describe('the GPU engine (webgpu) with the revise and stop heads', () => {
  it('takes the CPU engine steps: the heads are named inputs and parameters it passes as any other', async () => {
    const shape: PolicyShape = { ...TINY, dim: 24, hidden: 12, behavior: 'mean', decisions: 'edges+revise+stop' };
    const w = () => initWeights(shape, 'gpu heads');
    const [onGpu, onCpu] = [await createEngine({ ...defaultCompute(), engine: 'webgpu' }, shape, fresh(w()), OPT), await onnxEngine(shape, fresh(w()), OPT)];
    for (let k = 0; k < 3; k++) {
      const { batch, actions, advantages } = randomBatch(shape, 48, `gpu heads ${k}`);
      const [a, b] = [await onGpu.trainStep(batch, actions, advantages), await onCpu.trainStep(batch, actions, advantages)];
      expect(Math.abs(a.loss - b.loss) / Math.abs(b.loss), `loss at step ${k}`).toBeLessThan(TOLERANCE);
    }
    const [a, b] = [await onGpu.getState(), await onCpu.getState()];
    for (const name of ['reviseHead.w', 'stopHead.agree', 'kindEmb', 'head.b'])
      expect(relative(a.weights[name].data, b.weights[name].data), name).toBeLessThan(TOLERANCE);
    onGpu.dispose();
    onCpu.dispose();
  }, 120_000);
});
