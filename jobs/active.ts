// `active`: active recording, offline RL whose data grows where the policy goes. Each round:
//   1. train a policy on the cache as it is (a fresh run with the same settings and seed, so that
//      what changes from round to round is the data, not the number of epochs);
//   2. measure it: the share of its lookups the tier-3 model answers (train and validation splits,
//      greedy decisions, miss = model), and validation accuracy under miss = model and under
//      miss = record (the endpoint's real answers, asked on a copy of the cache in memory, so that
//      they never reach the cache the next policy trains and is measured on);
//   3. replay it `passes` times with sampled decisions on the train split, collect the contexts it
//      visits that no cached response answers exactly, and record them, most visited first and, among
//      equally visited ones, most uncertain first (the recipient's keep probabilities near 0.5),
//      within the round's call and cost limits.
// A context whose recipient's own previous response or a kept response is itself a stand-in cannot
// be asked yet; it becomes askable once the response it stands in for is recorded, a round later.
// A rerun reuses finished training runs and journaled replies (it asks nothing twice).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import seedrandom from 'seedrandom';
import type { Split } from '../src/cache/format.ts';
import { ensureEmbeddings } from '../src/cache/embeddings.ts';
import type { Cache } from '../src/cache/types.ts';
import { loadCache } from '../src/cache/load.ts';
import { actionIndex, actionsPerDebate } from '../src/env/actions.ts';
import { splitQuestions, type Environment } from '../src/env/environment.ts';
import { recordResponses, RecordingStopped, type RecordRequest } from '../src/env/record.ts';
import type { PolicyArtifact } from '../src/policy/artifact.ts';
import { readAnyPolicy } from '../train/checkpoint.ts';
import type { PolicyEngine } from '../src/policy/engine.ts';
import { inferenceEngine } from '../src/policy/createEngine.ts';
import { encoderFor } from '../src/policy/inference.ts';
import { rollout } from '../src/policy/rollout.ts';
import { closeRecording, openEnvironment, type RecordingOptions } from '../src/recording.ts';
import { markdownTable, pct } from '../src/table.ts';
import { computeOf } from '../src/policy/backends.ts';
import { resolveConfig, type TrainConfig } from '../train/config.ts';
import { runFiles } from '../train/runFolder.ts';
import { isFinished } from '../train/runs.ts';
import { train } from '../train/trainer.ts';
import type { MethodResult } from '../src/env/tally.ts';
import { evaluatePolicy } from '../src/policy/evaluate.ts';
import { SettingsError } from '../src/io/errors.ts';

export interface ActiveOptions {
  /** Training settings of every round (their `cache` is the cache that grows; `out` and `endpoints` are not the rounds': see `recording`). */
  config: TrainConfig;
  /** Job folder: round-N/ holds round N's training run. */
  out: string;
  /** Recording rounds; the job trains and measures once more after the last. */
  rounds: number;
  /** Sampled replays of the train split per round that count visits. */
  passes: number;
  /** Limits of each round's recording, its concurrency, and its endpoints (a team file, or the endpoint itself; default: the cache's own). */
  recording: RecordingOptions;
  /** Validation accuracy under miss = record too (asks the endpoint on a copy of the cache each round). */
  evalRecord: boolean;
  log?: (line: string) => void;
}

export interface ActiveRound {
  round: number;
  /** Tier-3 shares of revision lookups (greedy policy, miss = model). */
  modelShareTrain: number;
  /** The same for round 0's policy on the cache as it is now: what the recording alone changed. */
  firstPolicyShareTrain: number;
  modelShareValidation: number;
  accuracyModel: number;
  accuracyRecord?: number;
  /** Distinct contexts the sampled replays visited that the cache lacked, and of those, the askable ones. */
  visited: number;
  askable: number;
  /** Recorded this round (after the measurement), and their cost. */
  calls: number;
  cost: number;
  stopped?: string;
}

const modelShare = (r: MethodResult) => r.tiers.model / Math.max(1, r.tiers.exact + r.tiers.signature + r.tiers.model + r.tiers.record);

interface Visit {
  request: RecordRequest;
  count: number;
  /** Sum over visits of the recipient's mean 4 p (1 - p) over its keep decisions that round (1 at p = 0.5). */
  uncertainty: number;
}

/** Contexts the policy's sampled decisions visit on `questions` that the cache lacks, by key. */
async function visits(
  engine: PolicyEngine,
  env: Environment,
  emb: Awaited<ReturnType<typeof ensureEmbeddings>>,
  questions: number[],
  passes: number,
  seed: string,
): Promise<{ all: number; askable: Visit[] }> {
  const { cache } = env;
  const A = env.team.length;
  const per = actionsPerDebate(A, env.rounds);
  const found = new Map<string, Visit>();
  const seen = new Set<string>();
  for (let pass = 0; pass < passes; pass++) {
    const missed: { q: number; i: number; t: number; own: number; kept: number[]; askable: boolean }[] = [];
    env.onExactMiss = (d, agent, own, kept) =>
      missed.push({
        q: d.q,
        i: env.team.indexOf(agent),
        t: d.round + 1,
        own: own.source,
        kept: kept.map((k) => (k.cached ? k.source : -1 - k.source)),
        askable: own.cached && kept.every((k) => k.cached),
      });
    const r = await rollout(engine, env, emb, questions, {
      mode: { sample: seedrandom(`${seed}|pass ${pass}|decisions`) },
      debateSeed: `${seed}|pass ${pass}`,
      conditioning: engine.shape.conditioning,
    });
    env.onExactMiss = undefined;
    const batchOf = new Map(questions.map((q, b) => [q, b]));
    for (const m of missed) {
      // (a stand-in is keyed by its text source, negated)
      const key = `${m.q}|${m.i}|${m.t}|${m.own}|${[...m.kept].sort((x, y) => x - y).join(',')}`;
      seen.add(key);
      if (!m.askable) continue; // shows a stand-in, or its own history is one: askable a round later
      let u = 0;
      for (let j = 0; j < A; j++) {
        const p = r.probs[batchOf.get(m.q)! * per + actionIndex(A, m.t, m.i, j)];
        u += (4 * p * (1 - p)) / A;
      }
      const v = found.get(key);
      if (v) {
        v.count++;
        v.uncertainty += u;
      } else
        found.set(key, {
          request: { q: m.q, agent: env.team[m.i], round: m.t, context: m.kept.map((c) => cache.responses[c]), prev: cache.responses[m.own], sample: 0 },
          count: 1,
          uncertainty: u,
        });
    }
  }
  const askable = [...found.values()].sort((a, b) => b.count - a.count || b.uncertainty / b.count - a.uncertainty / a.count);
  return { all: seen.size, askable };
}

/** The policy of a round: trained unless its run is finished already (resumed when interrupted). */
async function roundPolicy(config: TrainConfig, log: (line: string) => void): Promise<PolicyArtifact> {
  const files = runFiles(config.out);
  if (!isFinished(config)) await train(config, { resume: existsSync(files.checkpoint), log, compute: computeOf(config) });
  return readAnyPolicy(files.best);
}

export async function activeJob(o: ActiveOptions): Promise<{ text: string; rounds: ActiveRound[] }> {
  const log = o.log ?? ((line: string) => console.error(line));
  if (o.config.miss === 'record')
    throw new SettingsError('active: the rounds train with miss = model or signature (the recording is what active does, within its limits); set --miss model');
  if (o.config.protocol === 'recorded')
    throw new SettingsError(
      "active: its recording replays synchronous rounds (the requests it builds carry no log's turns or external texts), so --protocol recorded cannot be honoured here; record under the log's protocol with `record --protocol recorded`, or compare with `fidelity --protocol recorded`",
    );
  const dir = o.config.cache;
  const started = Date.now();
  const sizes = { train: 0, validation: 0 };
  const rows: ActiveRound[] = [];
  let first: PolicyArtifact | undefined;
  for (let round = 0; round <= o.rounds; round++) {
    // The rounds train at miss = model: the endpoints are asked by the recording between them.
    const config = resolveConfig({ ...o.config, endpoints: undefined, out: join(o.out, `round-${round}`) });
    log(`active round ${round}: training ${config.out}`);
    const artifact = await roundPolicy(config, log);
    const cache = loadCache(dir, log);
    const settings = { agents: artifact.team, rounds: artifact.shape.rounds, miss: 'model' as const, seed: config.seed };
    const env = openEnvironment(cache, { ...settings, allowUnrecordedRounds: config.allowUnrecordedRounds });
    const encoder = await encoderFor(artifact.encoder);
    const emb = await ensureEmbeddings(dir, cache, encoder);
    const engine = await inferenceEngine(computeOf(config), artifact.shape, artifact.weights);
    const split = (s: Split) => splitQuestions(env, s).questions;
    const onTrain = await evaluatePolicy(engine, env, emb, split('train'), 'policy');
    const onValidation = await evaluatePolicy(engine, env, emb, split('validation'), 'policy');
    Object.assign(sizes, { train: onTrain.questions, validation: onValidation.questions });
    first ??= artifact;
    const firstEngine = await inferenceEngine(computeOf(config), first.shape, first.weights);
    const firstOnTrain = await evaluatePolicy(firstEngine, env, emb, split('train'), 'round 0 policy');
    firstEngine.dispose();
    const row: ActiveRound = {
      round,
      modelShareTrain: modelShare(onTrain),
      firstPolicyShareTrain: modelShare(firstOnTrain),
      modelShareValidation: modelShare(onValidation),
      accuracyModel: onValidation.correct / onValidation.questions,
      visited: 0,
      askable: 0,
      calls: 0,
      cost: 0,
    };
    if (o.evalRecord)
      row.accuracyRecord = await accuracyUnderRecord(
        dir,
        o,
        engine,
        settings,
        encoder,
        split('validation').map((q) => q.id),
      );
    if (round < o.rounds) {
      const v = await visits(
        engine,
        env,
        emb,
        split('train').map((q) => q.index),
        o.passes,
        `${config.seed}|active ${round}`,
      );
      row.visited = v.all;
      row.askable = v.askable.length;
      const recordEnv = openEnvironment(cache, { ...settings, miss: 'record' }, o.recording);
      const recording = recordEnv.recording!;
      try {
        await recordResponses(
          recordEnv,
          v.askable.map((x) => x.request),
        );
      } catch (e) {
        if (!(e instanceof RecordingStopped)) throw e;
      } finally {
        closeRecording(recording);
      }
      Object.assign(row, { calls: recording.spent.calls, cost: recording.spent.cost, stopped: recording.stopped });
    }
    engine.dispose();
    log(
      `active round ${round}: tier-3 share ${pct(row.modelShareTrain)} (train), ` +
        `${pct(row.modelShareValidation)} (validation); validation accuracy ${pct(row.accuracyModel)} ` +
        `(model)${row.accuracyRecord === undefined ? '' : `, ${pct(row.accuracyRecord)} (record)`}; recorded ${row.calls} of ${row.askable} askable contexts`,
    );
    rows.push(row);
  }
  const text = [
    `active recording on ${dir}: ${o.rounds} rounds, each training ${o.config.epochs} epochs from scratch (seed ` +
      `${o.config.seed}); visits counted over ${o.passes} sampled replays of the train split (${sizes.train} questions); ` +
      `validation ${sizes.validation} questions; limits per round: ${o.recording.limits?.maxCalls ?? 'no'} calls, ` +
      `${o.recording.limits?.budget ?? 'no'} budget; wall time ${((Date.now() - started) / 60000).toFixed(1)} min`,
    '',
    markdownTable(
      [
        'round',
        'tier-3 share, train',
        'round-0 policy, train',
        'tier-3 share, validation',
        'validation acc, model',
        'validation acc, record',
        'record - model',
        'visited, not cached',
        'askable',
        'recorded',
        'cost',
      ],
      rows.map((r) => [
        r.round,
        pct(r.modelShareTrain),
        pct(r.firstPolicyShareTrain),
        pct(r.modelShareValidation),
        pct(r.accuracyModel),
        r.accuracyRecord === undefined ? '-' : pct(r.accuracyRecord),
        r.accuracyRecord === undefined ? '-' : `${(100 * (r.accuracyRecord - r.accuracyModel)).toFixed(1)}`,
        r.round < o.rounds ? r.visited : '-',
        r.round < o.rounds ? r.askable : '-',
        r.round < o.rounds ? r.calls : '-',
        r.round < o.rounds ? r.cost.toFixed(4) : '-',
      ]),
    ),
    '',
    'tier-3 share: share of revision lookups the fitted response model answers for ' +
      "the round's greedy policy at miss = model; round-0 policy: the same for round " +
      "0's policy on the cache as it is at that round (what the recording alone " +
      "changed). Recorded: contexts asked after that round's measurement, for the next.",
  ].join('\n');
  return { text, rounds: rows };
}

/**
 * Validation accuracy with the endpoint's real answers, on a copy of the cache in memory (nothing
 * journaled), on the questions the miss = model replay covered: the record tier could also replay
 * questions an agent of the team never answered (asking its round 1), which would compare two
 * different sets of questions.
 */
async function accuracyUnderRecord(
  dir: string,
  o: ActiveOptions,
  engine: PolicyEngine,
  settings: { agents: string[]; rounds: number; seed: number },
  encoder: Awaited<ReturnType<typeof encoderFor>>,
  questionIds: string[],
): Promise<number> {
  const copy: Cache = loadCache(dir, () => {});
  // A team file's endpoints here are capped by the team file alone (the round's limits are the recording's).
  const { endpoints, endpoint, concurrency } = o.recording;
  const env = openEnvironment(copy, { ...settings, miss: 'record' }, { endpoints, endpoint, concurrency, journal: false });
  const emb = await ensureEmbeddings(dir, copy, encoder);
  const r = await evaluatePolicy(
    engine,
    env,
    emb,
    questionIds.map((id) => copy.questions[copy.questionIndex.get(id)!]),
    'policy',
  );
  return r.correct / r.questions;
}
