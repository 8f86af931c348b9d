// FuseGLU as ONNX graphs (docs/method.md §4, §7): the forward pass, the REINFORCE loss with its hand-derived
// backward pass, and a fused Adam step, all from ordinary operators (the npm build of ONNX Runtime
// has no training operators). Trainable parameters travel as one flat vector (layout.ts), so Adam
// is a handful of elementwise nodes per group of it whatever the number of parameters.
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
import type { OptimizerSettings } from '../engine.ts';
import { ROW_WIDTH } from '../behaviorRows.ts';
import { isTrainable, type PolicyShape, type Weights } from '../model.ts';
import { graphBuilder, type DType, type GraphBuilder } from './graph.ts';
import { FEATURES, featuresOn, flatLayout, lookupWidths, pack, type Slot } from './layout.ts';

const LN_EPS = 1e-5;

const softplus = (g: GraphBuilder, x: string) =>
  g.op('Add', [g.op('Relu', [x]), g.op('Log', [g.op('Add', [g.scalar(1), g.op('Exp', [g.op('Neg', [g.op('Abs', [x])])])])])]);

/** x̂ = g ⊙ n + b with n = (x − mean) r, r = 1 / sqrt(var + eps), per row. */
interface LayerNormed {
  x: string;
  out: string;
  mean: string;
  r: string;
}

function layerNorm(g: GraphBuilder, x: string, gain: string, bias: string): LayerNormed {
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
type Side = { rows: string } | { table: string; oneHot: string };

interface Block {
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

function block(g: GraphBuilder, P: (name: string) => string, H: number, prefix: string, x: string, y: Side): Block {
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

const columns = (g: GraphBuilder, x: string, from: number, to: number) => g.op('Slice', [x, g.ints([from]), g.ints([to]), g.ints([1])]);
const rowRange = (g: GraphBuilder, x: string, from: number, to: number) => g.op('Slice', [x, g.ints([from]), g.ints([to]), g.ints([0])]);
const rowSum = (g: GraphBuilder, x: string) => g.op('ReduceSum', [x, g.ints([0])], { keepdims: 0 });
/** a·b with either side transposed. (MatMul on an explicit Transpose, which ONNX Runtime fuses.) */
const gemm = (g: GraphBuilder, a: string, b: string, transA: number, transB: number) =>
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
function blockBackward(
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

/** The head: l = w · z + b, one logit per decision (N). */
// (Row-wise products rather than MatMul: a matrix-vector product runs far below the rate of an
// elementwise pass in ONNX Runtime's GEMM.)
const keepLogit = (g: GraphBuilder, P: (name: string) => string, z: string) =>
  g.op('Add', [g.op('ReduceSum', [g.op('Mul', [z, P('head.w')]), g.ints([1])], { keepdims: 0 }), P('head.b')]);

/**
 * The parameters that do not train, as constants under the names the graph reads them by: a block's
 * projections packed as Wx and Vy, the candidate feature tables stacked as `features` (layout.ts).
 */
function frozenValues(g: GraphBuilder, s: PolicyShape, frozen: Weights): Map<string, string> {
  const values = new Map<string, string>();
  const tables = featuresOn(s).map(([, table]) => table as string);
  for (const [name, t] of Object.entries(frozen))
    if (!isTrainable(s, name) && !/\.(Wg|Wu|Vg|Vu)$/.test(name) && !tables.includes(name)) values.set(name, g.constant(t.data, t.shape));
  for (const b of ['b1', 'b2'])
    if (!isTrainable(s, `${b}.Wg`))
      for (const [packed, x, y] of [
        ['Wx', 'Wg', 'Wu'],
        ['Vy', 'Vg', 'Vu'],
      ])
        values.set(`${b}.${packed}`, g.constant(pack(frozen[`${b}.${x}`].data, frozen[`${b}.${y}`].data, s.hidden), [s.dim, 2 * s.hidden]));
  if (tables.length && !isTrainable(s, tables[0])) {
    const stacked = Float32Array.from(tables.flatMap((table) => [...frozen[table].data]));
    values.set('features', g.constant(stacked, [stacked.length / s.dim, s.dim]));
  }
  return values;
}

/**
 * How a graph takes the trainable parameters: `views`, one input per parameter (and span) of the
 * flat vector, which the CPU engine passes as views into its buffer; or `groups`, one input per
 * Adam group (layout.ts), which the WebGPU engine passes as the train graph's GPU-buffer outputs.
 */
export type ParameterInputs = 'views' | 'groups';

/** `silu`: drop a term of the SiLU derivative in block 2 (tests show the gradient check catches it). */
export type Fault = 'silu' | undefined;

/**
 * The training-side graphs. Inputs: `param:<name>` per view of the flat vector, `query`,
 * `candidate` (N x D), one-hot `recipient` (N x A) and, when a candidate feature is on, multi-hot
 * `features` (N x the `features` table's rows; layout.ts), with behaviorRows the dense `rows` (N x 2F);
 * `gradient` adds `sign` (±1)
 * and `advantage` (N); `train` adds `m:<group>`, `v:<group>` per Adam group of the flat vector
 * and `step_size`, `eps_hat`. Outputs: `logits`; `loss`, `entropy`, `grad` (the flat vector); or
 * `loss`, `entropy` and `params_out:<group>`, `m_out:<group>`, `v_out:<group>`.
 */
export function trainingGraph(
  kind: 'forward' | 'gradient' | 'train',
  s: PolicyShape,
  /** Values of the parameters that do not train (a `none` behavior embedding); others are ignored. */
  frozen: Weights,
  opt: OptimizerSettings,
  o: { dtype?: DType; fault?: Fault; inputs?: ParameterInputs } = {},
): Uint8Array {
  const g = graphBuilder(o.dtype ?? 'float32', `fuseglu-${kind}`);
  const D = s.dim;
  const { views, pieces, groups, size } = flatLayout(s);
  // Each stretch of the flat vector the graph uses is an input (declared on first use: every input
  // costs time per run): the worker passes views into the flat vector, so nothing is sliced or
  // copied. With `groups` inputs the graph slices the small vectors out of the `vectors` group
  // itself, so that the train graph's outputs are the next step's inputs as they are.
  const view = new Map(views.map((v) => [v.name, v]));
  const group = new Map(groups.map((v) => [v.name, v]));
  const values = frozenValues(g, s, frozen);
  const P = (name: string): string => {
    if (!values.has(name))
      values.set(
        name,
        o.inputs !== 'groups' || group.has(name)
          ? g.input(`param:${name}`, view.get(name)!.shape)
          : ((v) => g.op('Reshape', [g.op('Slice', [P('vectors'), g.ints([v.offset]), g.ints([v.offset + v.size])]), g.ints(v.shape)]))(view.get(name)!),
      );
    return values.get(name)!;
  };

  const query = g.input('query', ['N', D]);
  const candidate = g.input('candidate', ['N', D]);
  const recipient = g.input('recipient', ['N', lookupWidths(s).recipient]);
  const tables = featuresOn(s);
  const features = tables.length ? g.input('features', ['N', tables.reduce((a, [, , key]) => a + lookupWidths(s)[key], 0)]) : undefined;
  const featuresTrain = tables.length > 0 && isTrainable(s, tables[0][1]);
  // The dense candidate input (behavior rows of source and recipient, [N, 2F]) times its learned [2F, D].
  const rows = s.behaviorRows ? g.input('rows', ['N', 2 * ROW_WIDTH]) : undefined;
  const rowsTrain = rows !== undefined && isTrainable(s, 'rowProj');
  const withFeatures = features ? g.op('Add', [candidate, g.op('MatMul', [features, P('features')])]) : candidate;
  const c = rows ? g.op('Add', [withFeatures, g.op('MatMul', [rows, P('rowProj')])]) : withFeatures;
  const b1 = block(g, P, s.hidden, 'b1', query, { table: P('behavior'), oneHot: recipient });
  const b2 = block(g, P, s.hidden, 'b2', b1.out, { rows: c });
  const l = keepLogit(g, P, b2.out);
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
  // 1/N counted on the device: sign² is 1 per decision, and a float sum of ones is exact below 2^24.
  // (Casting Shape's int64 instead puts a node on the CPU under the WebGPU provider, which has no
  // int64 Cast.)
  const invN = g.op('Reciprocal', [g.op('ReduceSum', [g.op('Mul', [sign, sign]), g.ints([0])], { keepdims: 0 })]);
  const dl = g.op('Mul', [
    gradScale === 1 ? invN : g.op('Mul', [invN, g.scalar(gradScale)]),
    g.op('Add', [
      g.op('Neg', [g.op('Mul', [g.op('Mul', [advantage, sign]), g.op('Sigmoid', [g.op('Neg', [sl])])])]),
      g.op('Mul', [g.scalar(opt.entropyBonus), g.op('Mul', [l, g.op('Mul', [p, q])])]),
    ]),
  ]);
  const grads = new Map<string, string>();
  const dlColumn = g.op('Reshape', [dl, g.ints([-1, 1])]);
  grads.set('head.w', rowSum(g, g.op('Mul', [b2.out, dlColumn])));
  grads.set('head.b', g.op('ReduceSum', [dl, g.ints([0])], { keepdims: 1 }));
  const dz = g.op('Mul', [dlColumn, P('head.w')]);
  const behaviorTrains = isTrainable(s, 'behavior');
  // The candidate's gradient is needed only as Sᵀ dc for the inputs S that multiply a trained
  // matrix (the multi-hot features, the dense rows), side by side in one S.
  const sums = [...(features && featuresTrain ? [features] : []), ...(rows && rowsTrain ? [rows] : [])];
  const S = sums.length > 1 ? g.op('Concat', sums, { axis: 1 }) : sums[0];
  const back2 = blockBackward(g, P, D, b2, dz, { x: 'rows', y: S ? { sums: S } : 'none' }, grads, o.fault);
  const back1 = blockBackward(g, P, D, b1, back2.dx!, { x: 'none', y: behaviorTrains ? 'rows' : 'none' }, grads, o.fault);
  const featureRows = featuresTrain ? view.get('features')!.shape[0] : 0;
  if (featuresTrain) grads.set('features', rowsTrain ? rowRange(g, back2.dy!, 0, featureRows) : back2.dy!);
  if (rowsTrain) grads.set('rowProj', featuresTrain ? rowRange(g, back2.dy!, featureRows, featureRows + 2 * ROW_WIDTH) : back2.dy!);
  if (behaviorTrains) grads.set('behavior', back1.dy!);
  const flat = (from: Slot[]) =>
    g.op(
      'Concat',
      from.map((piece) => g.op('Reshape', [grads.get(piece.name)!, g.ints([-1])])),
      { axis: 0 },
    );
  if (kind === 'gradient') {
    g.output(flat(pieces), 'grad', [size]);
    return g.bytes();
  }

  // Adam in 11 passes per group of the flat vector (layout.ts). With the gradient arriving as
  // g1 = sqrt(1 − beta2) g, m' = beta1 m + ((1 − beta1) / sqrt(1 − beta2)) g1, v' = beta2 v + g1², and
  // p' = p − step m' / (sqrt(v') + epsHat) is exactly Adam's p −= lr (m'/c1) / (sqrt(v'/c2) + eps)
  // with step = lr sqrt(c2) / c1 and epsHat = eps sqrt(c2) given per step. The moments stay the
  // standard ones, so checkpoints move between engines bit for bit. Group by group, each group's
  // passes run over data that stays in cache, and the outputs go straight into views of the flat
  // buffers (no concatenated gradient).
  const stepSize = g.input('step_size', []);
  const epsHat = g.input('eps_hat', []);
  for (const group of groups) {
    const grad = group.name === 'vectors' ? flat(pieces.filter((piece) => piece.offset < group.size)) : grads.get(group.name)!;
    const m = g.input(`m:${group.name}`, group.shape);
    const v = g.input(`v:${group.name}`, group.shape);
    const mNext = g.op('Add', [g.op('Mul', [g.scalar(opt.beta1), m]), g.op('Mul', [g.scalar((1 - opt.beta1) / Math.sqrt(1 - opt.beta2)), grad])]);
    const vNext = g.op('Add', [g.op('Mul', [g.scalar(opt.beta2), v]), g.op('Mul', [grad, grad])]);
    const update = g.op('Mul', [stepSize, g.op('Div', [mNext, g.op('Add', [g.op('Sqrt', [vNext]), epsHat])])]);
    g.output(g.op('Sub', [P(group.name), update]), `params_out:${group.name}`, group.shape);
    g.output(mNext, `m_out:${group.name}`, group.shape);
    g.output(vNext, `v_out:${group.name}`, group.shape);
  }
  return g.bytes();
}

/**
 * The standard inference model for deployment: weights inside; inputs `query`, `behavior` (the
 * recipient's behavior embedding), `candidate` (N x D) and the candidate features `own` (0/1),
 * `source` (team position), `round` (round − 2), int64 (N), and with behaviorRows `source_row` and
 * `recipient_row` (N x F, behaviorRows.ts); output `keep_probability` (N).
 */
export function inferenceGraph(s: PolicyShape, w: Weights, meta: Record<string, string>): Uint8Array {
  const g = graphBuilder('float32', 'fuseglu-policy');
  const D = s.dim;
  const H = s.hidden;
  const values = new Map(
    Object.entries(w)
      .filter(([name]) => name !== 'behavior' && !/\.(Wg|Wu|Vg|Vu)$/.test(name))
      .map(([name, t]) => [name, g.constant(t.data, t.shape, 'float32', `weight:${name}`)]),
  );
  for (const b of ['b1', 'b2']) {
    values.set(`${b}.Wx`, g.constant(pack(w[`${b}.Wg`].data, w[`${b}.Wu`].data, H), [D, 2 * H], 'float32', `weight:${b}.Wx`));
    values.set(`${b}.Vy`, g.constant(pack(w[`${b}.Vg`].data, w[`${b}.Vu`].data, H), [D, 2 * H], 'float32', `weight:${b}.Vy`));
  }
  const P = (name: string) => values.get(name)!;
  const query = g.input('query', ['N', D]);
  const behavior = g.input('behavior', ['N', D]);
  let c = g.input('candidate', ['N', D]);
  for (const [flag, table, key] of FEATURES) {
    const index = g.input(key, ['N'], 'int64');
    if (s[flag]) c = g.op('Add', [c, g.op('Gather', [P(table), index], { axis: 0 })]);
  }
  if (s.behaviorRows) {
    const both = g.op('Concat', [g.input('source_row', ['N', ROW_WIDTH]), g.input('recipient_row', ['N', ROW_WIDTH])], { axis: 1 });
    c = g.op('Add', [c, g.op('MatMul', [both, P('rowProj')])]);
  }
  const z = block(g, P, H, 'b2', block(g, P, H, 'b1', query, { rows: behavior }).out, { rows: c }).out;
  const l = keepLogit(g, P, z);
  g.output(g.op('Sigmoid', [l]), 'keep_probability', ['N']);
  return g.bytes(meta);
}
