// The FuseGLU policy on TF.js. Backends: auto | tensorflow-gpu | tensorflow | wasm | cpu
// (tfjs-node and tfjs-node-gpu are optional dependencies, used when installed).
import * as tf from './tfjs.ts';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { firstLine, SettingsError } from '../io/errors.ts';
import { adamStep } from './adam.ts';
import type { EngineState, OptimizerSettings, PolicyEngine, StepStats } from './engine.ts';
import { HEADS, isTrainable, kindsOf, type DecisionBatch, type PolicyShape, type Weights } from './model.ts';

import type { BackendChoice } from './backends.ts';

/** Load a TF.js backend: undefined when it is in use, else why not (the first line of its error). */
async function tryBackend(name: Exclude<BackendChoice, 'auto'>): Promise<string | undefined> {
  try {
    if (name === 'tensorflow-gpu' || name === 'tensorflow') {
      const pkg = name === 'tensorflow-gpu' ? '@tensorflow/tfjs-node-gpu' : '@tensorflow/tfjs-node';
      await import(pkg); // registers the 'tensorflow' backend
      return (await tf.setBackend('tensorflow')) ? undefined : 'TF.js could not initialise it';
    }
    if (name === 'wasm') {
      const wasm = await import('@tensorflow/tfjs-backend-wasm');
      const require = createRequire(import.meta.url);
      wasm.setWasmPaths(`${dirname(require.resolve('@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm.wasm'))}/`);
    }
    return (await tf.setBackend(name)) ? undefined : 'TF.js could not initialise it';
  } catch (e) {
    return firstLine(e);
  }
}

/** Select a TF.js backend; `auto` takes the fastest that loads. Returns the name in use; when none loads, an error saying why each did not. */
export async function loadBackend(choice: BackendChoice): Promise<string> {
  const order: Exclude<BackendChoice, 'auto'>[] = choice === 'auto' ? ['tensorflow-gpu', 'tensorflow', 'wasm', 'cpu'] : [choice];
  const failed: string[] = [];
  for (const name of order) {
    const why = await tryBackend(name);
    if (why === undefined) return name;
    failed.push(`${name}: ${why}`);
  }
  throw new SettingsError(
    `backend '${choice}' could not be loaded${choice.startsWith('tensorflow') ? ' (install @tensorflow/tfjs-node or -gpu)' : ''}; ${failed.join('; ')}`,
  );
}

const LN_EPS = 1e-5;

// TF.js computes the loss and its gradients; the Adam step runs in JavaScript (adam.ts) on copies
// of the trainable weights and their moments, which are then uploaded.
export function tfjsEngine(shape: PolicyShape, state: EngineState, opt: OptimizerSettings): PolicyEngine {
  const vars: Record<string, tf.Variable> = {};
  const consts: Record<string, tf.Tensor> = {};
  const copy = (w: Weights, names: string[]): Weights =>
    Object.fromEntries(names.map((n) => [n, { shape: [...w[n].shape], data: Float32Array.from(w[n].data) }]));
  for (const [name, t] of Object.entries(state.weights)) {
    if (isTrainable(shape, name)) vars[name] = tf.variable(tf.tensor(t.data, t.shape), true);
    else consts[name] = tf.tensor(t.data, t.shape);
  }
  const names = Object.keys(vars);
  const params = copy(state.weights, names);
  const m = copy(state.m, names);
  const v = copy(state.v, names);
  let step = state.step;
  const P = (name: string) => vars[name] ?? consts[name];

  const layerNorm = (x: tf.Tensor2D, p: string) => {
    const { mean, variance } = tf.moments(x, -1, true);
    return x
      .sub(mean)
      .mul(tf.rsqrt(variance.add(LN_EPS)))
      .mul(P(`${p}.g`))
      .add(P(`${p}.b`)) as tf.Tensor2D;
  };
  const fuseGlu = (p: string, x: tf.Tensor2D, y: tf.Tensor2D) => {
    const xn = layerNorm(x, `${p}.lnx`);
    const yn = layerNorm(y, `${p}.lny`);
    const gate = xn.matMul(P(`${p}.Wg`) as tf.Tensor2D).add(yn.matMul(P(`${p}.Vg`) as tf.Tensor2D));
    const up = xn.matMul(P(`${p}.Wu`) as tf.Tensor2D).add(yn.matMul(P(`${p}.Vu`) as tf.Tensor2D));
    return x.add(
      gate
        .mul(tf.sigmoid(gate))
        .mul(up)
        .matMul(P(`${p}.Wd`) as tf.Tensor2D),
    ) as tf.Tensor2D;
  };
  // Row lookup as one-hot x table: the gradient of tf.gather needs UnsortedSegmentSum, which the
  // wasm backend lacks.
  const lookup = (name: string, rows: Int32Array) => {
    const table = P(name) as tf.Tensor2D;
    const pick = table.shape[0] === 1 ? tf.ones([rows.length, 1]) : tf.oneHot(tf.tensor1d(rows, 'int32'), table.shape[0]).toFloat(); // oneHot needs depth >= 2
    return pick.matMul(table) as tf.Tensor2D;
  };
  const K = kindsOf(shape);
  const logits = (b: DecisionBatch) => {
    const D = shape.dim;
    const q = tf.tensor2d(b.query, [b.n, D]);
    let c = tf.tensor2d(b.candidate, [b.n, D]);
    if (shape.ownFeature) c = c.add(lookup('ownEmb', b.own));
    if (shape.sourceFeature) c = c.add(lookup('sourceEmb', b.source));
    if (shape.roundFeature) c = c.add(lookup('roundEmb', b.round));
    if (shape.currentFeature) c = c.add(lookup('currentEmb', b.current));
    if (shape.turnFeature) c = c.add(lookup('turnEmb', b.turn));
    if (K > 1) c = c.add(lookup('kindEmb', b.kind!));
    if (shape.behaviorRows) c = c.add(tf.tensor2d(b.rows!, [b.n, b.rows!.length / b.n]).matMul(P('rowProj') as tf.Tensor2D));
    const e = lookup('behavior', b.recipient);
    const z = fuseGlu('b2', fuseGlu('b1', q, e), c);
    if (K === 1)
      return z
        .matMul(P('head.w').reshape([D, 1]))
        .reshape([b.n])
        .add(P('head.b')) as tf.Tensor1D;
    // Each decision's head picked by the one-hot of its kind (onnx/heads.ts); the edge head reads no agreement.
    const heads = ['head', ...HEADS.slice(0, K - 1)];
    const hot = tf.oneHot(tf.tensor1d(b.kind!, 'int32'), K).toFloat() as tf.Tensor2D;
    const pick = (t: tf.Tensor) => hot.matMul(t as tf.Tensor2D);
    const Wk = tf.stack(heads.map((h) => P(`${h}.w`)));
    const bk = tf.concat(heads.map((h) => P(`${h}.b`))).reshape([K, 1]);
    const ak = tf.concat([tf.zeros([1]), ...heads.slice(1).map((h) => P(`${h}.agree`))]).reshape([K, 1]);
    return z
      .mul(pick(Wk))
      .sum(1)
      .add(pick(bk).reshape([b.n]))
      .add(pick(ak).reshape([b.n]).mul(tf.tensor1d(b.agree!))) as tf.Tensor1D;
  };
  // log pi(a) = -softplus(-s l) with s = +1 keep / -1 prune (tf.logSigmoid of an intermediate
  // cannot be differentiated in TF.js 4.22); entropy = p softplus(-l) + (1 - p) softplus(l).
  const lossOf = (b: DecisionBatch, actions: Uint8Array, adv: Float32Array) => {
    const l = logits(b);
    const sign = tf.tensor1d(Float32Array.from(actions, (a) => 2 * a - 1));
    const logp = tf.softplus(l.mul(sign).neg()).neg();
    const p = tf.sigmoid(l);
    const entropy = p
      .mul(tf.softplus(l.neg()))
      .add(tf.scalar(1).sub(p).mul(tf.softplus(l)))
      .mean();
    const loss = logp.mul(tf.tensor1d(adv)).mean().neg().sub(entropy.mul(opt.entropyBonus)) as tf.Scalar;
    return { loss, entropy };
  };
  const varList = Object.values(vars);
  const gradientsOf = (b: DecisionBatch, actions: Uint8Array, adv: Float32Array) => {
    let entropy!: tf.Scalar;
    const { value, grads } = tf.variableGrads(() => {
      const r = lossOf(b, actions, adv);
      entropy = tf.keep(r.entropy as tf.Scalar);
      return r.loss;
    }, varList);
    return { value, grads, entropy };
  };
  const download = async (ts: Record<string, tf.Tensor>): Promise<Weights> =>
    Object.fromEntries(await Promise.all(Object.entries(ts).map(async ([k, t]) => [k, { shape: t.shape, data: (await t.data()) as Float32Array }] as const)));

  return {
    name: `tfjs-${tf.getBackend()}`,
    shape,
    async keepLogits(b) {
      const l = tf.tidy(() => logits(b));
      const out = (await l.data()) as Float32Array;
      l.dispose();
      return out;
    },
    async lossAndGradients(b, actions, adv) {
      const { value, grads, entropy } = gradientsOf(b, actions, adv);
      const out = {
        loss: (await value.data())[0],
        entropy: (await entropy.data())[0],
        gradients: await download(Object.fromEntries(names.map((n, i) => [n, grads[varList[i].name]]))),
      };
      tf.dispose([value, entropy, ...Object.values(grads)]);
      return out;
    },
    async trainStep(b, actions, adv): Promise<StepStats> {
      const { value, grads, entropy } = gradientsOf(b, actions, adv);
      step++;
      for (const n of names) {
        adamStep(params[n].data, (await grads[vars[n].name].data()) as Float32Array, m[n].data, v[n].data, step, opt);
        tf.tidy(() => vars[n].assign(tf.tensor(params[n].data, params[n].shape)));
      }
      const out = { loss: (await value.data())[0], entropy: (await entropy.data())[0] };
      tf.dispose([value, entropy, ...Object.values(grads)]);
      return out;
    },
    async getState() {
      return { weights: { ...copy(params, names), ...(await download(consts)) }, step, m: copy(m, names), v: copy(v, names) };
    },
    dispose() {
      tf.dispose([...Object.values(vars), ...Object.values(consts)]);
    },
  };
}
