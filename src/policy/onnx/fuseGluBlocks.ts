// FuseGLU blocks as ONNX subgraphs (docs/method.md §4): layer norms, the two FuseGLU blocks and their
// hand-derived backward pass, shared by the training graphs (fuseGluGraph.ts) and the inference graph
// (inferenceGraph.ts).
//
// Backward, per FuseGLU block out = x + M Wd with M = SiLU(G) ⊙ U, G = x̂ Wg + ŷ Vg, U = x̂ Wu + ŷ Vu:
//   dWd = Mᵀ dout, dM = dout Wdᵀ, dU = dM ⊙ SiLU(G), dG = dM ⊙ U ⊙ σ(G)(1 + G(1 − σ(G))),
//   dWg = x̂ᵀ dG, dVg = ŷᵀ dG, dWu = x̂ᵀ dU, dVu = ŷᵀ dU, dx̂ = dG Wgᵀ + dU Wuᵀ, dŷ = dG Vgᵀ + dU Vuᵀ;
// layer norm x̂ = g ⊙ n + b with n = (x − μ) r: dg = Σ dx̂ ⊙ n, db = Σ dx̂,
//   dx = r (dn − mean(dn) − n ⊙ mean(dn ⊙ n)) with dn = dx̂ ⊙ g.
// Loss = −mean(A · log π(a)) − β mean(H), log π(a) = −softplus(−s l) (s = ±1 for keep/prune),
//   dL/dl = (−A s σ(−s l) + β l p (1 − p)) / N  (H the Bernoulli entropy, dH/dl = −l p (1 − p)).
// The four projections of a block are packed as Wx = [Wg Wu] and Vy = [Vg Vu] (D x 2H) so that
// x̂ Wx + ŷ Vy gives [G U] in two products instead of four: fewer and larger products, the same
// arithmetic. Layer norms use ONNX Runtime's fused LayerNormalization (one pass, and its mean and
// 1/std for the backward pass; float32 only, so float64 graphs spell it out). Where a layer norm's input needs no gradient (block 1's query), dx̂ is
// never formed: with T = nᵀ dGU and c the column sums of dGU, the gradients that need it are
//   dW = x̂ᵀ dGU = g ⊙ T + b cᵀ (rows scaled by g), dg = Σ_k W ⊙ T, db = W c,
// which saves one N x 2H x D product per step. Block 2's candidate needs its gradient only summed
// per feature-table row; those sums, too, come without dŷ (projectionBackward): a second product saved.
import type { GraphBuilder } from './graph.ts';

/** `silu`: drop a term of the SiLU derivative in block 2 (tests show the gradient check catches it). */
export type Fault = 'silu' | undefined;

const LN_EPS = 1e-5;

export const softplus = (g: GraphBuilder, x: string) =>
  g.op('Add', [g.op('Relu', [x]), g.op('Log', [g.op('Add', [g.scalar(1), g.op('Exp', [g.op('Neg', [g.op('Abs', [x])])])])])]);

/** x̂ = g ⊙ n + b with n = (x − mean) r, r = 1 / sqrt(var + eps), per row. */
export interface LayerNormed {
  x: string;
  out: string;
  mean: string;
  r: string;
}

export function layerNorm(g: GraphBuilder, x: string, gain: string, bias: string): LayerNormed {
  if (g.dtype === 'float32') {
    const [out, mean, r] = g.ops('LayerNormalization', [x, gain, bias], 3, { axis: -1, epsilon: LN_EPS });
    return { x, out, mean, r };
  }
  // ONNX Runtime has no float64 LayerNormalization: the gradient check's graphs spell it out.
  const mean = g.op('ReduceMean', [x], { axes: [-1], keepdims: 1 });
  const centered = g.op('Sub', [x, mean]);
  const variance = g.op('ReduceMean', [g.op('Mul', [centered, centered])], { axes: [-1], keepdims: 1 });
  const r = g.op('Reciprocal', [g.op('Sqrt', [g.op('Add', [variance, g.scalar(LN_EPS)])])]);
  return { x, out: g.op('Add', [g.op('Mul', [g.op('Mul', [centered, r]), gain]), bias]), mean, r };
}

/**
 * The second input of a block: one row per decision, or (block 1's behavior embedding) a table
 * of A rows picked by a one-hot [N, A]. Layer norm is per row, so a table is normed and projected
 * once per agent, not once per decision: four of the thirty N x D x H products of a step vanish.
 */
export type Side = { rows: string } | { table: string; oneHot: string };

export interface Block {
  prefix: string;
  y: Side;
  lx: LayerNormed;
  ly: LayerNormed;
  /** x̂ Wx and ŷ Vy (for a table: per table row). */
  xGU: string;
  yGU: string;
  G: string;
  S: string;
  A: string;
  U: string;
  M: string;
  out: string;
}

export function block(g: GraphBuilder, P: (name: string) => string, H: number, prefix: string, x: string, y: Side): Block {
  const p = (k: string) => P(`${prefix}.${k}`);
  const lx = layerNorm(g, x, p('lnx.g'), p('lnx.b'));
  const ly = layerNorm(g, 'rows' in y ? y.rows : y.table, p('lny.g'), p('lny.b'));
  const xGU = g.op('MatMul', [lx.out, p('Wx')]);
  const yGU = g.op('MatMul', [ly.out, p('Vy')]);
  const GU = g.op('Add', [xGU, 'rows' in y ? yGU : g.op('MatMul', [y.oneHot, yGU])]);
  const G = columns(g, GU, 0, H);
  const U = columns(g, GU, H, 2 * H);
  const S = g.op('Sigmoid', [G]);
  const A = g.op('Mul', [G, S]);
  const M = g.op('Mul', [A, U]);
  return { prefix, y, lx, ly, xGU, yGU, G, S, A, U, M, out: g.op('Add', [x, g.op('MatMul', [M, p('Wd')])]) };
}

export const columns = (g: GraphBuilder, x: string, from: number, to: number) => g.op('Slice', [x, g.ints([from]), g.ints([to]), g.ints([1])]);
export const rowRange = (g: GraphBuilder, x: string, from: number, to: number) => g.op('Slice', [x, g.ints([from]), g.ints([to]), g.ints([0])]);
export const rowSum = (g: GraphBuilder, x: string) => g.op('ReduceSum', [x, g.ints([0])], { keepdims: 0 });
/** a·b with either side transposed. (MatMul on an explicit Transpose, which ONNX Runtime fuses.) */
export const gemm = (g: GraphBuilder, a: string, b: string, transA: number, transB: number) =>
  g.op('MatMul', [transA ? g.op('Transpose', [a], { perm: [1, 0] }) : a, transB ? g.op('Transpose', [b], { perm: [1, 0] }) : b]);

/**
 * What the input of a layer norm needs from the backward pass: its gradient per row (`rows`),
 * nothing (`none`: data, such as block 1's query), or only the sums of its gradient over the rows
 * each column of a multi-hot [N, F] picks (`sums`: block 2's candidate, whose gradient reaches only
 * the feature tables).
 */
type InputGradient = 'rows' | 'none' | { sums: string };

/**
 * Backward through GU += LN(x) W, given dGU (a row per row of x) and `product` = LN(x) W from the
 * forward pass: the gradients of W and of the layer norm's gain and bias, and of x as `want` says.
 */
function projectionBackward(
  g: GraphBuilder,
  D: number,
  ln: LayerNormed,
  gain: string,
  bias: string,
  W: string,
  product: string,
  dGU: string,
  want: InputGradient,
): { dW: string; dGain: string; dBias: string; dx?: string } {
  const n = g.op('Mul', [g.op('Sub', [ln.x, ln.mean]), ln.r]);
  if (want === 'rows') {
    const dOut = gemm(g, dGU, W, 0, 1);
    const dn = g.op('Mul', [dOut, gain]);
    const mean1 = g.op('ReduceMean', [dn], { axes: [-1], keepdims: 1 });
    const mean2 = g.op('ReduceMean', [g.op('Mul', [dn, n])], { axes: [-1], keepdims: 1 });
    return {
      dW: gemm(g, ln.out, dGU, 1, 0),
      dGain: rowSum(g, g.op('Mul', [dOut, n])),
      dBias: rowSum(g, dOut),
      dx: g.op('Mul', [ln.r, g.op('Sub', [g.op('Sub', [dn, mean1]), g.op('Mul', [n, mean2])])]),
    };
  }
  // Without dx̂ = dGU Wᵀ (see the header).
  const T = gemm(g, n, dGU, 1, 0);
  const c = g.op('ReduceSum', [dGU, g.ints([0])], { keepdims: 1 });
  const column = (v: string) => g.op('Reshape', [v, g.ints([-1, 1])]);
  const row = (v: string) => g.op('Reshape', [v, g.ints([1, -1])]);
  const across = (v: string) => g.op('ReduceSum', [v, g.ints([1])], { keepdims: 1 });
  const grads: { dW: string; dGain: string; dBias: string } = {
    dW: g.op('Add', [g.op('Mul', [T, column(gain)]), g.op('Mul', [column(bias), c])]),
    dGain: g.op('Reshape', [across(g.op('Mul', [W, T])), g.ints([-1])]),
    dBias: g.op('Reshape', [across(g.op('Mul', [W, c])), g.ints([-1])]),
  };
  if (want === 'none') return grads;
  // Σ_i S_if dx_i with dx_i = r_i (dn_i − mean1_i − n_i mean2_i), dn_i = g ⊙ dGU_i Wᵀ, where
  // mean1_i = dGU_i · (Wᵀ g) / D and mean2_i = dGU_i · (product_i − b W) / D: so it is
  //   g ⊙ ((Sr)ᵀ dGU) Wᵀ − (Sr)ᵀ mean1 − (Sr ⊙ mean2)ᵀ n, with Sr = S scaled by r per row,
  // products with F (a handful) rows instead of one N x 2H x D product.
  const invD = g.scalar(1 / D);
  const mean1 = across(g.op('Mul', [dGU, g.op('Mul', [g.op('MatMul', [row(gain), W]), invD])]));
  const mean2 = g.op('Mul', [across(g.op('Mul', [dGU, g.op('Sub', [product, g.op('MatMul', [row(bias), W])])])), invD]);
  const Sr = g.op('Mul', [want.sums, ln.r]);
  const dn = g.op('Mul', [gemm(g, gemm(g, Sr, dGU, 1, 0), W, 0, 1), gain]);
  const dx = g.op('Sub', [g.op('Sub', [dn, gemm(g, Sr, mean1, 1, 0)]), gemm(g, g.op('Mul', [Sr, mean2]), n, 1, 0)]);
  return { ...grads, dx };
}

/**
 * Gradients of one block's parameters into `grads`; returns dx (if wanted) and dy (if wanted: per
 * decision for rows, per table row for a table).
 */
export function blockBackward(
  g: GraphBuilder,
  P: (name: string) => string,
  D: number,
  b: Block,
  dOut: string,
  want: { x: 'rows' | 'none'; y: InputGradient },
  grads: Map<string, string>,
  fault: Fault,
) {
  const p = (k: string) => P(`${b.prefix}.${k}`);
  const put = (k: string, v: string) => grads.set(`${b.prefix}.${k}`, v);
  put('Wd', gemm(g, b.M, dOut, 1, 0));
  const dM = gemm(g, dOut, p('Wd'), 0, 1);
  const dU = g.op('Mul', [dM, b.A]);
  const siluSlope =
    fault === 'silu' && b.prefix === 'b2' ? b.S : g.op('Mul', [b.S, g.op('Add', [g.scalar(1), g.op('Mul', [b.G, g.op('Sub', [g.scalar(1), b.S])])])]);
  const dG = g.op('Mul', [g.op('Mul', [dM, b.U]), siluSlope]);
  const dGU = g.op('Concat', [dG, dU], { axis: 1 });
  // A table: the decisions' gradients are first summed per table row.
  const dGUy = 'rows' in b.y ? dGU : gemm(g, b.y.oneHot, dGU, 1, 0);
  const x = projectionBackward(g, D, b.lx, p('lnx.g'), p('lnx.b'), p('Wx'), b.xGU, dGU, want.x);
  const y = projectionBackward(g, D, b.ly, p('lny.g'), p('lny.b'), p('Vy'), b.yGU, dGUy, want.y);
  put('Wx', x.dW);
  put('Vy', y.dW);
  put('lnx.g', x.dGain);
  put('lnx.b', x.dBias);
  put('lny.g', y.dGain);
  put('lny.b', y.dBias);
  return { dx: x.dx && g.op('Add', [dOut, x.dx]), dy: y.dx };
}
