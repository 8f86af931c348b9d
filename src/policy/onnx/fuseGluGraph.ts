// FuseGLU as ONNX graphs (SPEC §4, §7): the forward pass, the REINFORCE loss with its hand-derived
// backward pass, and a fused Adam step, all from ordinary operators (the npm build of ONNX Runtime
// has no training operators). Trainable parameters travel as one flat vector (layout.ts), so Adam
// is a handful of elementwise nodes over it whatever the number of parameters.
//
// Backward, per FuseGLU block out = x + M Wd with M = SiLU(G) ⊙ U, G = x̂ Wg + ŷ Vg, U = x̂ Wu + ŷ Vu:
//   dWd = Mᵀ dout, dM = dout Wdᵀ, dU = dM ⊙ SiLU(G), dG = dM ⊙ U ⊙ σ(G)(1 + G(1 − σ(G))),
//   dWg = x̂ᵀ dG, dVg = ŷᵀ dG, dWu = x̂ᵀ dU, dVu = ŷᵀ dU, dx̂ = dG Wgᵀ + dU Wuᵀ, dŷ = dG Vgᵀ + dU Vuᵀ;
// layer norm x̂ = g ⊙ n + b with n = (x − μ) r: dg = Σ dx̂ ⊙ n, db = Σ dx̂,
//   dx = r (dn − mean(dn) − n ⊙ mean(dn ⊙ n)) with dn = dx̂ ⊙ g.
// Loss = −mean(A · log π(a)) − β mean(H), log π(a) = −softplus(−s l) (s = ±1 for keep/prune),
//   dL/dl = (−A s σ(−s l) + β l p (1 − p)) / N  (H the Bernoulli entropy, dH/dl = −l p (1 − p)).
// The four projections of a block are packed into one matrix [[Wg Wu], [Vg Vu]] (2D x 2H) so that
// [x̂ ŷ] W gives [G U] in one product: fewer and larger matrix products, the same arithmetic.
import type { OptimizerSettings } from '../engine.ts';
import { isTrainable, type PolicyShape, type Weights } from '../model.ts';
import { graphBuilder, type DType, type GraphBuilder } from './graph.ts';
import { BLOCKS, flatLayout, lookupWidths, packedBlock } from './layout.ts';

const LN_EPS = 1e-5;

const softplus = (g: GraphBuilder, x: string) =>
  g.op('Add', [g.op('Relu', [x]), g.op('Log', [g.op('Add', [g.scalar(1), g.op('Exp', [g.op('Neg', [g.op('Abs', [x])])])])])]);

interface LayerNormed {
  out: string;
  n: string;
  r: string;
}

function layerNorm(g: GraphBuilder, x: string, gain: string, bias: string): LayerNormed {
  const centered = g.op('Sub', [x, g.op('ReduceMean', [x], { axes: [-1], keepdims: 1 })]);
  const variance = g.op('ReduceMean', [g.op('Mul', [centered, centered])], { axes: [-1], keepdims: 1 });
  const r = g.op('Reciprocal', [g.op('Sqrt', [g.op('Add', [variance, g.scalar(LN_EPS)])])]);
  const n = g.op('Mul', [centered, r]);
  return { out: g.op('Add', [g.op('Mul', [n, gain]), bias]), n, r };
}

/**
 * The second input of a block: one row per decision, or (block 1's behavior embedding) a table
 * of A rows picked by a one-hot [N, A]. Layer norm is per row, so a table is normed and projected
 * once per agent, not once per decision: four of the thirty N x D x H products of a step vanish.
 */
type Side = { rows: string } | { table: string; oneHot: string };

interface Block {
  prefix: string;
  y: Side;
  lx: LayerNormed;
  ly: LayerNormed;
  /** [x̂ ŷ] (rows mode), kept for the backward pass. */
  xy?: string;
  G: string;
  S: string;
  A: string;
  U: string;
  M: string;
  out: string;
}

function block(g: GraphBuilder, P: (name: string) => string, H: number, prefix: string, x: string, y: Side): Block {
  const p = (k: string) => P(`${prefix}.${k}`);
  const lx = layerNorm(g, x, p('lnx.g'), p('lnx.b'));
  const ly = layerNorm(g, 'rows' in y ? y.rows : y.table, p('lny.g'), p('lny.b'));
  const xy = 'rows' in y ? g.op('Concat', [lx.out, ly.out], { axis: 1 }) : undefined;
  const GU = xy
    ? g.op('MatMul', [xy, p('W')])
    : g.op('Add', [g.op('MatMul', [lx.out, p('Wx')]), g.op('MatMul', [(y as { oneHot: string }).oneHot, g.op('MatMul', [ly.out, p('Vy')])])]);
  const G = columns(g, GU, 0, H);
  const U = columns(g, GU, H, 2 * H);
  const S = g.op('Sigmoid', [G]);
  const A = g.op('Mul', [G, S]);
  const M = g.op('Mul', [A, U]);
  return { prefix, y, lx, ly, xy, G, S, A, U, M, out: g.op('Add', [x, g.op('MatMul', [M, p('Wd')])]) };
}

const columns = (g: GraphBuilder, x: string, from: number, to: number) => g.op('Slice', [x, g.ints([from]), g.ints([to]), g.ints([1])]);
const rowSum = (g: GraphBuilder, x: string) => g.op('ReduceSum', [x, g.ints([0])], { keepdims: 0 });
/** a·b with either side transposed. (MatMul on an explicit Transpose, which ONNX Runtime fuses.) */
const gemm = (g: GraphBuilder, a: string, b: string, transA: number, transB: number) =>
  g.op('MatMul', [transA ? g.op('Transpose', [a], { perm: [1, 0] }) : a, transB ? g.op('Transpose', [b], { perm: [1, 0] }) : b]);

function layerNormBackward(g: GraphBuilder, ln: LayerNormed, gain: string, dOut: string, needInput: boolean) {
  const dGain = rowSum(g, g.op('Mul', [dOut, ln.n]));
  const dBias = rowSum(g, dOut);
  if (!needInput) return { dGain, dBias };
  const dn = g.op('Mul', [dOut, gain]);
  const mean1 = g.op('ReduceMean', [dn], { axes: [-1], keepdims: 1 });
  const mean2 = g.op('ReduceMean', [g.op('Mul', [dn, ln.n])], { axes: [-1], keepdims: 1 });
  const dx = g.op('Mul', [ln.r, g.op('Sub', [g.op('Sub', [dn, mean1]), g.op('Mul', [ln.n, mean2])])]);
  return { dGain, dBias, dx };
}

/**
 * Gradients of one block's parameters into `grads`; returns dx (if wanted) and dy (if wanted: per
 * decision for rows, per table row for a table).
 */
function blockBackward(g: GraphBuilder, P: (name: string) => string, D: number, b: Block, dOut: string, want: { x: boolean; y: boolean }, grads: Map<string, string>, fault: Fault) {
  const p = (k: string) => P(`${b.prefix}.${k}`);
  const put = (k: string, v: string) => grads.set(`${b.prefix}.${k}`, v);
  put('Wd', gemm(g, b.M, dOut, 1, 0));
  const dM = gemm(g, dOut, p('Wd'), 0, 1);
  const dU = g.op('Mul', [dM, b.A]);
  const siluSlope = fault === 'silu' && b.prefix === 'b2' ? b.S : g.op('Mul', [b.S, g.op('Add', [g.scalar(1), g.op('Mul', [b.G, g.op('Sub', [g.scalar(1), b.S])])])]);
  const dG = g.op('Mul', [g.op('Mul', [dM, b.U]), siluSlope]);
  const dGU = g.op('Concat', [dG, dU], { axis: 1 });
  let dxn: string, dyn: string;
  if (b.xy) {
    put('W', gemm(g, b.xy, dGU, 1, 0));
    const dxy = gemm(g, dGU, p('W'), 0, 1);
    [dxn, dyn] = [columns(g, dxy, 0, D), columns(g, dxy, D, 2 * D)];
  } else {
    // A table: the decisions' gradients are first summed per table row.
    const dGUrows = gemm(g, (b.y as { oneHot: string }).oneHot, dGU, 1, 0);
    put('Wx', gemm(g, b.lx.out, dGU, 1, 0));
    put('Vy', gemm(g, b.ly.out, dGUrows, 1, 0));
    [dxn, dyn] = [gemm(g, dGU, p('Wx'), 0, 1), gemm(g, dGUrows, p('Vy'), 0, 1)];
  }
  const lnx = layerNormBackward(g, b.lx, p('lnx.g'), dxn, want.x);
  const lny = layerNormBackward(g, b.ly, p('lny.g'), dyn, want.y);
  put('lnx.g', lnx.dGain);
  put('lnx.b', lnx.dBias);
  put('lny.g', lny.dGain);
  put('lny.b', lny.dBias);
  return { dx: want.x ? g.op('Add', [dOut, lnx.dx!]) : undefined, dy: lny.dx };
}

/** The head: l = w · z + b, one logit per decision (N). */
const keepLogit = (g: GraphBuilder, P: (name: string) => string, z: string, D: number) =>
  g.op('Reshape', [g.op('Add', [g.op('MatMul', [z, g.op('Reshape', [P('head.w'), g.ints([D, 1])])]), P('head.b')]), g.ints([-1])]);

/** `silu`: drop a term of the SiLU derivative in block 2 (tests show the gradient check catches it). */
export type Fault = 'silu' | undefined;

const FEATURES = [
  ['ownFeature', 'ownEmb', 'own'],
  ['sourceFeature', 'sourceEmb', 'source'],
  ['roundFeature', 'roundEmb', 'round'],
] as const;

/**
 * The training-side graphs. Inputs: `param:<name>` per trainable parameter, `query`, `candidate`
 * (N x D), one-hot `recipient`, `own`, `source`, `round` (N x rows); `gradient` adds `sign` (±1)
 * and `advantage` (N); `train` adds `params`, `m`, `v` (flat vectors) and `step_size`, `eps_hat`.
 * Outputs: `logits`; `loss`, `entropy`, `grad`; or `loss`, `entropy`, `params_out`, `m_out`, `v_out`.
 */
export function trainingGraph(
  kind: 'forward' | 'gradient' | 'train',
  s: PolicyShape,
  /** Values of the parameters that do not train (a `none` behavior embedding); others are ignored. */
  frozen: Weights,
  opt: OptimizerSettings,
  o: { dtype?: DType; fault?: Fault } = {},
): Uint8Array {
  const g = graphBuilder(o.dtype ?? 'float32', `fuseglu-${kind}`);
  const D = s.dim;
  const { slots, views, size } = flatLayout(s);
  // Each stretch of the flat vector is an input: the worker passes views into it, so nothing is
  // sliced or copied; the train graph also takes the flat vector itself for Adam.
  const values = new Map<string, string>();
  for (const view of views) values.set(view.name, g.input(`param:${view.name}`, view.shape));
  for (const [name, t] of Object.entries(frozen)) if (!isTrainable(s, name)) values.set(name, g.constant(t.data, t.shape));
  const P = (name: string) => values.get(name)!;

  const widths = lookupWidths(s);
  const query = g.input('query', ['N', D]);
  let c = g.input('candidate', ['N', D]);
  const oneHot = Object.fromEntries(Object.entries(widths).map(([k, w]) => [k, g.input(k, ['N', w])])) as Record<keyof typeof widths, string>;
  for (const [flag, table, key] of FEATURES) if (s[flag]) c = g.op('Add', [c, g.op('MatMul', [oneHot[key], P(table)])]);
  const b1 = block(g, P, s.hidden, 'b1', query, { table: P('behavior'), oneHot: oneHot.recipient });
  const b2 = block(g, P, s.hidden, 'b2', b1.out, { rows: c });
  const l = keepLogit(g, P, b2.out, D);
  if (kind === 'forward') {
    g.output(l, 'logits', ['N']);
    return g.bytes();
  }

  const sign = g.input('sign', ['N']);
  const advantage = g.input('advantage', ['N']);
  const sl = g.op('Mul', [sign, l]);
  const p = g.op('Sigmoid', [l]);
  const q = g.op('Sub', [g.scalar(1), p]);
  const logp = g.op('Neg', [softplus(g, g.op('Neg', [sl]))]);
  const H = g.op('Add', [g.op('Mul', [p, softplus(g, g.op('Neg', [l]))]), g.op('Mul', [q, softplus(g, l)])]);
  const entropy = g.op('ReduceMean', [H], { axes: [0], keepdims: 0 });
  const pg = g.op('ReduceMean', [g.op('Mul', [logp, advantage])], { axes: [0], keepdims: 0 });
  const loss = g.op('Sub', [g.op('Neg', [pg]), g.op('Mul', [g.scalar(opt.entropyBonus), entropy])]);
  g.output(loss, 'loss', []);
  g.output(entropy, 'entropy', []);

  // The train graph scales every gradient by sqrt(1 − beta2) here, on N numbers, so that Adam's
  // second moment needs no multiplication of g² over the whole parameter vector (see below).
  const gradScale = kind === 'train' ? Math.sqrt(1 - opt.beta2) : 1;
  const invN = g.op('Reciprocal', [g.op('Cast', [g.op('Shape', [l])], { to: o.dtype === 'float64' ? 11 : 1 })]);
  const dl = g.op('Mul', [
    gradScale === 1 ? invN : g.op('Mul', [invN, g.scalar(gradScale)]),
    g.op('Add', [
      g.op('Neg', [g.op('Mul', [g.op('Mul', [advantage, sign]), g.op('Sigmoid', [g.op('Neg', [sl])])])]),
      g.op('Mul', [g.scalar(opt.entropyBonus), g.op('Mul', [l, g.op('Mul', [p, q])])]),
    ]),
  ]);
  const grads = new Map<string, string>();
  const dlColumn = g.op('Reshape', [dl, g.ints([-1, 1])]);
  grads.set('head.w', g.op('Reshape', [gemm(g, b2.out, dlColumn, 1, 0), g.ints([D])]));
  grads.set('head.b', g.op('ReduceSum', [dl, g.ints([0])], { keepdims: 1 }));
  const dz = g.op('MatMul', [dlColumn, g.op('Reshape', [P('head.w'), g.ints([1, D])])]);
  const behaviorTrains = isTrainable(s, 'behavior');
  const back2 = blockBackward(g, P, D, b2, dz, { x: true, y: FEATURES.some(([flag]) => s[flag]) }, grads, o.fault);
  const back1 = blockBackward(g, P, D, b1, back2.dx!, { x: false, y: behaviorTrains }, grads, o.fault);
  for (const [flag, table, key] of FEATURES) if (s[flag]) grads.set(table, gemm(g, oneHot[key], back2.dy!, 1, 0));
  if (behaviorTrains) grads.set('behavior', back1.dy!);
  // In flat order; a block's `W` gradient covers its Wx and Vy slots.
  const pieces = slots.flatMap((slot) => {
    const span = grads.get(slot.name.replace(/\.Wx$/, '.W'));
    if (slot.name.endsWith('.Vy') && grads.has(slot.name.replace(/\.Vy$/, '.W'))) return [];
    return [g.op('Reshape', [slot.name.endsWith('.Wx') && span ? span : grads.get(slot.name)!, g.ints([-1])])];
  });
  const grad = g.op('Concat', pieces, { axis: 0 });
  if (kind === 'gradient') {
    g.output(grad, 'grad', [size]);
    return g.bytes();
  }

  // Adam over the flat vector in 11 passes. With the gradient arriving as g1 = sqrt(1 − beta2) g,
  // m' = beta1 m + ((1 − beta1) / sqrt(1 − beta2)) g1, v' = beta2 v + g1², and
  // p' = p − step m' / (sqrt(v') + epsHat) is exactly Adam's p −= lr (m'/c1) / (sqrt(v'/c2) + eps)
  // with step = lr sqrt(c2) / c1 and epsHat = eps sqrt(c2) given per step. The moments stay the
  // standard ones, so checkpoints move between engines bit for bit.
  const params = g.input('params', [size]);
  const m = g.input('m', [size]);
  const v = g.input('v', [size]);
  const stepSize = g.input('step_size', []);
  const epsHat = g.input('eps_hat', []);
  const mNext = g.op('Add', [g.op('Mul', [g.scalar(opt.beta1), m]), g.op('Mul', [g.scalar((1 - opt.beta1) / Math.sqrt(1 - opt.beta2)), grad])]);
  const vNext = g.op('Add', [g.op('Mul', [g.scalar(opt.beta2), v]), g.op('Mul', [grad, grad])]);
  const update = g.op('Mul', [stepSize, g.op('Div', [mNext, g.op('Add', [g.op('Sqrt', [vNext]), epsHat])])]);
  g.output(g.op('Sub', [params, update]), 'params_out', [size]);
  g.output(mNext, 'm_out', [size]);
  g.output(vNext, 'v_out', [size]);
  return g.bytes();
}

/**
 * The standard inference model for deployment: weights inside; inputs `query`, `behavior` (the
 * recipient's behavior embedding), `candidate` (N x D) and the candidate features `own` (0/1),
 * `source` (team position), `round` (round − 2), int64 (N); output `keep_probability` (N).
 */
export function inferenceGraph(s: PolicyShape, w: Weights, meta: Record<string, string>): Uint8Array {
  const g = graphBuilder('float32', 'fuseglu-policy');
  const D = s.dim;
  const values = new Map(Object.entries(w).filter(([name]) => name !== 'behavior' && !/\.(Wg|Wu|Vg|Vu)$/.test(name)).map(([name, t]) => [name, g.constant(t.data, t.shape, 'float32', `weight:${name}`)]));
  for (const b of BLOCKS) values.set(`${b}.W`, g.constant(packedBlock(w, b, s.hidden), [2 * D, 2 * s.hidden], 'float32', `weight:${b}.W`));
  const P = (name: string) => values.get(name)!;
  const query = g.input('query', ['N', D]);
  const behavior = g.input('behavior', ['N', D]);
  let c = g.input('candidate', ['N', D]);
  for (const [flag, table, key] of FEATURES) {
    const index = g.input(key, ['N'], 'int64');
    if (s[flag]) c = g.op('Add', [c, g.op('Gather', [P(table), index], { axis: 0 })]);
  }
  const z = block(g, P, s.hidden, 'b2', block(g, P, s.hidden, 'b1', query, { rows: behavior }).out, { rows: c }).out;
  const l = keepLogit(g, P, z, D);
  g.output(g.op('Sigmoid', [l]), 'keep_probability', ['N']);
  return g.bytes(meta);
}
