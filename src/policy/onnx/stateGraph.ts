// The WebGPU engine keeps the parameters and Adam moments in GPU buffers (onnx/worker.mjs): these
// graphs of Identity nodes are how they get there before any step, and how they are read back for
// a checkpoint or getState (the session places each output in GPU or CPU memory).
import type { PolicyShape } from '../model.ts';
import { graphBuilder } from './graph.ts';
import { flatLayout } from './layout.ts';

/** Copies `<kind>:<group>` for each of `kinds` and each Adam group (layout.ts) to outputs `<kind>_<to>:<group>`. */
function copyGraph(s: PolicyShape, kinds: string[], to: string): Uint8Array {
  const g = graphBuilder('float32', `fuseglu-${to}`);
  for (const { name, shape } of flatLayout(s).groups)
    for (const kind of kinds) g.output(g.op('Identity', [g.input(`${kind}:${name}`, shape)]), `${kind}_${to}:${name}`, shape);
  return g.bytes();
}

/** Copies `param:<group>`, `m:<group>`, `v:<group>` to CPU outputs `<kind>_cpu:<group>`. */
export const stateGraph = (s: PolicyShape): Uint8Array => copyGraph(s, ['param', 'm', 'v'], 'cpu');

/** Copies `param:<group>` to outputs `param_gpu:<group>`, which the worker's session keeps in GPU buffers. */
export const uploadGraph = (s: PolicyShape): Uint8Array => copyGraph(s, ['param'], 'gpu');
