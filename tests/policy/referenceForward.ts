// The FuseGLU forward pass in plain JavaScript, written straight from SPEC §4: the reference the
// TF.js and ONNX engines and the exported ONNX model are checked against.
import type { DecisionBatch, PolicyShape, Weights } from '../../src/policy/model.ts';

const LN_EPS = 1e-5;

function layerNorm(x: Float32Array, g: Float32Array, b: Float32Array): Float32Array {
  const D = x.length;
  let mean = 0;
  for (let i = 0; i < D; i++) mean += x[i];
  mean /= D;
  let v = 0;
  for (let i = 0; i < D; i++) v += (x[i] - mean) ** 2;
  const inv = 1 / Math.sqrt(v / D + LN_EPS);
  const out = new Float32Array(D);
  for (let i = 0; i < D; i++) out[i] = (x[i] - mean) * inv * g[i] + b[i];
  return out;
}

/** x · W for W of shape [rows, cols], row-major. */
function matVec(x: Float32Array, W: Float32Array, cols: number): Float32Array {
  const out = new Float32Array(cols);
  for (let i = 0; i < x.length; i++) {
    const xi = x[i];
    if (xi === 0) continue;
    for (let k = 0, o = i * cols; k < cols; k++) out[k] += xi * W[o + k];
  }
  return out;
}

function fuseGlu(w: Weights, p: string, x: Float32Array, y: Float32Array, hidden: number): Float32Array {
  const xn = layerNorm(x, w[`${p}.lnx.g`].data, w[`${p}.lnx.b`].data);
  const yn = layerNorm(y, w[`${p}.lny.g`].data, w[`${p}.lny.b`].data);
  const gx = matVec(xn, w[`${p}.Wg`].data, hidden), gy = matVec(yn, w[`${p}.Vg`].data, hidden);
  const ux = matVec(xn, w[`${p}.Wu`].data, hidden), uy = matVec(yn, w[`${p}.Vu`].data, hidden);
  const m = new Float32Array(hidden);
  for (let k = 0; k < hidden; k++) {
    const g = gx[k] + gy[k];
    m[k] = (g / (1 + Math.exp(-g))) * (ux[k] + uy[k]); // SiLU(gate) * up
  }
  const down = matVec(m, w[`${p}.Wd`].data, x.length);
  for (let i = 0; i < x.length; i++) down[i] += x[i];
  return down;
}

/** The candidate input c: its embedding plus the learned own / source / round features. */
function candidateInput(s: PolicyShape, w: Weights, b: DecisionBatch, i: number): Float32Array {
  const D = s.dim;
  const c = b.candidate.slice(i * D, (i + 1) * D);
  const add = (name: string, row: number) => {
    const t = w[name].data;
    for (let k = 0; k < D; k++) c[k] += t[row * D + k];
  };
  if (s.ownFeature) add('ownEmb', b.own[i]);
  if (s.sourceFeature) add('sourceEmb', b.source[i]);
  if (s.roundFeature) add('roundEmb', b.round[i]);
  return c;
}

/** Keep logits of a batch of decisions. */
export function forwardLogits(s: PolicyShape, w: Weights, b: DecisionBatch): Float32Array {
  const D = s.dim;
  const out = new Float32Array(b.n);
  const headW = w['head.w'].data;
  for (let i = 0; i < b.n; i++) {
    const q = b.query.slice(i * D, (i + 1) * D);
    const e = w.behavior.data.slice(b.recipient[i] * D, (b.recipient[i] + 1) * D);
    const h = fuseGlu(w, 'b1', q, e, s.hidden);
    const zv = fuseGlu(w, 'b2', h, candidateInput(s, w, b, i), s.hidden);
    let logit = w['head.b'].data[0];
    for (let k = 0; k < D; k++) logit += zv[k] * headW[k];
    out[i] = logit;
  }
  return out;
}
