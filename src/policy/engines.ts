// Choosing and starting a policy engine (engine.ts is the interface): ONNX Runtime when it loads
// (`auto`), else TF.js on the chosen backend.
import type { ComputeSettings } from './backends.ts';
import { zeroMoments, type EngineState, type OptimizerSettings, type PolicyEngine } from './engine.ts';
import type { PolicyShape } from './model.ts';
import { onnxAvailable, onnxEngine } from './onnxEngine.ts';

export async function createEngine(c: ComputeSettings, shape: PolicyShape, state: EngineState, opt: OptimizerSettings): Promise<PolicyEngine> {
  const onnx = c.engine !== 'tfjs' && (await onnxAvailable());
  if (c.engine !== 'tfjs' && c.engine !== 'auto' && !onnx) throw new Error(`engine ${c.engine}: onnxruntime-node does not load here (npm ci installs it); use --engine tfjs`);
  if (onnx) return onnxEngine(shape, state, opt, c.threads, c.engine === 'onnx-cuda' ? 'cuda' : 'cpu');
  const { loadBackend, tfjsEngine } = await import('./tfjsEngine.ts');
  await loadBackend(c.backend);
  return tfjsEngine(shape, state, opt);
}

/** A forward-only engine for a trained policy's weights. */
export function inferenceEngine(c: ComputeSettings, shape: PolicyShape, weights: EngineState['weights']): Promise<PolicyEngine> {
  const zero = zeroMoments(weights);
  return createEngine(c, shape, { weights, step: 0, m: zero, v: zero }, { lr: 0, beta1: 0.9, beta2: 0.999, epsilon: 1e-8, entropyBonus: 0 });
}
