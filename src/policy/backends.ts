// Compute engines and TF.js backends a user may ask for, and the compute settings that choose
// them (kept apart from the engines so that settings and --help load neither).
import { z } from 'zod';

export const BACKENDS = ['auto', 'tensorflow-gpu', 'tensorflow', 'wasm', 'cpu'] as const;
export type BackendChoice = (typeof BACKENDS)[number];

/**
 * Policy-math engines: `onnx` (ONNX Runtime, native CPU kernels), `webgpu` (ONNX Runtime's WebGPU
 * execution provider: a GPU through Vulkan, Metal or Direct3D 12), `onnx-cuda` (ONNX Runtime's CUDA
 * execution provider, when its binaries are installed), `tfjs` (TF.js on --backend); auto: the
 * rule ComputeSettings.engine states (createEngine.ts applies it and says why).
 */
export const ENGINES = ['auto', 'onnx', 'webgpu', 'onnx-cuda', 'tfjs'] as const;
/**
 * Decisions per training step from which `auto` takes a hardware WebGPU adapter: below that a GPU
 * step's fixed cost (a dispatch per node, ~300 nodes) outweighs its arithmetic (docs/training.md).
 */
export const AUTO_GPU_DECISIONS = 8192;
export type EngineChoice = (typeof ENGINES)[number];

/** How to compute, not what: engine, CPU threads of the ONNX engine, TF.js backend (a resumed run may change them). */
export const ComputeSettings = z.strictObject({
  engine: z
    .enum(ENGINES)
    .default('auto')
    .describe(
      'policy-math engine: onnx (ONNX Runtime, native CPU), webgpu (ONNX Runtime on a GPU through WebGPU), onnx-cuda, tfjs (TF.js on --backend); ' +
        `auto: webgpu for a training step of >= ${AUTO_GPU_DECISIONS.toLocaleString('en-US')} decisions (batch size x rollouts x agents² x (rounds - 1)) on a hardware GPU adapter, ` +
        "where a large batch repays a GPU step's fixed cost; else onnx (a software adapter is slower than the CPU), or tfjs where onnxruntime-node does not load; " +
        "the run's first line says what it picked",
    ),
  threads: z.number().int().positive().default(1).describe('CPU threads of the onnx engine (of each training run: the main job runs two at a time)'),
  backend: z.enum(BACKENDS).default('auto').describe('TF.js backend of the tfjs engine; auto takes the fastest that loads'),
});
export type ComputeSettings = z.infer<typeof ComputeSettings>;

export const COMPUTE_SETTINGS = ComputeSettings.keyof().options;
/** The compute settings of a config, or of parsed command-line flags. */
export const computeOf = (c: ComputeSettings): ComputeSettings => ({ engine: c.engine, threads: c.threads, backend: c.backend });
export const defaultCompute = (): ComputeSettings => ComputeSettings.parse({});
