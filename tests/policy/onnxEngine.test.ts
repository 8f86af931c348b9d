import * as ort from 'onnxruntime-node';
import { beforeAll, describe, expect, it } from 'vitest';
import { zeroMoments, type EngineState, type PolicyEngine } from '../../src/policy/engine.ts';
import { forwardLogits } from '../fixtures/referenceForward.ts';
import { initWeights, sigmoid, type PolicyShape, type Weights } from '../../src/policy/model.ts';
import { onnxEngine } from '../../src/policy/onnxEngine.ts';
import { loadBackend, tfjsEngine } from '../../src/policy/tfjsEngine.ts';
import { gradientCheck, OPT, TINY } from '../fixtures/gradientCheck.ts';
import { randomBatch } from '../../bench/randomBatch.ts';
import { exportFeeds, exportedSession } from '../fixtures/exportFeeds.ts';
import { batchFeeds, flatLayout } from '../../src/policy/onnx/layout.ts';

const TOLERANCE = 1e-4;
const worst = (errors: Record<string, number>) => Math.max(...Object.values(errors));

describe('ONNX training graph: hand-derived gradients against float64 finite differences', () => {
  const parts: [string, Partial<PolicyShape>][] = [
    ['every part on', {}],
    ['no behavior embedding (zero, frozen)', { behavior: 'none' }],
    ['no candidate features', { ownFeature: false, sourceFeature: false, roundFeature: false }],
    ['only the source feature', { ownFeature: false, roundFeature: false }],
    ['no conditioning (the query is the question alone; the graph is the same)', { conditioning: false }],
    ['the behavior embedding alone trains (fine-tuning a transferred policy)', { trainable: 'behavior' }],
    ['behavior rows beside every part', { behaviorRows: 1 }],
    ['the team-general policy: behavior rows, no behavior embedding, no source feature', { behaviorRows: 1, behavior: 'none', sourceFeature: false }],
    ['behavior rows alone on the candidate', { behaviorRows: 1, ownFeature: false, sourceFeature: false, roundFeature: false }],
    ['behavior rows, the behavior embedding alone trains (the projection frozen)', { behaviorRows: 1, trainable: 'behavior' }],
  ];
  for (const [label, change] of parts)
    it(`${label}: every parameter within relative ${TOLERANCE}`, async () => {
      const errors = await gradientCheck({ ...TINY, ...change });
      for (const [name, e] of Object.entries(errors)) expect(e, name).toBeLessThanOrEqual(TOLERANCE);
      if (change.behavior === 'none') expect(errors).not.toHaveProperty('behavior');
      if (change.ownFeature === false) expect(errors).not.toHaveProperty('ownEmb');
      if (change.trainable === 'behavior') expect(Object.keys(errors)).toEqual(['behavior']);
      if (change.behaviorRows && change.trainable !== 'behavior') expect(errors).toHaveProperty('rowProj');
    });

  it('fails when one derivative is deliberately wrong (a SiLU term dropped in block 2)', async () => {
    const errors = await gradientCheck(TINY, 'silu');
    expect(worst(errors)).toBeGreaterThan(1e-2);
    expect(errors['b2.Wg']).toBeGreaterThan(TOLERANCE); // upstream of the broken term
    expect(errors['b2.Wu']).toBeLessThanOrEqual(TOLERANCE); // not downstream of it
  });
});

const SHAPE: PolicyShape = { ...TINY, dim: 24, hidden: 12, behavior: 'mean' };
function weights(): Weights {
  const w = initWeights(SHAPE, 'engines');
  for (const t of Object.values(w)) t.data.forEach((_, i, a) => (a[i] += 0.1 * Math.sin(7.3 * i + t.data.length)));
  return w;
}
const fresh = (w: Weights): EngineState => ({ weights: w, step: 0, m: zeroMoments(w), v: zeroMoments(w) });
const relative = (a: Float32Array, b: Float32Array) => {
  let d = 0,
    n = 0;
  a.forEach((x, i) => ((d += (x - b[i]) ** 2), (n += x ** 2)));
  return Math.sqrt(d / Math.max(n, 1e-30));
};

describe('ONNX and TF.js engines', () => {
  let onnx: PolicyEngine, tfjs: PolicyEngine;
  beforeAll(async () => {
    await loadBackend('cpu');
    onnx = await onnxEngine(SHAPE, fresh(weights()), OPT);
    tfjs = tfjsEngine(SHAPE, fresh(weights()), OPT);
    return () => (onnx.dispose(), tfjs.dispose());
  });

  it('give the same keep logits as the plain-JS reference', async () => {
    const { batch } = randomBatch(SHAPE, 9, 'logits');
    const want = forwardLogits(SHAPE, weights(), batch);
    expect(relative(await onnx.keepLogits(batch), want)).toBeLessThan(TOLERANCE);
  });

  it('give the same loss and gradients on the same weights and batch (relative 1e-4)', async () => {
    const { batch, actions, advantages } = randomBatch(SHAPE, 40, 'gradients');
    const a = await onnx.lossAndGradients(batch, actions, advantages);
    const b = await tfjs.lossAndGradients(batch, actions, advantages);
    expect(Math.abs(a.loss - b.loss) / Math.abs(b.loss)).toBeLessThan(TOLERANCE);
    expect(Math.abs(a.entropy - b.entropy) / b.entropy).toBeLessThan(TOLERANCE);
    expect(Object.keys(a.gradients).sort()).toEqual(Object.keys(b.gradients).sort());
    for (const name of Object.keys(b.gradients)) expect(relative(a.gradients[name].data, b.gradients[name].data), name).toBeLessThan(TOLERANCE);
  });

  it('take the same Adam steps, and a run continues on the other engine from the saved state', async () => {
    const { batch, actions, advantages } = randomBatch(SHAPE, 40, 'steps');
    for (let k = 0; k < 3; k++) {
      await onnx.trainStep(batch, actions, advantages);
      await tfjs.trainStep(batch, actions, advantages);
    }
    const [a, b] = [await onnx.getState(), await tfjs.getState()];
    expect(a.step).toBe(3);
    for (const name of Object.keys(b.weights)) expect(relative(a.weights[name].data, b.weights[name].data), name).toBeLessThan(TOLERANCE);
    // The ONNX state resumes on TF.js (and the reverse) and takes the same next step.
    const onTfjs = tfjsEngine(SHAPE, a, OPT);
    const onOnnx = await onnxEngine(SHAPE, b, OPT);
    await onTfjs.trainStep(batch, actions, advantages);
    await onOnnx.trainStep(batch, actions, advantages);
    const [c, d] = [await onTfjs.getState(), await onOnnx.getState()];
    expect(c.step).toBe(4);
    for (const name of Object.keys(c.weights)) expect(relative(c.weights[name].data, d.weights[name].data), name).toBeLessThan(TOLERANCE);
    onTfjs.dispose();
    onOnnx.dispose();
  });
});

describe('trainable behavior: both engines train the behavior embedding alone', () => {
  it('move it alike, leave every other parameter exactly as it was, and keep moments of it alone', async () => {
    await loadBackend('cpu');
    const shape: PolicyShape = { ...SHAPE, trainable: 'behavior' };
    const start = weights();
    const engines = [await onnxEngine(shape, fresh(weights()), OPT), tfjsEngine(shape, fresh(weights()), OPT)];
    const { batch, actions, advantages } = randomBatch(shape, 40, 'behavior only');
    const states: EngineState[] = [];
    for (const engine of engines) {
      for (let k = 0; k < 3; k++) await engine.trainStep(batch, actions, advantages);
      states.push(await engine.getState());
      engine.dispose();
    }
    for (const state of states) {
      expect(Object.keys(state.m)).toEqual(['behavior']);
      expect(relative(state.weights.behavior.data, start.behavior.data)).toBeGreaterThan(1e-4);
      for (const name of Object.keys(start).filter((n) => n !== 'behavior')) expect(state.weights[name].data, name).toEqual(start[name].data);
    }
    expect(relative(states[0].weights.behavior.data, states[1].weights.behavior.data)).toBeLessThan(TOLERANCE);
  });
});

describe('the ONNX engine off the main thread', () => {
  it('leaves the event loop free while a step runs (a progress display keeps moving)', async () => {
    const shape: PolicyShape = { ...SHAPE, dim: 256, hidden: 128 };
    const w = initWeights(shape, 'busy');
    const engine = await onnxEngine(shape, fresh(w), OPT);
    const { batch, actions, advantages } = randomBatch(shape, 8192, 'busy'); // several GFLOP: tens of ms at least
    let ticks = 0;
    const timer = setInterval(() => ticks++, 1);
    await engine.trainStep(batch, actions, advantages);
    clearInterval(timer);
    engine.dispose();
    // A step computed on this thread would let no timer fire until it returned.
    expect(ticks).toBeGreaterThanOrEqual(3);
  }, 300_000); // a large batch: seconds on a loaded machine

  it('counts the bytes each call moves: its batch in and its results out, the parameters and moments read in place', async () => {
    const w = initWeights(SHAPE, 'bytes');
    const engine = await onnxEngine(SHAPE, fresh(w), OPT);
    const feeds = (...a: Parameters<typeof batchFeeds>) => Object.values(batchFeeds(...a)).reduce((x, f) => x + f.data.byteLength, 0);
    const { batch, actions, advantages } = randomBatch(SHAPE, 12, 'bytes');
    for (let k = 0; k < 2; k++) {
      await engine.keepLogits(batch);
      expect(engine.lastBytes.forward).toEqual({ up: feeds(SHAPE, batch), down: 12 * 4 });
    }
    await engine.trainStep(batch, actions, advantages);
    // Plus the step size and epsilon; the new parameters and moments are written into the thread's own buffers.
    expect(engine.lastBytes.train).toEqual({ up: feeds(SHAPE, batch, 'float32', actions, advantages) + 8, down: 8 });
    await engine.lossAndGradients(batch, actions, advantages);
    expect(engine.lastBytes.gradient?.down).toBe(4 * flatLayout(SHAPE).size + 8);
    engine.dispose();
  });
});

describe('the exported ONNX inference model', () => {
  it('loads in ONNX Runtime as a standard model and gives the reference keep probabilities', async () => {
    const w = weights();
    const session = await exportedSession(SHAPE, w);
    expect(session.inputNames).toEqual(['query', 'behavior', 'candidate', 'own', 'source', 'round', 'current', 'turn']);
    expect(session.outputNames).toEqual(['keep_probability']);
    const { batch } = randomBatch(SHAPE, 6, 'export');
    const D = SHAPE.dim;
    const behavior = new Float32Array(batch.n * D);
    batch.recipient.forEach((r, i) => behavior.set(w.behavior.data.subarray(r * D, (r + 1) * D), i * D));
    const out = await session.run(exportFeeds(batch, D, behavior));
    const want = Float32Array.from(forwardLogits(SHAPE, w, batch), sigmoid);
    expect(relative(out.keep_probability.data as Float32Array, want)).toBeLessThan(1e-5);
  });
});

describe('behavior rows (a dense [N, 2F] input times a learned [2F, D], added to the candidate)', () => {
  const shape: PolicyShape = { ...SHAPE, behaviorRows: 1, behavior: 'none', sourceFeature: false };
  const w = () => {
    const out = initWeights(shape, 'rows');
    for (const t of Object.values(out)) if (t !== out.behavior) t.data.forEach((_, i, a) => (a[i] += 0.1 * Math.sin(5.1 * i + t.data.length)));
    return out;
  };
  it('both engines give the reference logits and the same gradients, the projection included; the rows change the logits', async () => {
    await loadBackend('cpu');
    const engines = [await onnxEngine(shape, fresh(w()), OPT), tfjsEngine(shape, fresh(w()), OPT)];
    const { batch, actions, advantages } = randomBatch(shape, 30, 'rows');
    const want = forwardLogits(shape, w(), batch);
    for (const engine of engines) expect(relative(await engine.keepLogits(batch), want), engine.name).toBeLessThan(TOLERANCE);
    const other = { ...batch, rows: batch.rows!.map((x) => -x) };
    expect(relative(await engines[0].keepLogits(other), want)).toBeGreaterThan(1e-3);
    const [a, b] = [await engines[0].lossAndGradients(batch, actions, advantages), await engines[1].lossAndGradients(batch, actions, advantages)];
    expect(Object.keys(a.gradients)).toContain('rowProj');
    for (const name of Object.keys(b.gradients)) expect(relative(a.gradients[name].data, b.gradients[name].data), name).toBeLessThan(TOLERANCE);
    for (const engine of engines) engine.dispose();
  });

  it('the exported model reads them as source_row and recipient_row and gives the reference keep probabilities', async () => {
    const weights = w();
    const session = await exportedSession(shape, weights);
    expect(session.inputNames).toEqual(['query', 'behavior', 'candidate', 'own', 'source', 'round', 'current', 'turn', 'source_row', 'recipient_row']);
    const { batch } = randomBatch(shape, 5, 'export rows');
    const D = shape.dim;
    const F = batch.rows!.length / batch.n / 2;
    const half = (from: number) => Float32Array.from({ length: batch.n * F }, (_, k) => batch.rows![Math.floor(k / F) * 2 * F + from + (k % F)]);
    const out = await session.run({
      ...exportFeeds(batch, D, new Float32Array(batch.n * D)),
      source_row: new ort.Tensor('float32', half(0), [batch.n, F]),
      recipient_row: new ort.Tensor('float32', half(F), [batch.n, F]),
    });
    const want = Float32Array.from(forwardLogits(shape, weights, batch), sigmoid);
    expect(relative(out.keep_probability.data as Float32Array, want)).toBeLessThan(1e-5);
  });
});
