// Evaluating a trained policy: deterministic decisions (keep iff p_keep >= 0.5, SPEC §7),
// replayed on a split, counted like every other method.
import type { Question } from '../src/cache/load.ts';
import type { Embeddings } from '../src/cache/embeddings.ts';
import type { Environment } from '../src/env/environment.ts';
import type { PolicyEngine } from '../src/policy/engine.ts';
import { rollout } from '../src/policy/rollout.ts';
import { addDebate, emptyResult, type MethodResult } from './baselines.ts';

export async function evaluatePolicy(engine: PolicyEngine, env: Environment, emb: Embeddings, questions: Question[], method: string, batch = 256): Promise<MethodResult> {
  const out = emptyResult(env, questions, method);
  for (let i = 0; i < questions.length; i += batch) {
    const chunk = questions.slice(i, i + batch).map((q) => q.index);
    const r = await rollout(engine, env, emb, chunk, { mode: 'greedy', debateSeed: String(env.settings.seed), conditioning: engine.shape.conditioning });
    for (const d of r.results) addDebate(env, out, d);
  }
  return out;
}
