// The WebGPU engine keeps the parameters and Adam moments in GPU buffers between steps (onnx/worker.mjs);
// this graph is how it reads them back, for a checkpoint or getState.
import type { PolicyShape } from '../model.ts';
import { graphBuilder } from './graph.ts';
import { flatLayout } from './layout.ts';

/** Copies `param:<group>`, `m:<group>`, `v:<group>` per Adam group (layout.ts) to CPU outputs `<kind>_cpu:<group>`. */
export function stateGraph(s: PolicyShape): Uint8Array {
  const g = graphBuilder('float32', 'fuseglu-state');
  for (const { name, shape } of flatLayout(s).groups)
    for (const kind of ['param', 'm', 'v']) g.output(g.op('Identity', [g.input(`${kind}:${name}`, shape)]), `${kind}_cpu:${name}`, shape);
  return g.bytes();
}
