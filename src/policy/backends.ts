// Compute engines and TF.js backends a user may ask for (kept apart from the engines so that
// settings and --help load neither).
export const BACKENDS = ['auto', 'tensorflow-gpu', 'tensorflow', 'wasm', 'cpu'] as const;
export type BackendChoice = (typeof BACKENDS)[number];

/**
 * Policy-math engines: `onnx` (ONNX Runtime, native CPU kernels), `onnx-cuda` (ONNX Runtime's CUDA
 * execution provider, when its binaries are installed), `tfjs` (TF.js on --backend); auto: onnx
 * when it loads, else tfjs.
 */
export const ENGINES = ['auto', 'onnx', 'onnx-cuda', 'tfjs'] as const;
export type EngineChoice = (typeof ENGINES)[number];

/** How to compute: engine, TF.js backend, CPU threads of the ONNX engine. */
export interface ComputeSettings {
  engine: EngineChoice;
  backend: BackendChoice;
  threads: number;
}
