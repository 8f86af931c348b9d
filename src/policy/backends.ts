// Compute backends a user may ask for (kept apart from the engine so that settings and --help
// do not load TF.js).
export const BACKENDS = ['auto', 'tensorflow-gpu', 'tensorflow', 'wasm', 'cpu'] as const;
export type BackendChoice = (typeof BACKENDS)[number];
