// REINFORCE training of a FuseGLU pruning policy (SPEC §7), top to bottom:
//   for each epoch: shuffle the train split; for each batch of debates:
//     sample keep/prune from p_keep and replay the debates (rollout),
//     reward every action (SPEC §5), accumulate returns G over the influence graph (SPEC §6),
//     advantage = G - running mean of G per (round, position),
//     one Adam step on -(advantage * log pi(action)) - entropy bonus;
//   evaluate on validation every `evalEvery` epochs, keep the best; checkpoint every epoch.
// Everything random derives from (seed, epoch), so a resumed run repeats the uninterrupted one.
import { shuffle } from '../src/shuffle.ts';
import { stringify } from 'csv-stringify/sync';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import seedrandom from 'seedrandom';
import { addTiers } from '../eval/baselines.ts';
import { evaluatePolicy } from '../eval/policyEval.ts';
import { ensureEmbeddings, type Embeddings } from '../src/cache/embeddings.ts';
import { loadCache, type Cache } from '../src/cache/load.ts';
import { writeFileAtomic } from '../src/cache/write.ts';
import { makeEncoder } from '../src/encoders/index.ts';
import { emptyTiers, keepAll, makeEnvironment, replay, splitQuestions, TIERS, type Environment, type TierCounts } from '../src/env/environment.ts';
import { saveCheckpoint, loadCheckpoint, type Checkpoint, type TrainingState } from '../src/policy/artifact.ts';
import { zeroMoments, type PolicyEngine } from '../src/policy/engine.ts';
import { initWeights, type PolicyShape, type Weights } from '../src/policy/model.ts';
import { rollout } from '../src/policy/rollout.ts';
import type { ComputeSettings } from '../src/policy/backends.ts';
import { createEngine } from '../src/policy/engines.ts';
import { progress } from '../src/progress.ts';
import { debateRewards, influenceWeights, meanResponseTokens, returns } from '../src/reward.ts';
import { architectureOf, computeOf, debateSettingsOf, rewardSettingsOf, type TrainConfig } from './config.ts';

export const LOG_COLUMNS = [
  'type', 'epoch', 'step', 'stage', 'k', 'loss', 'entropy', 'meanReward', 'meanReturn', 'keepRate',
  'accuracy', 'costPct', 'keptEdges', ...TIERS.map((t) => `tier_${t}`), 'best', 'decisionsPerSecond',
] as const;
export type LogLine = Partial<Record<(typeof LOG_COLUMNS)[number], number | string | boolean>>;

export const runFiles = (out: string) => ({
  config: join(out, 'config.json'),
  checkpoint: join(out, 'checkpoint.json'),
  best: join(out, 'best.json'),
  jsonl: join(out, 'log.jsonl'),
  csv: join(out, 'log.csv'),
});

function tierShares(t: TierCounts): LogLine {
  const total = TIERS.reduce((s, k) => s + t[k], 0) || 1;
  return Object.fromEntries(TIERS.map((k) => [`tier_${k}`, round4(t[k] / total)]));
}
const round4 = (x: number) => Math.round(x * 1e4) / 1e4;

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
  const cache = loadCache(config.cache);
  if (config.miss === 'record') throw new Error('setting miss: record is not supported in training (the trainer never calls a model); use model or signature');
  const trainEnv = makeEnvironment(cache, debateSettingsOf(config, 'train'));
  const evalEnv = makeEnvironment(cache, debateSettingsOf(config, 'eval'));
  const emb = await ensureEmbeddings(config.cache, cache, await makeEncoder(config.encoder));
  const shape: PolicyShape = { ...architectureOf(config), dim: emb.dim, agents: trainEnv.team.length, rounds: trainEnv.rounds };
  return { config, cache, trainEnv, evalEnv, emb, shape };
}

export function initialWeights(s: Setup): Weights {
  const w = initWeights(s.shape, String(s.config.seed));
  if (s.shape.behavior === 'mean') w.behavior.data = behaviorInit(s.cache, s.emb, s.trainEnv.team, s.shape.initSamples, String(s.config.seed));
  return w;
}

function appendLog(out: string, lines: LogLine[], header: boolean) {
  const files = runFiles(out);
  const jsonl = existsSync(files.jsonl) ? readFileSync(files.jsonl, 'utf8') : '';
  const csv = existsSync(files.csv) ? readFileSync(files.csv, 'utf8') : '';
  writeFileAtomic(files.jsonl, [jsonl, ...lines.map((l) => JSON.stringify(l) + '\n')]);
  writeFileAtomic(files.csv, [csv, stringify(lines.map((l) => LOG_COLUMNS.map((c) => l[c] ?? '')), { header, columns: [...LOG_COLUMNS] })]);
}

/** Drop log lines of epochs after `epoch` (a resumed run redoes them). */
function truncateLog(out: string, epoch: number) {
  const files = runFiles(out);
  const kept = existsSync(files.jsonl)
    ? readFileSync(files.jsonl, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as LogLine).filter((l) => Number(l.epoch) <= epoch)
    : [];
  writeFileAtomic(files.jsonl, kept.map((l) => JSON.stringify(l) + '\n'));
  writeFileAtomic(files.csv, [stringify(kept.map((l) => LOG_COLUMNS.map((c) => l[c] ?? '')), { header: true, columns: [...LOG_COLUMNS] })]);
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
  const perDebate = (shape.rounds - 1) * A * A;
  const weights = resumed?.engine.weights ?? initialWeights(s);
  const engine: PolicyEngine = await createEngine(computeOf(config), shape, resumed?.engine ?? { weights, step: 0, m: zeroMoments(weights), v: zeroMoments(weights) }, config);
  const state: TrainingState = resumed
    ? { epoch: resumed.epoch, step: resumed.step, baseline: resumed.baseline, best: resumed.best }
    : { epoch: 0, step: 0, baseline: new Array(perDebate / A).fill(0), best: null };
  if (resumed) truncateLog(config.out, state.epoch);
  const say = o.log ?? ((line: string) => console.error(line));
  say(`training on ${cache.file} (${engine.name}); team ${trainEnv.team.map((a) => cache.agents[a].id).join(', ')}; ${config.epochs} epochs from epoch ${state.epoch + 1}; run ${config.out}`);

  const train = splitQuestions(trainEnv, 'train').questions;
  const validation = splitQuestions(evalEnv, 'validation').questions;
  const fullCost = new Map([...train, ...validation].map((q) => [q.index, replay(evalEnv, q.index, keepAll).cost]));
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
      const started = performance.now(); // decisions/s of the whole step: rollout, returns, engine step, log line
      const batch = order.slice(b * config.batchSize, (b + 1) * config.batchSize);
      const r = await rollout(engine, trainEnv, emb, batch, { mode: { sample }, debateSeed: `${config.seed}|${epoch}`, conditioning: shape.conditioning });
      // Returns of every action; then the running mean per (round, position), which includes this
      // batch (weight max(1 - momentum, 1/steps), so the first batch is centered too); then advantages.
      const G = new Float32Array(r.batch.n);
      const sums = new Float64Array(state.baseline.length);
      const slotOf = (x: number) => Math.floor(x / (A * A)) * A + (x % A);
      let rewardSum = 0;
      r.results.forEach((d, k) => {
        const rw = debateRewards(reward, d, meanTokens, (t, i, j) => r.tokens[k * perDebate + (t - 2) * A * A + i * A + j]);
        G.set(returns(W, rw), k * perDebate);
        rw.forEach((x) => (rewardSum += x));
      });
      G.forEach((g, x) => (sums[slotOf(x % perDebate)] += g));
      const weight = Math.max(1 - config.baselineMomentum, 1 / (state.step + 1));
      state.baseline = state.baseline.map((v, slot) => v + weight * (sums[slot] / (r.results.length * A) - v));
      const advantages = G.map((g, x) => g - state.baseline[slotOf(x % perDebate)]);
      const returnSum = G.reduce((a, g) => a + g, 0);
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
        ...tierShares(tiers), decisionsPerSecond: Math.round(r.batch.n / ((performance.now() - started) / 1000)),
      };
      lines.push(line);
      bar.update(b + 1, undefined, `loss ${line.loss} keep ${line.keepRate} acc ${line.accuracy} cost ${line.costPct}%`);
    }
    bar.stop();
    state.epoch = epoch;
    if (epoch % config.evalEvery === 0 || epoch === config.epochs) {
      const v = await evaluatePolicy(engine, evalEnv, emb, validation, 'policy');
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
  return { checkpoint, setup: s };
}

