// FuseGLU as ONNX graphs (docs/method.md §4, §7): the forward pass, the REINFORCE loss with its hand-derived
// backward pass, and a fused Adam step, all from ordinary operators (the npm build of ONNX Runtime
// has no training operators). Trainable parameters travel as one flat vector (layout.ts), so Adam
// is a handful of elementwise nodes per group of it whatever the number of parameters. The blocks
// and their backward pass are in fuseGluBlocks.ts, the heads in heads.ts, the exported inference
// graph in inferenceGraph.ts.
//
// Loss = −mean(A · log π(a)) − β mean(H), log π(a) = −softplus(−s l) (s = ±1 for action 1 / 0),
//   dL/dl = (−A s σ(−s l) + β l p (1 − p)) / N  (H the Bernoulli entropy, dH/dl = −l p (1 − p)).
import type { OptimizerSettings } from '../engine.ts';
import { ROW_WIDTH } from '../behaviorRows.ts';
import { isTrainable, kindsOf, type PolicyShape, type Weights } from '../model.ts';
import { graphBuilder, type DType, type GraphBuilder } from './graph.ts';
import { block, blockBackward, columns, rowRange, softplus, type Fault } from './fuseGluBlocks.ts';
import { headsBackward, headsForward } from './heads.ts';
import { featuresOn, flatLayout, lookupWidths, pack, type Slot } from './layout.ts';

export type { Fault } from './fuseGluBlocks.ts';

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

/**
 * The training-side graphs. Inputs: `param:<name>` per view of the flat vector, `query`,
 * `candidate` (N x D), one-hot `recipient` (N x A) and, when a candidate feature is on, multi-hot
 * `features` (N x the `features` table's rows; layout.ts), with behaviorRows the dense `rows` (N x 2F),
 * with decisions beyond edges `agree` (N, read by the revise and stop heads: heads.ts);
 * `gradient` adds `sign` (±1) and `advantage` (N); `train` adds `m:<group>`, `v:<group>` per Adam group of the flat vector
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
  const featureWidth = tables.reduce((a, [, , key]) => a + lookupWidths(s)[key], 0);
  const features = tables.length ? g.input('features', ['N', featureWidth]) : undefined;
  const featuresTrain = tables.length > 0 && isTrainable(s, tables[0][1]);
  // The dense candidate input (behavior rows of source and recipient, [N, 2F]) times its learned [2F, D].
  const rows = s.behaviorRows ? g.input('rows', ['N', 2 * ROW_WIDTH]) : undefined;
  const rowsTrain = rows !== undefined && isTrainable(s, 'rowProj');
  const withFeatures = features ? g.op('Add', [candidate, g.op('MatMul', [features, P('features')])]) : candidate;
  const c = rows ? g.op('Add', [withFeatures, g.op('MatMul', [rows, P('rowProj')])]) : withFeatures;
  const b1 = block(g, P, s.hidden, 'b1', query, { table: P('behavior'), oneHot: recipient });
  const b2 = block(g, P, s.hidden, 'b2', b1.out, { rows: c });
  // The kinds' one-hot is the last columns of the multi-hot features (layout.ts FEATURES).
  const K = kindsOf(s);
  const agree = K > 1 ? g.input('agree', ['N']) : undefined;
  const heads = headsForward(g, P, s, b2.out, K > 1 ? columns(g, features!, featureWidth - K, featureWidth) : undefined, agree);
  const l = heads.logits;
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
  const dz = headsBackward(g, P, s, heads, b2.out, dl, dlColumn, grads);
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
