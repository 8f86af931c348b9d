// Gradient check of the ONNX training graph: its hand-derived gradients against central finite
// differences of its own loss, all in float64, on a tiny policy.
import * as ort from 'onnxruntime-node';
import seedrandom from 'seedrandom';
import type { OptimizerSettings } from '../../src/policy/engine.ts';
import { initWeights, type PolicyShape } from '../../src/policy/model.ts';
import { trainingGraph, type Fault } from '../../src/policy/onnx/fuseGluGraph.ts';
import { batchFeeds, flatLayout, flatten, unflatten } from '../../src/policy/onnx/layout.ts';
import { randomBatch } from './randomBatch.ts';

export const TINY: PolicyShape = { dim: 6, hidden: 5, agents: 3, rounds: 3, behavior: 'random', initSamples: null, conditioning: true, ownFeature: true, sourceFeature: true, roundFeature: true };
export const OPT: OptimizerSettings = { lr: 1e-3, beta1: 0.9, beta2: 0.999, epsilon: 1e-8, entropyBonus: 0.3 };

/** `unflatten` in float64: which flat entries make up each named parameter, read at full precision. */
function unflatten64(s: PolicyShape, flat: Float64Array): Record<string, Float64Array> {
  const index = unflatten(s, Float64Array.from(flat, (_, i) => i)); // each entry's own position
  return Object.fromEntries(Object.entries(index).map(([name, t]) => [name, Float64Array.from(t.data, (i) => flat[i])]));
}

/** Relative error ‖g − fd‖ / max(‖g‖, ‖fd‖, 1e-12) per parameter. */
export async function gradientCheck(s: PolicyShape, fault?: Fault): Promise<Record<string, number>> {
  const weights = initWeights(s, 'gradcheck');
  // Move every parameter off its initial value (gains of 1, zero biases) so no derivative hides.
  const random = seedrandom('gradcheck|perturb');
  for (const t of Object.values(weights)) for (let i = 0; i < t.data.length; i++) t.data[i] += 0.3 * (2 * random() - 1);
  const session = await ort.InferenceSession.create(trainingGraph('gradient', s, weights, OPT, { dtype: 'float64', fault }));
  const { batch, actions, advantages } = randomBatch(s, 7, 'gradcheck|batch');
  const feeds = Object.fromEntries(Object.entries(batchFeeds(s, batch, 'float64', actions, advantages)).map(([k, f]) => [k, new ort.Tensor(f.type, f.data, f.dims)]));
  const params = Float64Array.from(flatten(s, weights));
  const views = flatLayout(s).views;
  const run = async (p: Float64Array) =>
    session.run({ ...feeds, ...Object.fromEntries(views.map((x) => [`param:${x.name}`, new ort.Tensor('float64', p.subarray(x.offset, x.offset + x.size), x.shape)])) });
  const grad = (await run(params)).grad.data as Float64Array;
  const h = 1e-6;
  const fd = new Float64Array(params.length);
  for (let i = 0; i < params.length; i++) {
    const plus = Float64Array.from(params), minus = Float64Array.from(params);
    plus[i] += h;
    minus[i] -= h;
    fd[i] = (((await run(plus)).loss.data as Float64Array)[0] - ((await run(minus)).loss.data as Float64Array)[0]) / (2 * h);
  }
  // Compared per named parameter (the flat vector packs some of them together).
  const [byName, fdByName] = [unflatten64(s, grad), unflatten64(s, fd)];
  const errors: Record<string, number> = {};
  for (const name of Object.keys(byName)) {
    let diff = 0, norm = 0, fdNorm = 0;
    byName[name].forEach((x, i) => ((diff += (x - fdByName[name][i]) ** 2), (norm += x ** 2), (fdNorm += fdByName[name][i] ** 2)));
    errors[name] = Math.sqrt(diff) / Math.max(Math.sqrt(norm), Math.sqrt(fdNorm), 1e-12);
  }
  await session.release();
  return errors;
}
