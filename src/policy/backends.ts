// Compute engines and TF.js backends a user may ask for (kept apart from the engines so that
// settings and --help load neither).
export const BACKENDS = ['auto', 'tensorflow-gpu', 'tensorflow', 'wasm', 'cpu'] as const;
export type BackendChoice = (typeof BACKENDS)[number];

/** Policy-math engines: `onnx` (ONNX Runtime, native CPU kernels), `tfjs` (TF.js on --backend); auto: onnx when it loads. */
export const ENGINES = ['auto', 'onnx', 'tfjs'] as const;
export type EngineChoice = (typeof ENGINES)[number];

/** How to compute: engine, TF.js backend, CPU threads of the ONNX engine. */
export interface ComputeSettings {
  engine: EngineChoice;
  backend: BackendChoice;
  threads: number;
}
