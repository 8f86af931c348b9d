// The flat parameter vector of the ONNX engine and the inputs of its graphs: which stretch of the
// vector holds which parameter (each block's four projections packed as [[Wg Wu], [Vg Vu]]),
// conversion to and from per-parameter weights (the checkpoint format), and a batch as graph inputs.
import { isTrainable, parameterShapes, type DecisionBatch, type PolicyShape, type Weights } from '../model.ts';
import type { DType } from './graph.ts';

/** A stretch of the flat vector, seen as a tensor. */
interface Slot {
  name: string;
  shape: number[];
  offset: number;
  size: number;
}

export const BLOCKS = ['b1', 'b2'];

/**
 * The flat vector of trainable parameters: `parameterShapes` order, except that each block's
 * Wg, Wu, Vg, Vu are stored packed as `<block>.Wx` = [Wg Wu] (D x 2H) followed by `<block>.Vy` =
 * [Vg Vu] (D x 2H), which together are `<block>.W` (2D x 2H). `views` are the slots plus those spans.
 */
export function flatLayout(s: PolicyShape): { slots: Slot[]; views: Slot[]; size: number } {
  const { dim: D, hidden: H } = s;
  let offset = 0;
  const slots: Slot[] = [];
  const add = (name: string, shape: number[]) => {
    const size = shape.reduce((a, b) => a * b, 1);
    slots.push({ name, shape, offset, size });
    offset += size;
  };
  for (const [name, shape] of parameterShapes(s)) {
    if (!isTrainable(s, name) || /\.(Vg|Wu|Vu)$/.test(name)) continue;
    if (name.endsWith('.Wg')) {
      const block = name.slice(0, -3);
      add(`${block}.Wx`, [D, 2 * H]);
      add(`${block}.Vy`, [D, 2 * H]);
    } else add(name, shape);
  }
  const spans = BLOCKS.map((b) => {
    const x = slots.find((slot) => slot.name === `${b}.Wx`)!;
    return { name: `${b}.W`, shape: [2 * D, 2 * H], offset: x.offset, size: 2 * x.size };
  });
  return { slots, views: [...slots, ...spans], size: offset };
}

/** [A B] of two D x H matrices, row by row (D x 2H). */
function pack(a: Float32Array, b: Float32Array, H: number): Float32Array {
  const rows = a.length / H;
  const out = new Float32Array(2 * a.length);
  for (let i = 0; i < rows; i++) {
    out.set(a.subarray(i * H, (i + 1) * H), 2 * i * H);
    out.set(b.subarray(i * H, (i + 1) * H), (2 * i + 1) * H);
  }
  return out;
}

function unpack(ab: Float32Array, H: number): [Float32Array, Float32Array] {
  const rows = ab.length / (2 * H);
  const a = new Float32Array(rows * H), b = new Float32Array(rows * H);
  for (let i = 0; i < rows; i++) {
    a.set(ab.subarray(2 * i * H, (2 * i + 1) * H), i * H);
    b.set(ab.subarray((2 * i + 1) * H, (2 * i + 2) * H), i * H);
  }
  return [a, b];
}

/** The packed projections of a block, [[Wg Wu], [Vg Vu]] (2D x 2H). */
export const packedBlock = (w: Weights, b: string, H: number) => {
  const [x, y] = [pack(w[`${b}.Wg`].data, w[`${b}.Wu`].data, H), pack(w[`${b}.Vg`].data, w[`${b}.Vu`].data, H)];
  const out = new Float32Array(x.length + y.length);
  out.set(x);
  out.set(y, x.length);
  return out;
};

export function flatten(s: PolicyShape, w: Weights): Float32Array {
  const { slots, size } = flatLayout(s);
  const out = new Float32Array(size);
  for (const slot of slots) {
    const packed = slot.name.match(/^(.*)\.(Wx|Vy)$/);
    if (!packed) out.set(w[slot.name].data, slot.offset);
    else {
      const [a, b] = packed[2] === 'Wx' ? ['Wg', 'Wu'] : ['Vg', 'Vu'];
      out.set(pack(w[`${packed[1]}.${a}`].data, w[`${packed[1]}.${b}`].data, s.hidden), slot.offset);
    }
  }
  return out;
}

export function unflatten(s: PolicyShape, flat: Float32Array | Float64Array): Weights {
  const { dim: D, hidden: H } = s;
  const out: Weights = {};
  for (const slot of flatLayout(s).slots) {
    const data = Float32Array.from(flat.subarray(slot.offset, slot.offset + slot.size));
    const packed = slot.name.match(/^(.*)\.(Wx|Vy)$/);
    if (!packed) out[slot.name] = { shape: slot.shape, data };
    else {
      const [a, b] = unpack(data, H);
      const [na, nb] = packed[2] === 'Wx' ? ['Wg', 'Wu'] : ['Vg', 'Vu'];
      out[`${packed[1]}.${na}`] = { shape: [D, H], data: a };
      out[`${packed[1]}.${nb}`] = { shape: [D, H], data: b };
    }
  }
  return out;
}

/** Rows of each lookup table per decision: the width of the one-hot inputs of the training graphs. */
export const lookupWidths = (s: PolicyShape) => ({ recipient: s.agents, own: 2, source: s.agents, round: Math.max(1, s.rounds - 1) });

/** A graph input as plain data (the worker wraps it in an ONNX Runtime tensor). */
interface Feed {
  type: 'float32' | 'float64';
  data: Float32Array | Float64Array;
  dims: number[];
}

/** Inputs of the training graphs for a batch: embeddings and one-hot lookups (and sign, advantage). */
export function batchFeeds(s: PolicyShape, b: DecisionBatch, dtype: DType = 'float32', actions?: Uint8Array, advantages?: Float32Array): Record<string, Feed> {
  const Arr = dtype === 'float64' ? Float64Array : Float32Array;
  const feed = (data: ArrayLike<number>, dims: number[]): Feed => ({ type: dtype, data: new Arr(data), dims });
  const oneHot = (rows: Int32Array, width: number) => {
    const out = new Arr(b.n * width);
    rows.forEach((r, i) => (out[i * width + r] = 1));
    return { type: dtype, data: out, dims: [b.n, width] };
  };
  const widths = lookupWidths(s);
  const feeds: Record<string, Feed> = {
    query: feed(b.query, [b.n, s.dim]),
    candidate: feed(b.candidate, [b.n, s.dim]),
    recipient: oneHot(b.recipient, widths.recipient),
    own: oneHot(b.own, widths.own),
    source: oneHot(b.source, widths.source),
    round: oneHot(b.round, widths.round),
  };
  if (actions) feeds.sign = feed(Array.from(actions, (a) => 2 * a - 1), [b.n]);
  if (advantages) feeds.advantage = feed(advantages, [b.n]);
  return feeds;
}
