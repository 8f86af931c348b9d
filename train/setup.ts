// A training run's setup, before its first step: the cache (kept loaded in a warm process), the
// training and evaluation environments, the embeddings, the policy's shape, and its first weights.
import { keptEmbeddings, runCacheSteps } from '../src/cache/kept.ts';
import type { Embeddings } from '../src/cache/embeddings.ts';
import type { Cache } from '../src/cache/types.ts';
import { makeEncoder } from '../src/encoders/index.ts';
import { fitResponseModelOfSteps, teamIds, type Environment } from '../src/env/environment.ts';
import { stoppableSteps } from '../src/io/interrupt.ts';
import { behaviorInit } from '../src/policy/behavior.ts';
import { initWeights, type PolicyShape, type Weights } from '../src/policy/model.ts';
import { openEnvironmentSteps } from '../src/recording.ts';
import { ensureDefaultCache } from '../src/sim/generate.ts';
import { architectureOf, debateSettingsOf, type TrainConfig } from './config.ts';
import { checkTrainingData } from './smallData.ts';
import { startingWeights } from './startFrom.ts';
import type { SetupPart } from './timeSplit.ts';

export interface Setup {
  config: TrainConfig;
  cache: Cache;
  trainEnv: Environment;
  evalEnv: Environment;
  emb: Embeddings;
  shape: PolicyShape;
}

/** `part`: marks where each part of setup starts (train/timeSplit.ts), for the run's time split. */
export async function setup(config: TrainConfig, part: (p: SetupPart) => void = () => {}): Promise<Setup> {
  ensureDefaultCache(config.cache);
  part('load');
  // A cache is kept loaded between runs of a process (a warm grid worker), except one the run records into.
  // The load, the environments' indexes and the response model's fit are steps: Ctrl-C stops setup between them.
  const cache = await stoppableSteps(runCacheSteps(config.cache, config.miss === 'record'));
  part('environments');
  // With miss = record both environments ask one endpoint and share its journal and spending.
  const trainEnv = await stoppableSteps(openEnvironmentSteps(cache, debateSettingsOf(config, 'train'), { endpoints: config.endpoints }));
  const evalEnv = await stoppableSteps(openEnvironmentSteps(cache, debateSettingsOf(config, 'eval'), { shared: trainEnv.recording }));
  // Fitted now rather than at the first miss, which falls inside a training step with no stop point.
  if (trainEnv.settings.miss === 'model') await stoppableSteps(fitResponseModelOfSteps(trainEnv));
  part('other');
  for (const warning of checkTrainingData(trainEnv, evalEnv, config.batchSize)) console.error(`warning: ${warning}`);
  part('embeddings');
  const emb = await keptEmbeddings(config.cache, cache, await makeEncoder(config.encoder));
  part('other');
  const shape: PolicyShape = { ...architectureOf(config), dim: emb.dim, agents: trainEnv.team.length, rounds: trainEnv.rounds };
  return { config, cache, trainEnv, evalEnv, emb, shape };
}

/** Fresh weights, or (setting `from`) a trained policy's to fine-tune (train/startFrom.ts). */
export function initialWeights(s: Setup): Weights {
  if (s.config.from !== null) return startingWeights(s.config.from, s.shape, teamIds(s.trainEnv), s.emb.encoder);
  const w = initWeights(s.shape, String(s.config.seed));
  if (s.shape.behavior === 'mean') w.behavior.data = behaviorInit(s.cache, s.emb, s.trainEnv.team, s.shape.initSamples, String(s.config.seed));
  return w;
}
