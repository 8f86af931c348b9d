// REINFORCE training of a FuseGLU pruning policy (docs/method.md §7), top to bottom:
//   for each epoch: shuffle the train split; for each batch of questions:
//     play each question `rollouts` times: sample keep/prune from p_keep and replay (rollout),
//     reward every action (docs/method.md §5, plus the budget cost term), accumulate returns G over the
//     influence graph (docs/method.md §6), advantage = G - baseline, optionally normalized (advantage.ts),
//     one Adam step on -(advantage * log pi(action)) - entropy bonus,
//     with a target budget: one dual-ascent step on the cost multiplier;
//   evaluate on validation every `evalEvery` epochs, keep the best; checkpoint every epoch.
// Everything random derives from (seed, epoch), so a resumed run repeats the uninterrupted one.
import { shuffle } from '../src/shuffle.ts';
import { existsSync } from 'node:fs';
import seedrandom from 'seedrandom';
import { embeddingsPath, type Embeddings } from '../src/cache/embeddings.ts';
import { keptCache, keptEmbeddings } from '../src/cache/kept.ts';
import type { Cache } from '../src/cache/types.ts';
import { cacheFilePath, loadCache } from '../src/cache/load.ts';
import { writeFileAtomic } from '../src/io/atomic.ts';
import { makeEncoder } from '../src/encoders/index.ts';
import { addTiers, emptyTiers } from '../src/env/tiers.ts';
import { keepAll, playDebates } from '../src/env/debate.ts';
import { splitQuestions, teamIds, type Environment } from '../src/env/environment.ts';
import { saveCheckpoint, type Checkpoint, type TrainingState } from '../src/policy/artifact.ts';
import { checkResumed, readCheckpoint } from './checkpoint.ts';
import { checkTarget } from './budget.ts';
import { lockFolder } from '../src/io/lock.ts';
import { letSignalsIn } from '../src/io/interrupt.ts';
import { zeroMoments } from '../src/policy/engine.ts';
import { initWeights, type PolicyShape, type Weights } from '../src/policy/model.ts';
import { behaviorInit } from '../src/policy/behavior.ts';
import { rowsByAgent, teamRows } from '../src/policy/behaviorRows.ts';
import { evaluatePolicy } from '../src/policy/evaluate.ts';
import { decisionRates, madeDecisions, rollout } from '../src/policy/rollout.ts';
import { decisionLayout } from '../src/policy/decisionLayout.ts';
import { type ComputeSettings, computeOf } from '../src/policy/backends.ts';
import { createEngine } from '../src/policy/createEngine.ts';
import { runProgress } from './runProgress.ts';
import { keepRateWatch } from './pinned.ts';
import { recordRun, startSession } from '../src/provenance.ts';
import { ensureDefaultCache } from '../src/sim/generate.ts';
import { closeRecording, openEnvironment, recordingSummary } from '../src/recording.ts';
import { influenceWeights } from '../src/reward.ts';
import { baselineSize, dualStep } from './advantage.ts';
import { identityDifferences, runContentHashes } from './identity.ts';
import { noCheckpoint, runSettings, settingsAddedSince } from './plan.ts';
import { clearRun, openRunLog, round4, runFiles, tierShares, truncateLog } from './runFolder.ts';
import { checkTrainingData } from './smallData.ts';
import { architectureOf, debateSettingsOf, rewardSettingsOf, runDone, type TrainConfig } from './config.ts';
import { startingWeights } from './startFrom.ts';
import { openTeams, teamDraw, teamsNote, teamWith } from './teams.ts';
import { testTracer } from './trace.ts';
import { RefusedError } from '../src/io/errors.ts';
import { phaseClock, splitLine, type TimeSplit } from './timeSplit.ts';
import { costRatioOf, replayable, unreplayable } from './stepResults.ts';

interface Setup {
  config: TrainConfig;
  cache: Cache;
  trainEnv: Environment;
  evalEnv: Environment;
  emb: Embeddings;
  shape: PolicyShape;
}

export async function setup(config: TrainConfig): Promise<Setup> {
  ensureDefaultCache(config.cache);
  // A cache is kept loaded between runs of a process (a warm grid worker), except one the run records into.
  const cache = config.miss === 'record' ? loadCache(config.cache) : keptCache(config.cache);
  // With miss = record both environments ask one endpoint and share its journal and spending.
  const trainEnv = openEnvironment(cache, debateSettingsOf(config, 'train'), { endpoints: config.endpoints });
  const evalEnv = openEnvironment(cache, debateSettingsOf(config, 'eval'), { shared: trainEnv.recording });
  for (const warning of checkTrainingData(trainEnv, evalEnv, config.batchSize)) console.error(`warning: ${warning}`);
  const emb = await keptEmbeddings(config.cache, cache, await makeEncoder(config.encoder));
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

export interface TrainOptions {
  resume?: boolean;
  /** Train anew in a folder that holds a run: its files are replaced (without it, an error). */
  force?: boolean;
  /** Stop after this many epochs of this call (tests of interruption); the checkpoint stays. */
  stopAfterEpochs?: number;
  log?: (line: string) => void;
  /** Engine, threads, backend for a resumed run (new runs take them from the config). */
  compute?: Partial<ComputeSettings>;
  /** The command this process's provenance entry names (default: this process's; a warm training process names the run it was asked for). */
  command?: string[];
}

/**
 * Train (or resume) the run in `config.out`, which is locked meanwhile (a second writer is refused,
 * naming this process). Everything that can refuse the run (settings, cache, embeddings, a target
 * below the cost floor) is checked before the folder is written.
 */
export async function train(config: TrainConfig, o: TrainOptions = {}): Promise<{ checkpoint: Checkpoint; setup: Setup; time: TimeSplit }> {
  const unlock = lockFolder(config.out, 'a training run');
  try {
    return await trainLocked(config, o);
  } finally {
    unlock();
  }
}

async function trainLocked(config: TrainConfig, o: TrainOptions): Promise<{ checkpoint: Checkpoint; setup: Setup; time: TimeSplit }> {
  const clock = phaseClock();
  const files = runFiles(config.out);
  const held = existsSync(files.checkpoint);
  if (o.resume && !held) throw new RefusedError(noCheckpoint(config.out));
  if (!o.resume && held && !o.force)
    throw new RefusedError(
      `${config.out} already holds a run: pass --resume to continue it, --force to train it anew (its files are replaced), or choose another --out`,
    );
  const resumed = o.resume ? readCheckpoint(files.checkpoint) : undefined;
  const say = o.log ?? ((line: string) => console.error(line));
  // A resumed run keeps its saved settings, except how it computes (engine, threads, backend) and
  // where it is (its folder now).
  const added = resumed ? settingsAddedSince(resumed) : [];
  if (added.length) say(`resuming a run saved without settings ${added.join(', ')}: they take their defaults`);
  config = runSettings(config, resumed, o.compute);
  ensureDefaultCache(config.cache);
  // A run is its settings and its cache's content (train/identity.ts): a resumed run goes on only on the data it started with.
  const contentHash = await runContentHashes()(config);
  if (resumed) {
    const differ = identityDifferences(
      { config: resumed.config as Partial<TrainConfig>, cacheHash: resumed.cacheHash },
      { settings: config, cacheHash: contentHash },
    );
    if (differ.length)
      throw new RefusedError(
        `${config.out} cannot resume: ${differ.join('; ')}; it would go on with other data: restore the ` +
          `cache, or train anew there with --force (train --config ${files.config} --out ${config.out} --force)`,
      );
  }

  const s = await setup(config);
  const { cache, trainEnv, evalEnv, emb, shape } = s;
  const A = shape.agents;
  const train = splitQuestions(trainEnv, 'train').questions;
  const validation = splitQuestions(evalEnv, 'validation').questions;
  const full = replayable(
    await playDebates(
      evalEnv,
      [...train, ...validation].map((q) => q.index),
      keepAll,
    ),
    cache,
    'Full-Debate',
  );
  if (config.targetCost !== null)
    await checkTarget(
      config.targetCost,
      evalEnv,
      train.map((q) => q.index),
      shape.decisions,
    );
  if (resumed)
    checkResumed(
      files.checkpoint,
      resumed,
      shape,
      emb.encoder,
      trainEnv.team.map((a) => cache.agents[a].id),
      baselineSize(config.baseline, A, shape.rounds),
    );

  const start = resumed ? undefined : initialWeights(s); // a policy to fine-tune is checked here
  // Checked: the run folder is written from here on. A new run starts from an empty folder (a run
  // killed before its first checkpoint, or --force) and writes its epoch-0 checkpoint before its
  // first log line, so a kill at any later point leaves a checkpoint to resume from.
  if (!resumed) clearRun(config.out);
  writeFileAtomic(files.config, [JSON.stringify(config, null, 2) + '\n']);
  const weights = resumed?.engine.weights ?? start!;
  const engine = await createEngine(
    computeOf(config),
    shape,
    resumed?.engine ?? { weights, step: 0, m: zeroMoments(weights), v: zeroMoments(weights) },
    config,
    config.batchSize * config.rollouts * decisionLayout(A, shape.rounds, shape.decisions).perDebate, // decisions a step at most (auto's choice of the GPU)
  );
  const state: TrainingState & { costMultiplier: number } = resumed
    ? { epoch: resumed.epoch, step: resumed.step, baseline: resumed.baseline, costMultiplier: resumed.costMultiplier ?? config.costWeight, best: resumed.best }
    : { epoch: 0, step: 0, baseline: new Array(baselineSize(config.baseline, A, shape.rounds)).fill(0), costMultiplier: config.costWeight, best: null };
  // The checkpoint holds the settings but the folder (a path saved inside a run is never used to write).
  const { out: _out, ...saved } = config;
  const checkpointOf = async (): Promise<Checkpoint> => ({
    format: 'cpp-checkpoint',
    version: 1,
    config: saved,
    cacheHash: contentHash,
    shape,
    team: trainEnv.team.map((a) => cache.agents[a].id),
    encoder: emb.encoder,
    ...(shape.behaviorRows && { rows: rowsByAgent(teamIds(trainEnv), teamRows(cache, trainEnv.team)) }),
    ...state,
    engine: await engine.getState(),
  });
  clock.enter('checkpoints');
  if (!resumed) saveCheckpoint(files.checkpoint, await checkpointOf());
  clock.enter('setup');
  // Provenance and log: a resumed run adds a session and continues the log after its checkpoint;
  // a new run starts both afresh.
  const provenance = recordRun(
    files.provenance,
    await startSession({
      caches: [cacheFilePath(config.cache)],
      embeddings: [embeddingsPath(config.cache, emb.encoder)],
      compute: engine.ran,
      inputs: config.from === null ? [] : [config.from],
      command: o.command,
    }),
    !!resumed,
  );
  if (resumed) truncateLog(config.out, state.epoch);
  const log = openRunLog(config.out, state.step + 1);
  say(
    `training on ${cache.file} (${engine.name}); team ${trainEnv.team.map((a) => cache.agents[a].id).join(', ')}; ` +
      `${config.epochs} epochs from epoch ${state.epoch + 1}; run ${config.out} (TensorBoard: tensorboard --logdir ${config.out})`,
  );

  const fullCost = new Map(full.map((d) => [d.q, d.cost]));
  const W = influenceWeights(A, shape.rounds, config.beta, config.gamma, shape.decisions);
  const teams = await openTeams(config, teamWith(config, trainEnv, emb, fullCost), await makeEncoder(config.encoder)); // train/teams.ts
  const credit = teams[0].credit;
  if (teams.length > 1) say(teamsNote(config, teams));
  const creditNote = credit.note();
  if (creditNote) say(creditNote);

  const pinned = keepRateWatch(config, say); // warns once when the policy collapses to keep all or none
  const trace = await testTracer(config.traceEvery, evalEnv, emb);
  if (state.step === 0) await trace?.at(engine, 0, 1, log);
  let epochsThisCall = 0;
  const validates = (epoch: number) => epoch % config.evalEvery === 0 || epoch === config.epochs;
  const bar = runProgress({
    epochs: config.epochs,
    fromEpoch: state.epoch,
    stepsPerEpoch: Math.ceil(train.length / config.batchSize),
    validates,
    stepDebates: config.batchSize * config.rollouts,
    validationDebates: validation.length,
  });
  for (let epoch = state.epoch + 1; !runDone(config, state); epoch++) {
    const stage = epoch <= config.stage1Epochs ? 1 : 2;
    const reward = rewardSettingsOf(config, stage === 1 ? config.k1 : config.k);
    const order = shuffle(
      train.map((q) => q.index),
      seedrandom(`${config.seed}|shuffle|${epoch}`),
    );
    const sample = seedrandom(`${config.seed}|sample|${epoch}`);
    const drawTeam = teamDraw(config, teams, epoch);
    const debateSeed = `${config.seed}|${epoch}`;
    const steps = Math.ceil(order.length / config.batchSize);
    const started = Date.now();
    for (let b = 0; b < steps && !runDone(config, state); b++) {
      clock.enter('steps');
      const stepStarted = performance.now(); // decisions/s of the whole step: rollout, returns, engine step, log line
      // Each question `rollouts` times in a row (the grouping the rloo baseline reads); the
      // environment's own draws share the question's seed, so the rollouts differ by their decisions.
      const questions = order.slice(b * config.batchSize, (b + 1) * config.batchSize);
      const batch = questions.flatMap((q) => new Array<number>(config.rollouts).fill(q));
      const team = drawTeam();
      const r = await rollout(engine, team.env, team.emb, batch, { mode: { sample }, debateSeed, conditioning: shape.conditioning });
      replayable(r.results, team.cache, 'a training debate');
      const costMultiplier = state.costMultiplier;
      const a = await team.credit.advantages(
        r,
        {
          reward,
          W,
          meanTokens: team.meanTokens,
          agents: A,
          baseline: config.baseline,
          rollouts: config.rollouts,
          normalize: config.normalizeAdvantages,
          state: state.baseline,
          momentum: config.baselineMomentum,
          step: state.step,
          budget: { multiplier: costMultiplier, priceIn: team.priceIn, fullCost: (q) => team.fullCost.get(q)! },
        },
        { epoch, debateSeed },
      );
      state.baseline = a.state;
      const made = madeDecisions(r, a.advantages);
      const stats = await engine.trainStep(made.batch, made.actions, made.advantages);
      await letSignalsIn();
      state.step++;
      const costRatio = costRatioOf(r.results, team.fullCost);
      // The cost the target is held to: the greedy policy's on this step's questions (the policy
      // evaluation runs, more decisive than the sampled one), or the sampled decisions'.
      const dualCost =
        config.targetCost === null
          ? null
          : config.targetOn === 'sampled'
            ? costRatio
            : costRatioOf(
                (
                  await rollout(engine, team.env, team.emb, questions, {
                    mode: 'greedy',
                    debateSeed: `${config.seed}|${epoch}`,
                    conditioning: shape.conditioning,
                  })
                ).results,
                team.fullCost,
              );
      if (dualCost !== null) state.costMultiplier = dualStep(state.costMultiplier, dualCost, config.targetCost!, config.dualLr);
      const tiers = emptyTiers();
      r.results.forEach((d) => addTiers(tiers, d.tiers));
      const rates = Object.fromEntries(Object.entries(decisionRates(r)).map(([k, x]) => [k, round4(x)]));
      const line = {
        type: 'step' as const,
        epoch,
        step: state.step,
        stage,
        k: reward.k,
        loss: round4(stats.loss),
        entropy: round4(stats.entropy),
        meanReward: round4(a.rewardSum / r.batch.n),
        meanReturn: round4(a.returnSum / r.batch.n),
        ...rates,
        accuracy: round4(r.results.filter((d) => d.finalCorrect).length / r.results.length),
        costPct: round4(100 * costRatio),
        costMultiplier: round4(costMultiplier),
        ...(dualCost !== null && { dualCostPct: round4(100 * dualCost) }),
        ...(Number.isFinite(a.ownRewardCorrelation) && { ownRewardCorrelation: round4(a.ownRewardCorrelation) }),
        ...(Number.isFinite(a.otherRecipientShare) && { otherRecipientShare: round4(a.otherRecipientShare) }),
        ...tierShares(tiers),
        ...a.log,
        decisionsPerSecond: Math.round(r.batch.n / ((performance.now() - stepStarted) / 1000)),
      };
      log.write(line);
      await trace?.at(engine, state.step, epoch, log);
      pinned(rates.keepRate, state.step);
      bar.step(epoch, `loss ${line.loss} keep ${line.keepRate} acc ${line.accuracy} cost ${line.costPct}%`);
    }
    state.epoch = epoch;
    let isBest = false;
    if (validates(epoch) || runDone(config, state)) {
      clock.enter('validation');
      bar.validating(epoch);
      const v = await evaluatePolicy(engine, evalEnv, emb, validation, 'validation');
      bar.validated(epoch);
      if (v.skipped.length) throw unreplayable('a validation debate', v.skipped[0], v.missed!);
      const accuracy = v.correct / v.questions;
      const costPct = (100 * v.cost) / validation.reduce((a, q) => a + fullCost.get(q.index)!, 0);
      isBest = !state.best || accuracy > state.best.accuracy || (accuracy === state.best.accuracy && costPct < state.best.costPct);
      if (isBest) state.best = { epoch, accuracy, costPct };
      log.write({
        type: 'eval',
        epoch,
        step: state.step,
        accuracy: round4(accuracy),
        costPct: round4(costPct),
        keptEdges: round4(v.keptEdges / v.maxEdges),
        ...tierShares(v.tiers),
        best: isBest,
      });
      say(
        `epoch ${epoch}: validation accuracy ${(100 * accuracy).toFixed(1)}%, cost ${costPct.toFixed(1)}% of ` +
          `Full-Debate, kept ${((100 * v.keptEdges) / v.maxEdges).toFixed(1)}% of edges${isBest ? ' (best)' : ''}`,
      );
    }
    // At a best epoch best.json is this epoch's checkpoint: encoded once, both files written together.
    clock.enter('checkpoints');
    saveCheckpoint(isBest ? [files.checkpoint, files.best] : files.checkpoint, await checkpointOf());
    provenance.epoch(epoch, (Date.now() - started) / 1000);
    if (o.stopAfterEpochs !== undefined && ++epochsThisCall >= o.stopAfterEpochs) break;
  }
  bar.stop();
  clock.enter('end');
  if (runDone(config, state)) await trace?.end(engine, state.step, state.epoch, log);
  const checkpoint = await checkpointOf();
  engine.dispose();
  log.close();
  const creditSummary = credit.summary();
  if (creditSummary) say(creditSummary);
  if (trainEnv.recording) closeRecording(trainEnv.recording);
  await (await import('./curves.ts')).writeRunCurves(config.out); // learning-curves.svg from log.jsonl (vega loads only here)
  const time = clock.split();
  provenance.end(time);
  say(`time: ${splitLine(time)}`);
  // What the run's recording asked and spent comes last: the line a user acts on when a cap was reached.
  if (trainEnv.recording) say(recordingSummary(trainEnv.recording));
  return { checkpoint, setup: s, time };
}
