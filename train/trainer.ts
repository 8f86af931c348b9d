// REINFORCE training of a FuseGLU pruning policy (SPEC §7), top to bottom:
//   for each epoch: shuffle the train split; for each batch of debates:
//     sample keep/prune from p_keep and replay the debates (rollout),
//     reward every action (SPEC §5), accumulate returns G over the influence graph (SPEC §6),
//     advantage = G - running mean of G per (round, position),
//     one Adam step on -(advantage * log pi(action)) - entropy bonus;
//   evaluate on validation every `evalEvery` epochs, keep the best; checkpoint every epoch.
// Everything random derives from (seed, epoch), so a resumed run repeats the uninterrupted one.
import { shuffle } from '../src/shuffle.ts';
import { existsSync, mkdirSync } from 'node:fs';
import seedrandom from 'seedrandom';
import { addTiers } from '../eval/baselines.ts';
import { evaluatePolicy } from '../eval/policyEval.ts';
import { ensureEmbeddings, type Embeddings } from '../src/cache/embeddings.ts';
import { loadCache, type Cache } from '../src/cache/load.ts';
import { writeFileAtomic } from '../src/cache/write.ts';
import { makeEncoder } from '../src/encoders/index.ts';
import { emptyTiers } from '../src/env/tiers.ts';
import { keepAll, playDebates, type DebateResult } from '../src/env/debate.ts';
import { makeEnvironment, splitQuestions, type Environment } from '../src/env/environment.ts';
import { saveCheckpoint, loadCheckpoint, type Checkpoint, type TrainingState } from '../src/policy/artifact.ts';
import { zeroMoments, type PolicyEngine } from '../src/policy/engine.ts';
import { initWeights, type PolicyShape, type Weights } from '../src/policy/model.ts';
import { rollout } from '../src/policy/rollout.ts';
import type { ComputeSettings } from '../src/policy/backends.ts';
import { createEngine } from '../src/policy/engines.ts';
import { progress } from '../src/progress.ts';
import { ensureDefaultCache } from '../src/sim/generate.ts';
import { closeRecording, openRecording, recordingSummary } from '../src/recording.ts';
import { influenceWeights, meanResponseTokens } from '../src/reward.ts';
import { advantagesOf } from './advantage.ts';
import { appendLog, round4, runFiles, tierShares, truncateLog, type LogLine } from './runFolder.ts';
import { checkTrainingData } from './smallData.ts';
import { architectureOf, computeOf, debateSettingsOf, rewardSettingsOf, type TrainConfig } from './config.ts';

/** Behavior embeddings: mean embedding of each member's responses to `initSamples` validation questions. */
export function behaviorInit(cache: Cache, emb: Embeddings, team: number[], initSamples: number | null, seed: string): Float32Array {
  const D = emb.dim;
  const val = shuffle(cache.questions.filter((q) => q.split === 'validation').map((q) => q.index), seedrandom(`${seed}|behavior`));
  const chosen = new Set(initSamples === null ? val : val.slice(0, initSamples));
  const out = new Float32Array(team.length * D);
  team.forEach((a, i) => {
    const rs = cache.responses.filter((r) => r.a === a && chosen.has(r.q));
    if (rs.length === 0) throw new Error(`behavior init: agent '${cache.agents[a].id}' has no responses to validation questions in ${cache.file}`);
    for (const r of rs) for (let k = 0; k < D; k++) out[i * D + k] += emb.responses[r.index][k] / rs.length;
  });
  return out;
}

export interface Setup {
  config: TrainConfig;
  cache: Cache;
  trainEnv: Environment;
  evalEnv: Environment;
  emb: Embeddings;
  shape: PolicyShape;
}

export async function setup(config: TrainConfig): Promise<Setup> {
  ensureDefaultCache(config.cache);
  const cache = loadCache(config.cache);
  // With miss = record both environments ask one endpoint and share its journal and spending.
  const recording = config.miss === 'record' ? openRecording(config.cache, cache) : undefined;
  const trainEnv = makeEnvironment(cache, debateSettingsOf(config, 'train'), recording);
  const evalEnv = makeEnvironment(cache, debateSettingsOf(config, 'eval'), recording);
  for (const warning of checkTrainingData(trainEnv, evalEnv, config.batchSize)) console.error(`warning: ${warning}`);
  const emb = await ensureEmbeddings(config.cache, cache, await makeEncoder(config.encoder));
  const shape: PolicyShape = { ...architectureOf(config), dim: emb.dim, agents: trainEnv.team.length, rounds: trainEnv.rounds };
  return { config, cache, trainEnv, evalEnv, emb, shape };
}

export function initialWeights(s: Setup): Weights {
  const w = initWeights(s.shape, String(s.config.seed));
  if (s.shape.behavior === 'mean') w.behavior.data = behaviorInit(s.cache, s.emb, s.trainEnv.team, s.shape.initSamples, String(s.config.seed));
  return w;
}

export interface TrainOptions {
  resume?: boolean;
  /** Stop after this many epochs of this call (tests of interruption); the checkpoint stays. */
  stopAfterEpochs?: number;
  log?: (line: string) => void;
  /** Engine, threads, backend for a resumed run (new runs take them from the config). */
  compute?: Partial<ComputeSettings>;
}

export async function train(config: TrainConfig, o: TrainOptions = {}): Promise<{ checkpoint: Checkpoint; setup: Setup }> {
  const files = runFiles(config.out);
  if (!o.resume && existsSync(files.checkpoint)) throw new Error(`${config.out} already holds a run: pass --resume to continue it, or choose another --out`);
  const resumed = o.resume ? loadCheckpoint(files.checkpoint) : undefined;
  // A resumed run keeps its saved settings, except how it computes (engine, threads, backend).
  if (resumed) config = { ...(resumed.config as TrainConfig), ...o.compute };
  mkdirSync(config.out, { recursive: true });
  writeFileAtomic(files.config, [JSON.stringify(config, null, 2) + '\n']);

  const s = await setup(config);
  const { cache, trainEnv, evalEnv, emb, shape } = s;
  const A = shape.agents;
  const weights = resumed?.engine.weights ?? initialWeights(s);
  const engine: PolicyEngine = await createEngine(computeOf(config), shape, resumed?.engine ?? { weights, step: 0, m: zeroMoments(weights), v: zeroMoments(weights) }, config);
  const state: TrainingState = resumed
    ? { epoch: resumed.epoch, step: resumed.step, baseline: resumed.baseline, best: resumed.best }
    : { epoch: 0, step: 0, baseline: new Array((shape.rounds - 1) * A).fill(0), best: null };
  if (resumed) truncateLog(config.out, state.epoch);
  const say = o.log ?? ((line: string) => console.error(line));
  say(`training on ${cache.file} (${engine.name}); team ${trainEnv.team.map((a) => cache.agents[a].id).join(', ')}; ${config.epochs} epochs from epoch ${state.epoch + 1}; run ${config.out}`);

  const train = splitQuestions(trainEnv, 'train').questions;
  const validation = splitQuestions(evalEnv, 'validation').questions;
  const full = replayable(await playDebates(evalEnv, [...train, ...validation].map((q) => q.index), keepAll), cache, 'Full-Debate');
  const fullCost = new Map(full.map((d) => [d.q, d.cost]));
  const W = influenceWeights(A, shape.rounds, config.beta, config.gamma);
  const meanTokens = meanResponseTokens(cache);
  const checkpointOf = async (): Promise<Checkpoint> => ({
    format: 'cpp-checkpoint', version: 1, config, shape, team: trainEnv.team.map((a) => cache.agents[a].id), encoder: emb.encoder,
    ...state, engine: await engine.getState(),
  });

  let epochsThisCall = 0;
  for (let epoch = state.epoch + 1; epoch <= config.epochs; epoch++) {
    const stage = epoch <= config.stage1Epochs ? 1 : 2;
    const reward = rewardSettingsOf(config, stage === 1 ? config.k1 : config.k);
    const order = shuffle(train.map((q) => q.index), seedrandom(`${config.seed}|shuffle|${epoch}`));
    const sample = seedrandom(`${config.seed}|sample|${epoch}`);
    const steps = Math.ceil(order.length / config.batchSize);
    const bar = progress(`epoch ${epoch}/${config.epochs}`, steps);
    const lines: LogLine[] = [];
    for (let b = 0; b < steps; b++) {
      const batch = order.slice(b * config.batchSize, (b + 1) * config.batchSize);
      const r = await rollout(engine, trainEnv, emb, batch, { mode: { sample }, debateSeed: `${config.seed}|${epoch}`, conditioning: shape.conditioning });
      replayable(r.results, cache, 'a training debate');
      const { advantages, baseline, rewardSum, returnSum } = advantagesOf(r, { reward, W, meanTokens, agents: A, baseline: state.baseline, momentum: config.baselineMomentum, step: state.step });
      state.baseline = baseline;
      const stats = await engine.trainStep(r.batch, r.actions, advantages);
      state.step++;
      const tiers = emptyTiers();
      r.results.forEach((d) => addTiers(tiers, d.tiers));
      const keepRate = round4(r.actions.reduce((a, x) => a + x, 0) / r.batch.n);
      const line: LogLine = {
        type: 'step', epoch, step: state.step, stage, k: reward.k, loss: round4(stats.loss), entropy: round4(stats.entropy),
        meanReward: round4(rewardSum / r.batch.n), meanReturn: round4(returnSum / r.batch.n), keepRate,
        accuracy: round4(r.results.filter((d) => d.finalCorrect).length / r.results.length),
        costPct: round4((100 * r.results.reduce((a, d) => a + d.cost, 0)) / r.results.reduce((a, d) => a + fullCost.get(d.q)!, 0)),
        ...tierShares(tiers),
      };
      lines.push(line);
      bar.update(b + 1, undefined, `loss ${line.loss} keep ${line.keepRate} acc ${line.accuracy} cost ${line.costPct}%`);
    }
    bar.stop();
    state.epoch = epoch;
    if (epoch % config.evalEvery === 0 || epoch === config.epochs) {
      const v = await evaluatePolicy(engine, evalEnv, emb, validation, 'policy');
      if (v.skipped.length) throw new Error(`validation at miss = ${config.miss}: questions ${v.skipped.slice(0, 5).join(', ')} cannot be replayed; train with miss = model`);
      const accuracy = v.correct / v.questions;
      const costPct = (100 * v.cost) / validation.reduce((a, q) => a + fullCost.get(q.index)!, 0);
      const isBest = !state.best || accuracy > state.best.accuracy || (accuracy === state.best.accuracy && costPct < state.best.costPct);
      if (isBest) state.best = { epoch, accuracy, costPct };
      lines.push({ type: 'eval', epoch, step: state.step, accuracy: round4(accuracy), costPct: round4(costPct), keptEdges: round4(v.keptEdges / v.maxEdges), ...tierShares(v.tiers), best: isBest });
      say(`epoch ${epoch}: validation accuracy ${(100 * accuracy).toFixed(1)}%, cost ${costPct.toFixed(1)}% of Full-Debate, kept ${(100 * v.keptEdges / v.maxEdges).toFixed(1)}% of edges${isBest ? ' (best)' : ''}`);
      if (isBest) saveCheckpoint(files.best, await checkpointOf());
    }
    appendLog(config.out, lines, epoch === 1);
    saveCheckpoint(files.checkpoint, await checkpointOf());
    if (o.stopAfterEpochs !== undefined && ++epochsThisCall >= o.stopAfterEpochs) break;
  }
  const checkpoint = await checkpointOf();
  engine.dispose();
  if (trainEnv.recording) {
    say(recordingSummary(trainEnv.recording));
    closeRecording(trainEnv.recording);
  }
  await (await import('../eval/plots.ts')).writeRunCurves(config.out); // learning-curves.svg from log.jsonl
  return { checkpoint, setup: s };
}

/** Training never leaves a debate out: a miss under miss = signature is an error naming the question. */
function replayable(results: DebateResult[], cache: Cache, what: string): DebateResult[] {
  const missed = results.find((d) => d.missed);
  if (missed) throw new Error(`${what} on question '${cache.questions[missed.q].id}' cannot be replayed: ${missed.missed}`);
  return results;
}

