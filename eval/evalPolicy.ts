// `eval --policy PATH`: a trained policy on a split, beside Full-Debate and No-communication on
// the same questions.
import type { Split } from '../src/cache/format.ts';
import { ensureEmbeddings } from '../src/cache/embeddings.ts';
import { loadCache } from '../src/cache/load.ts';
import { makeEnvironment } from '../src/env/environment.ts';
import type { DebateSettings } from '../src/env/settings.ts';
import { loadAnyPolicy, type PolicyArtifact } from '../src/policy/artifact.ts';
import { zeroMoments } from '../src/policy/engine.ts';
import { encoderFor } from '../src/policy/inference.ts';
import type { BackendChoice } from '../src/policy/backends.ts';
import { loadBackend, tfjsEngine } from '../src/policy/tfjsEngine.ts';
import { fullDebate, noCommunication, type MethodResult } from './baselines.ts';
import { methodTable } from './main.ts';
import { evaluatePolicy } from './policyEval.ts';

/** A forward-only engine for a policy artifact. */
export function inferenceEngine(a: PolicyArtifact) {
  return tfjsEngine(a.shape, { weights: a.weights, step: 0, m: zeroMoments(a.weights), v: zeroMoments(a.weights) }, { lr: 0, beta1: 0.9, beta2: 0.999, epsilon: 1e-8, entropyBonus: 0 });
}

export async function evalJob(o: { policies: string[]; cache: string; split: Split; backend: BackendChoice; settings: Partial<DebateSettings> }): Promise<{ table: string; results: MethodResult[] }> {
  await loadBackend(o.backend);
  const cache = loadCache(o.cache);
  const artifacts = o.policies.map(loadAnyPolicy);
  const team = artifacts[0]?.team;
  const env = makeEnvironment(cache, { ...o.settings, agents: o.settings.agents ?? team, rounds: artifacts[0]?.shape.rounds ?? o.settings.rounds });
  const questions = cache.questions.filter((q) => q.split === o.split);
  const full = fullDebate(env, questions);
  const results: MethodResult[] = [full, noCommunication(env, questions)];
  for (const [k, a] of artifacts.entries()) {
    if (a.team.join() !== env.team.map((i) => cache.agents[i].id).join()) throw new Error(`${o.policies[k]}: trained for team ${a.team.join(', ')}, the debate team is ${env.team.map((i) => cache.agents[i].id).join(', ')}`);
    const emb = await ensureEmbeddings(o.cache, cache, await encoderFor(a.encoder));
    const engine = inferenceEngine(a);
    results.push(await evaluatePolicy(engine, env, emb, questions, `CPP ${o.policies[k]}`));
    engine.dispose();
  }
  const header = `${cache.header.name} (${cache.header.source}); split ${o.split}, ${questions.length} questions; miss = ${env.settings.miss}`;
  return { table: `${header}\n\n${methodTable(results, full)}`, results };
}
