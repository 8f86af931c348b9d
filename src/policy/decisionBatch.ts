// A batch of decisions as the engines take it (model.ts DecisionBatch): allocation, one row copied
// between batches, and the query state's normalization.
import { ROW_WIDTH } from './behaviorRows.ts';
import { kindsOf, type DecisionBatch, type PolicyShape } from './model.ts';

export function emptyBatch(n: number, dim: number, shape: Pick<PolicyShape, 'behaviorRows' | 'decisions'>): DecisionBatch {
  return {
    ...(shape.behaviorRows && { rows: new Float32Array(n * 2 * ROW_WIDTH) }),
    ...(kindsOf(shape) > 1 && { kind: new Int32Array(n), agree: new Float32Array(n) }),
    n,
    query: new Float32Array(n * dim),
    candidate: new Float32Array(n * dim),
    recipient: new Int32Array(n),
    own: new Int32Array(n),
    source: new Int32Array(n),
    round: new Int32Array(n),
    current: new Int32Array(n),
    turn: new Int32Array(n),
  };
}

/** Copy row `from` of batch `a` into row `to` of batch `b` (the same width and inputs). */
export function copyRow(a: DecisionBatch, from: number, b: DecisionBatch, to: number, dim: number): void {
  b.query.set(a.query.subarray(from * dim, (from + 1) * dim), to * dim);
  b.candidate.set(a.candidate.subarray(from * dim, (from + 1) * dim), to * dim);
  for (const key of ['recipient', 'own', 'source', 'round', 'current', 'turn', 'kind'] as const) if (a[key]) b[key]![to] = a[key]![from];
  if (a.agree) b.agree![to] = a.agree[from];
  if (a.rows) b.rows!.set(a.rows.subarray(from * 2 * ROW_WIDTH, (from + 1) * 2 * ROW_WIDTH), to * 2 * ROW_WIDTH);
}

/** The rows of `b` where `keep` is 1, as a batch of their own (the decisions a training step learns from). */
export function keptRows(b: DecisionBatch, keep: Uint8Array, dim: number): DecisionBatch {
  const n = keep.reduce((a, x) => a + x, 0);
  const out = emptyBatch(n, dim, { behaviorRows: b.rows ? 1 : 0, decisions: b.kind ? 'edges+revise+stop' : 'edges' });
  let to = 0;
  keep.forEach((k, from) => k && copyRow(b, from, out, to++, dim));
  return out;
}

/** Write S / |S| into `out` at `offset`. */
export function normalizeInto(S: Float32Array, sOffset: number, dim: number, out: Float32Array, offset: number) {
  let norm = 0;
  for (let k = 0; k < dim; k++) {
    const x = S[sOffset + k];
    norm += x * x;
  }
  const inv = norm > 0 ? 1 / Math.sqrt(norm) : 0;
  for (let k = 0; k < dim; k++) out[offset + k] = S[sOffset + k] * inv;
}

/** The first n rows of `b`, as views (no copy). */
export function firstRows(b: DecisionBatch, n: number, dim: number): DecisionBatch {
  if (n === b.n) return b;
  const cut = <T extends Float32Array | Int32Array>(a: T, width = 1) => a.subarray(0, n * width) as T;
  return {
    n,
    query: cut(b.query, dim),
    candidate: cut(b.candidate, dim),
    recipient: cut(b.recipient),
    own: cut(b.own),
    source: cut(b.source),
    round: cut(b.round),
    current: cut(b.current),
    turn: cut(b.turn),
    ...(b.rows && { rows: cut(b.rows, 2 * ROW_WIDTH) }),
    ...(b.kind && { kind: cut(b.kind), agree: cut(b.agree!) }),
  };
}
