// Choosing and starting a policy engine (engine.ts is the interface): ONNX Runtime when it loads
// (`auto`), else TF.js on the chosen backend. `auto` takes the GPU engine (webgpu) only for a
// training step of at least AUTO_GPU_DECISIONS decisions on a hardware adapter (the rule that
// --engine's help states, src/policy/backends.ts): below that a
// step's fixed cost on the GPU (a dispatch per node, ~300 nodes) outweighs its arithmetic, and a
// software adapter is always slower than the CPU engine (docs/training.md, "The GPU engine").
import { SettingsError } from '../io/errors.ts';
import { AUTO_GPU_DECISIONS, type ComputeSettings } from './backends.ts';
import { zeroMoments, type EngineState, type OptimizerSettings, type PolicyEngine } from './engine.ts';
import type { PolicyShape } from './model.ts';
import { type LastBytes, onnxEngine, onnxLoadError } from './onnxEngine.ts';
import type { ComputeRan } from '../provenance.ts';
import { adapterName, webgpuAdapter, webgpuAdapterWarned } from './webgpu.ts';

/** Debates the GPU engine's evaluation plays at once (x A² decisions a round: 36,864 for 3 agents). */
const GPU_EVAL_DEBATES = 4096;

/** An engine and what it runs on (for provenance: never `auto`); an ONNX engine's calls say the bytes they moved. */
type RunningEngine = PolicyEngine & { ran: ComputeRan; lastBytes?: LastBytes; warmStart?: boolean };

const int = (x: number) => x.toLocaleString('en-US');

/**
 * The engine, backend and threads that `c` gets here (`auto` resolved; a TF.js backend is loaded to
 * know it), and, for `auto`, a note saying what it picked and why (the run's first line says it).
 * An ONNX engine asked for by name that does not load is an error saying why.
 */
export async function resolveCompute(c: ComputeSettings, decisionsPerStep = 0): Promise<{ ran: ComputeRan; note?: string }> {
  const onnxFailed = c.engine === 'tfjs' ? undefined : await onnxLoadError();
  if (c.engine === 'webgpu' && onnxFailed === undefined) return { ran: { engine: 'webgpu', backend: null, threads: null, adapter: await webgpuAdapter() } };
  let why = ''; // why auto keeps to the CPU engine
  if (c.engine === 'auto' && onnxFailed === undefined) {
    if (decisionsPerStep < AUTO_GPU_DECISIONS)
      why = decisionsPerStep
        ? `${int(decisionsPerStep)} decisions a step, under the ${int(AUTO_GPU_DECISIONS)} from which it takes a hardware GPU`
        : `it takes a hardware GPU for training steps of >= ${int(AUTO_GPU_DECISIONS)} decisions only`;
    else {
      const adapter = await webgpuAdapter().catch((e: Error) => e);
      if (!(adapter instanceof Error) && !adapter.software)
        return {
          ran: { engine: 'webgpu', backend: null, threads: null, adapter },
          note: `auto picked webgpu: ${int(decisionsPerStep)} decisions a step (>= ${int(AUTO_GPU_DECISIONS)}) on a hardware adapter`,
        };
      why = `${int(decisionsPerStep)} decisions a step, but ${adapter instanceof Error ? 'no WebGPU adapter here' : `the WebGPU adapter is software (${adapter.device || adapter.description})`}`;
    }
  }
  if (c.engine !== 'tfjs' && onnxFailed === undefined)
    return {
      ran: { engine: c.engine === 'onnx-cuda' ? 'onnx-cuda' : 'onnx', backend: null, threads: c.threads },
      ...(why && { note: `auto picked onnx: ${why}` }),
    };
  if (c.engine !== 'tfjs' && c.engine !== 'auto')
    throw new SettingsError(`engine ${c.engine}: onnxruntime-node does not load here (npm ci installs it); use --engine tfjs. It failed with: ${onnxFailed}`);
  const { loadBackend } = await import('./tfjsEngine.ts');
  const ran = { engine: 'tfjs' as const, backend: await loadBackend(c.backend), threads: null };
  return c.engine === 'auto' ? { ran, note: `auto picked tfjs: onnxruntime-node does not load here (${onnxFailed})` } : { ran };
}

/** The engine, backend and threads that `c` gets here (see resolveCompute). */
export const computeRan = async (c: ComputeSettings): Promise<ComputeRan> => (await resolveCompute(c)).ran;

/**
 * An engine for `c` (`decisionsPerStep`: a trainer's, for `auto`); with `auto`, its name says what
 * auto picked and why (the trainer's first line prints it). The GPU engine's name is its adapter's;
 * a software adapter is warned about on stderr, once per process.
 */
export async function createEngine(
  c: ComputeSettings,
  shape: PolicyShape,
  state: EngineState,
  opt: OptimizerSettings,
  decisionsPerStep = 0,
): Promise<RunningEngine> {
  const { ran, note } = await resolveCompute(c, decisionsPerStep);
  if (ran.adapter) {
    await webgpuAdapterWarned();
    const engine = await onnxEngine(shape, state, opt, 1, 'webgpu');
    return Object.assign(engine, { ran, name: `webgpu on ${adapterName(ran.adapter)}${note ? `; ${note}` : ''}`, evalBatch: GPU_EVAL_DEBATES });
  }
  const engine =
    ran.engine !== 'tfjs'
      ? await onnxEngine(shape, state, opt, c.threads, ran.engine === 'onnx-cuda' ? 'cuda' : 'cpu')
      : (await import('./tfjsEngine.ts')).tfjsEngine(shape, state, opt);
  return Object.assign(engine, { ran }, note && { name: `${engine.name}; ${note}` });
}

/** A forward-only engine for a trained policy's weights. */
export function inferenceEngine(c: ComputeSettings, shape: PolicyShape, weights: EngineState['weights']): Promise<RunningEngine> {
  const zero = zeroMoments(weights);
  return createEngine(c, shape, { weights, step: 0, m: zero, v: zero }, { lr: 0, beta1: 0.9, beta2: 0.999, epsilon: 1e-8, entropyBonus: 0 });
}
