// The flat parameter vector of the ONNX engine and the inputs of its graphs: which stretch of the
// vector holds which parameter (each block's four projections packed as [Wg Wu] and [Vg Vu]),
// conversion to and from per-parameter weights (the checkpoint format), and a batch as graph inputs.
import { isTrainable, kindsOf, parameterShapes, type DecisionBatch, type PolicyShape, type Weights } from '../model.ts';
import type { DType } from './graph.ts';

/** A stretch of the flat vector, seen as a tensor. */
export interface Slot {
  name: string;
  shape: number[];
  offset: number;
  size: number;
}

/** The learned candidate features: whether the policy has it, its table, its index in a batch (the decision's kind: with decisions beyond edges). */
export const FEATURES = [
  [(s: PolicyShape) => s.ownFeature, 'ownEmb', 'own'],
  [(s: PolicyShape) => s.sourceFeature, 'sourceEmb', 'source'],
  [(s: PolicyShape) => s.roundFeature, 'roundEmb', 'round'],
  [(s: PolicyShape) => s.currentFeature, 'currentEmb', 'current'],
  [(s: PolicyShape) => s.turnFeature, 'turnEmb', 'turn'],
  [(s: PolicyShape) => kindsOf(s) > 1, 'kindEmb', 'kind'],
] as const;

/** Rows of each lookup table (recipient: the behavior embedding). */
export const lookupWidths = (s: PolicyShape) => ({
  recipient: s.agents,
  own: 2,
  source: s.agents,
  round: Math.max(1, s.rounds - 1),
  current: 2,
  turn: s.agents,
  kind: kindsOf(s),
});
export const featuresOn = (s: PolicyShape) => FEATURES.filter(([on]) => on(s));

/**
 * The flat vector of trainable parameters. First the `vectors`: the parameters that are not block
 * matrices, in `parameterShapes` order; then each block's matrices `<block>.Wx` = [Wg Wu] and
 * `<block>.Vy` = [Vg Vu] (D x 2H: one product gives a block's gate and up projections together) and
 * `<block>.Wd`. `views` are the slots plus two spans: `features`, the tables of the candidate
 * features that are on (side by side, seen as one table of Σ rows x D that a multi-hot row per
 * decision looks up in one product), and `vectors`. `pieces` cover the vector in order, with
 * `features` in place of its tables. `groups` are the stretches Adam updates one at a time (the
 * vectors, then each matrix), each small enough to stay in cache through Adam's passes.
 */
export function flatLayout(s: PolicyShape): { slots: Slot[]; views: Slot[]; pieces: Slot[]; groups: Slot[]; size: number } {
  const { dim: D, hidden: H } = s;
  let offset = 0;
  const slots: Slot[] = [];
  const add = (name: string, shape: number[]) => {
    const size = shape.reduce((a, b) => a * b, 1);
    slots.push({ name, shape, offset, size });
    offset += size;
  };
  const trained = parameterShapes(s).filter(([name]) => isTrainable(s, name));
  const isMatrix = (name: string) => /^b\d\.(W[gud]|V[gu])$/.test(name);
  for (const [name, shape] of trained) if (!isMatrix(name)) add(name, shape);
  const vectors: Slot = { name: 'vectors', shape: [offset], offset: 0, size: offset };
  for (const [name] of trained)
    if (name.endsWith('.Wg')) {
      const block = name.slice(0, -3);
      add(`${block}.Wx`, [D, 2 * H]);
      add(`${block}.Vy`, [D, 2 * H]);
    } else if (name.endsWith('.Wd')) add(name, [H, D]);
  const groups = [vectors, ...slots.filter((slot) => slot.offset >= vectors.size)];
  // The tables train together or not at all (only the behavior embedding trains alone).
  const tables = featuresOn(s)
    .filter(([, table]) => isTrainable(s, table))
    .map(([, table]) => slots.find((slot) => slot.name === table)!);
  if (tables.length === 0) return { slots, views: [...slots, vectors], pieces: slots, groups, size: offset };
  const rows = featuresOn(s).reduce((a, [, , key]) => a + lookupWidths(s)[key], 0);
  const features = { name: 'features', shape: [rows, D], offset: tables[0].offset, size: rows * D };
  const pieces = slots.filter((slot) => !tables.includes(slot) || slot === tables[0]).map((slot) => (slot === tables[0] ? features : slot));
  return { slots, views: [...slots, features, vectors], pieces, groups, size: offset };
}

/** [A B] of two D x H matrices, row by row (D x 2H). */
export function pack(a: Float32Array, b: Float32Array, H: number): Float32Array {
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
  const a = new Float32Array(rows * H),
    b = new Float32Array(rows * H);
  for (let i = 0; i < rows; i++) {
    a.set(ab.subarray(2 * i * H, (2 * i + 1) * H), i * H);
    b.set(ab.subarray((2 * i + 1) * H, (2 * i + 2) * H), i * H);
  }
  return [a, b];
}

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

/** A graph input as plain data (the worker wraps it in an ONNX Runtime tensor). */
interface Feed {
  type: 'float32' | 'float64';
  data: Float32Array | Float64Array;
  dims: number[];
}

/**
 * Inputs of the training graphs for a batch: embeddings, the recipient as a one-hot row, the
 * candidate features that are on as one multi-hot row (in `features` table order; the decision's
 * kind last), with decisions beyond edges the agreement, and sign (±1 for action 1 / 0) and
 * advantage when given.
 */
export function batchFeeds(s: PolicyShape, b: DecisionBatch, dtype: DType = 'float32', actions?: Uint8Array, advantages?: Float32Array): Record<string, Feed> {
  const Arr = dtype === 'float64' ? Float64Array : Float32Array;
  const feed = (data: ArrayLike<number>, dims: number[]): Feed => ({ type: dtype, data: new Arr(data), dims });
  const widths = lookupWidths(s);
  /** Rows with a 1 at each listed (column offset + index) position. */
  const hot = (width: number, parts: [number, Int32Array][]): Feed => {
    const out = new Arr(b.n * width);
    for (const [offset, index] of parts) index.forEach((r, i) => (out[i * width + offset + r] = 1));
    return { type: dtype, data: out, dims: [b.n, width] };
  };
  const feeds: Record<string, Feed> = {
    query: feed(b.query, [b.n, s.dim]),
    candidate: feed(b.candidate, [b.n, s.dim]),
    recipient: hot(widths.recipient, [[0, b.recipient]]),
  };
  const parts: [number, Int32Array][] = [];
  let width = 0;
  for (const [, , key] of featuresOn(s)) {
    const index = b[key];
    if (!index) throw new Error(`a policy deciding ${s.decisions} needs each decision's ${key} (DecisionBatch.${key})`);
    parts.push([width, index]);
    width += widths[key];
  }
  if (width > 0) feeds.features = hot(width, parts);
  if (kindsOf(s) > 1) {
    if (!b.agree) throw new Error(`a policy deciding ${s.decisions} needs each decision's agreement (DecisionBatch.agree)`);
    feeds.agree = feed(b.agree, [b.n]);
  }
  if (s.behaviorRows) {
    if (!b.rows) throw new Error("a policy with behaviorRows needs each decision's behavior rows (DecisionBatch.rows)");
    feeds.rows = feed(b.rows, [b.n, b.rows.length / b.n]);
  }
  if (actions)
    feeds.sign = feed(
      Array.from(actions, (a) => 2 * a - 1),
      [b.n],
    );
  if (advantages) feeds.advantage = feed(advantages, [b.n]);
  return feeds;
}
