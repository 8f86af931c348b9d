// The library (`import ... from 'cpp-workbench'`): caches, replayed debates, encoders, policies and
// provenance. The jobs behind the commands are `cpp-workbench/jobs`; serving a trained policy is
// `cpp-workbench/inference` (ONNX Runtime only).
export { cacheFromRecords, loadCache, parseCache } from './cache/load.ts';
export { CacheError, type Cache } from './cache/types.ts';
export type { CacheLine } from './cache/format.ts';
export { saveCache, writeCacheRecords } from './cache/write.ts';
export { ensureEmbeddings, type Embeddings } from './cache/embeddings.ts';
export { cacheStats } from './cache/stats.ts';
export { extractAnswer, normalizeAnswer, readAnswer, storedAnswer, type AnswerRead } from './answer.ts';
export { keepAll, keepOwn, replay, type DebateResult, type DecisionRule, type RoundDecision } from './env/debate.ts';
export { makeEnvironment, splitQuestions, type Environment } from './env/environment.ts';
export { DebateSettings } from './env/settings.ts';
export { makeEncoder, type Encoder } from './encoders/index.ts';
export { generateCache } from './sim/generate.ts';
export { loadAnyPolicy, loadCheckpoint, loadPolicy, type Checkpoint, type PolicyArtifact } from './policy/artifact.ts';
export { createEngine, inferenceEngine } from './policy/createEngine.ts';
export { rollout } from './policy/rollout.ts';
export { exportPolicy } from './policy/export.ts';
export { policySpec } from './policy/contract.ts';
export { readProvenance, type Provenance } from './provenance.ts';
