// The policy's heads as ONNX subgraphs: one logit per decision from z (the second block's output),
// read by the head of the decision's kind (model.ts): l = w_k · z + a_k agree + b_k, where the edge
// head (`head`) reads no agreement (a_0 = 0). With edges alone it is l = w · z + b, as the method's.
// With K kinds the heads are stacked as Wk [K, D], bk and ak [K], and each decision picks its row
// with the one-hot of its kind h [N, K]:
//   l = Σ_d z ⊙ (h Wk) + h bk + agree ⊙ (h ak),
//   dWk = hᵀ (dl ⊙ z), dbk = hᵀ dl, dak = hᵀ (dl ⊙ agree), dz = dl ⊙ (h Wk).
// (Row-wise products rather than MatMul for w · z: a matrix-vector product runs far below the rate
// of an elementwise pass in ONNX Runtime's GEMM.)
import { HEADS, kindsOf, type PolicyShape } from '../model.ts';
import type { GraphBuilder } from './graph.ts';
import { rowSum } from './fuseGluBlocks.ts';

const across = (g: GraphBuilder, x: string) => g.op('ReduceSum', [x, g.ints([1])], { keepdims: 0 });

/**
 * The heads' parameters stacked by kind: Wk [K, D], bk and ak [K, 1] (the edge head's agreement
 * weight a constant 0). Columns, not vectors: the products of a matrix by a 1-D vector came out
 * wrong in the float64 gradient check.
 */
function stacked(g: GraphBuilder, P: (name: string) => string, s: PolicyShape) {
  const heads = ['head', ...HEADS.slice(0, kindsOf(s) - 1)];
  const cat = (names: string[], shape: number[]) =>
    g.op(
      'Concat',
      names.map((n) => g.op('Reshape', [n, g.ints(shape)])),
      { axis: 0 },
    );
  return {
    Wk: cat(
      heads.map((h) => P(`${h}.w`)),
      [1, s.dim],
    ),
    bk: cat(
      heads.map((h) => P(`${h}.b`)),
      [1, 1],
    ),
    ak: cat([g.constant([0], [1]), ...heads.slice(1).map((h) => P(`${h}.agree`))], [1, 1]),
  };
}

/** What the backward pass reads of the heads' forward pass. */
export interface HeadsForward {
  logits: string;
  /** With more than one kind: the kinds' one-hot [N, K], each decision's head row h Wk [N, D] and the agreement. */
  kinds?: { hot: string; rowW: string; agree: string };
}

/** Training graphs: the logits of `z`; `kindHot` [N, K] and `agree` [N] with more than one kind. */
export function headsForward(g: GraphBuilder, P: (name: string) => string, s: PolicyShape, z: string, kindHot?: string, agree?: string): HeadsForward {
  if (kindsOf(s) === 1) return { logits: g.op('Add', [across(g, g.op('Mul', [z, P('head.w')])), P('head.b')]) };
  const { Wk, bk, ak } = stacked(g, P, s);
  const rowW = g.op('MatMul', [kindHot!, Wk]);
  const pick = (t: string) => g.op('Reshape', [g.op('MatMul', [kindHot!, t]), g.ints([-1])]);
  const logits = g.op('Add', [g.op('Add', [across(g, g.op('Mul', [z, rowW])), pick(bk)]), g.op('Mul', [agree!, pick(ak)])]);
  return { logits, kinds: { hot: kindHot!, rowW, agree: agree! } };
}

/** The heads' gradients into `grads` from dl [N] (as a column [N, 1] too); returns dz [N, D]. */
export function headsBackward(
  g: GraphBuilder,
  P: (name: string) => string,
  s: PolicyShape,
  f: HeadsForward,
  z: string,
  dl: string,
  dlColumn: string,
  grads: Map<string, string>,
): string {
  if (!f.kinds) {
    grads.set('head.w', rowSum(g, g.op('Mul', [z, dlColumn])));
    grads.set('head.b', g.op('ReduceSum', [dl, g.ints([0])], { keepdims: 1 }));
    return g.op('Mul', [dlColumn, P('head.w')]);
  }
  const { hot, rowW, agree } = f.kinds;
  const hT = g.op('Transpose', [hot], { perm: [1, 0] });
  const dWk = g.op('MatMul', [hT, g.op('Mul', [z, dlColumn])]);
  const dbk = g.op('MatMul', [hT, dlColumn]);
  const dak = g.op('MatMul', [hT, g.op('Mul', [dlColumn, g.op('Reshape', [agree, g.ints([-1, 1])])])]);
  const at = (x: string, k: number, shape: number[]) => g.op('Reshape', [g.op('Slice', [x, g.ints([k]), g.ints([k + 1]), g.ints([0])]), g.ints(shape)]);
  ['head', ...HEADS.slice(0, kindsOf(s) - 1)].forEach((h, k) => {
    grads.set(`${h}.w`, at(dWk, k, [s.dim]));
    grads.set(`${h}.b`, at(dbk, k, [1]));
    if (k > 0) grads.set(`${h}.agree`, at(dak, k, [1]));
  });
  return g.op('Mul', [dlColumn, rowW]);
}

/** The inference graph's logits: each decision's head picked by its int64 `kind` (N), with more than one kind. */
export function inferenceLogits(g: GraphBuilder, P: (name: string) => string, s: PolicyShape, z: string, kind?: string, agree?: string): string {
  if (kindsOf(s) === 1) return headsForward(g, P, s, z).logits;
  const { Wk, bk, ak } = stacked(g, P, s);
  const pick = (t: string) => g.op('Gather', [t, kind!], { axis: 0 });
  const flat = (t: string) => g.op('Reshape', [pick(t), g.ints([-1])]);
  return g.op('Add', [g.op('Add', [across(g, g.op('Mul', [z, pick(Wk)])), flat(bk)]), g.op('Mul', [agree!, flat(ak)])]);
}
