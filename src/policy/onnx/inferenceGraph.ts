// The exported inference model (src/policy/contract.ts): the forward pass with the weights inside.
import { ROW_WIDTH } from '../behaviorRows.ts';
import { kindsOf, type PolicyShape, type Weights } from '../model.ts';
import { graphBuilder } from './graph.ts';
import { block } from './fuseGluBlocks.ts';
import { inferenceLogits } from './heads.ts';
import { FEATURES, pack } from './layout.ts';

/**
 * The standard inference model for deployment: weights inside; inputs `query`, `behavior` (the
 * recipient's behavior embedding), `candidate` (N x D) and the candidate features `own` (0/1),
 * `source` (team position), `round` (round − 2), int64 (N), and with behaviorRows `source_row` and
 * `recipient_row` (N x F, behaviorRows.ts), and with decisions beyond edges `kind` (int64, model.ts
 * KIND) and `agree` (float, N); output `keep_probability` (N): the probability of each decision's
 * action 1 (keep the edge, revise, stop).
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
  // Every candidate feature is an input whether the policy reads it or not (one contract for them
  // all), but for the decision's kind, an input only of a policy that decides more than edges.
  const kinds = kindsOf(s) > 1;
  let kind: string | undefined;
  for (const [on, table, key] of FEATURES) {
    if (key === 'kind' && !kinds) continue;
    const index = g.input(key, ['N'], 'int64');
    if (key === 'kind') kind = index;
    if (on(s)) c = g.op('Add', [c, g.op('Gather', [P(table), index], { axis: 0 })]);
  }
  const agree = kinds ? g.input('agree', ['N']) : undefined;
  if (s.behaviorRows) {
    const both = g.op('Concat', [g.input('source_row', ['N', ROW_WIDTH]), g.input('recipient_row', ['N', ROW_WIDTH])], { axis: 1 });
    c = g.op('Add', [c, g.op('MatMul', [both, P('rowProj')])]);
  }
  const z = block(g, P, H, 'b2', block(g, P, H, 'b1', query, { rows: behavior }).out, { rows: c }).out;
  const l = inferenceLogits(g, P, s, z, kind, agree);
  g.output(g.op('Sigmoid', [l]), 'keep_probability', ['N']);
  return g.bytes(meta);
}
