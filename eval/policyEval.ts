// Evaluating a trained policy: its greedy decisions (keep iff p_keep >= 0.5, SPEC §7) replayed on a
// split, counted like every other method.
import type { Question } from '../src/cache/load.ts';
import type { Embeddings } from '../src/cache/embeddings.ts';
import type { Environment } from '../src/env/environment.ts';
import type { PolicyEngine } from '../src/policy/engine.ts';
import { playGreedy } from '../src/policy/rollout.ts';
import { addDebate, emptyResult, type MethodResult } from './baselines.ts';

export async function evaluatePolicy(engine: PolicyEngine, env: Environment, emb: Embeddings, questions: Question[], method: string): Promise<MethodResult> {
  const out = emptyResult(env, questions, method);
  for (const d of await playGreedy(engine, env, emb, questions.map((q) => q.index))) addDebate(env, out, d);
  return out;
}
