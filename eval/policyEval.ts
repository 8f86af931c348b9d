// Moved to the library (src/policy/evaluate.ts), where a training run's validation uses it too.
// jobs/fidelity.ts still imports it from here until its split lands; then delete this file.
export { evaluatePolicy } from '../src/policy/evaluate.ts';
