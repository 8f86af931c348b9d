// Adam (Kingma & Ba, 2015) over flat parameter arrays, in place: the one optimizer of the trainers
// that update their parameters in JavaScript (the TF.js engine, the static learned mask). The ONNX
// engine runs the same update as graph nodes next to its parameters (onnx/fuseGluGraph.ts).
import type { OptimizerSettings } from './engine.ts';

type Floats = Float32Array | Float64Array;

export type AdamSettings = Pick<OptimizerSettings, 'lr' | 'beta1' | 'beta2' | 'epsilon'>;

/**
 * One Adam step on `params` with gradient `grad`, updating the moments `m` and `v`; `step` is the
 * number of this step, counted from 1 (bias correction).
 */
export function adamStep(params: Floats, grad: ArrayLike<number>, m: Floats, v: Floats, step: number, s: AdamSettings): void {
  const c1 = 1 - s.beta1 ** step;
  const c2 = 1 - s.beta2 ** step;
  for (let i = 0; i < params.length; i++) {
    const g = grad[i];
    m[i] = s.beta1 * m[i] + (1 - s.beta1) * g;
    v[i] = s.beta2 * v[i] + (1 - s.beta2) * g * g;
    params[i] -= (s.lr * (m[i] / c1)) / (Math.sqrt(v[i] / c2) + s.epsilon);
  }
}
