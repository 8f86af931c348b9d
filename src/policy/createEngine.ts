// Choosing and starting a policy engine (engine.ts is the interface): ONNX Runtime when it loads
// (`auto`), else TF.js on the chosen backend.
import type { ComputeSettings } from './backends.ts';
import { zeroMoments, type EngineState, type OptimizerSettings, type PolicyEngine } from './engine.ts';
import type { PolicyShape } from './model.ts';
import { onnxAvailable, onnxEngine } from './onnxEngine.ts';
import type { ComputeRan } from '../provenance.ts';

/** An engine and what it runs on (for provenance: never `auto`). */
type RunningEngine = PolicyEngine & { ran: ComputeRan };

/** The engine, backend and threads that `c` gets here (`auto` resolved; a TF.js backend is loaded to know it). */
export async function computeRan(c: ComputeSettings): Promise<ComputeRan> {
  const onnx = c.engine !== 'tfjs' && (await onnxAvailable());
  if (c.engine !== 'tfjs' && c.engine !== 'auto' && !onnx)
    throw new Error(`engine ${c.engine}: onnxruntime-node does not load here (npm ci installs it); use --engine tfjs`);
  if (onnx) return { engine: c.engine === 'onnx-cuda' ? 'onnx-cuda' : 'onnx', backend: null, threads: c.threads };
  const { loadBackend } = await import('./tfjsEngine.ts');
  return { engine: 'tfjs', backend: await loadBackend(c.backend), threads: null };
}

export async function createEngine(c: ComputeSettings, shape: PolicyShape, state: EngineState, opt: OptimizerSettings): Promise<RunningEngine> {
  const ran = await computeRan(c);
  if (ran.engine !== 'tfjs') return Object.assign(await onnxEngine(shape, state, opt, c.threads, ran.engine === 'onnx-cuda' ? 'cuda' : 'cpu'), { ran });
  const { tfjsEngine } = await import('./tfjsEngine.ts');
  return Object.assign(tfjsEngine(shape, state, opt), { ran });
}

/** A forward-only engine for a trained policy's weights. */
export function inferenceEngine(c: ComputeSettings, shape: PolicyShape, weights: EngineState['weights']): Promise<RunningEngine> {
  const zero = zeroMoments(weights);
  return createEngine(c, shape, { weights, step: 0, m: zero, v: zero }, { lr: 0, beta1: 0.9, beta2: 0.999, epsilon: 1e-8, entropyBonus: 0 });
}
