// `transfer` (docs/transfer.md): what trained policies (one per seed) are worth on a team that
// differs from theirs in one member. The newcomer's behavior embedding starts from its validation
// responses in the new cache (the start policies, start/seed-N.json); then, per seed, three runs on
// the new team in child processes (finished ones reused, interrupted ones resumed): (b) the start
// policy with the behavior embedding fine-tuned for N steps, (c) with everything fine-tuned for N
// steps, (d) a policy trained from scratch with the old policy's settings; each traces its greedy
// policy on the test split as it trains. All five ways ((a) the start policy untrained, (e) the
// old policy with the replaced member's embedding) are compared on the test split
// (eval/transfer.ts) and reported (eval/transferReport.ts).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { ensureEmbeddings, type Embeddings } from '../src/cache/embeddings.ts';
import { cacheFilePath, loadCache } from '../src/cache/load.ts';
import type { Cache } from '../src/cache/types.ts';
import { makeEncoder } from '../src/encoders/index.ts';
import { splitQuestions } from '../src/env/environment.ts';
import type { MethodResult } from '../src/env/tally.ts';
import { RefusedError, SettingsError } from '../src/io/errors.ts';
import { readJsonFile } from '../src/io/jsonFile.ts';
import { withLock, withLockSync } from '../src/io/lock.ts';
import { artifactOf, CHECKPOINT_FORMAT, savePolicy, type PolicyArtifact } from '../src/policy/artifact.ts';
import { readAnyPolicy, readCheckpoint } from '../train/checkpoint.ts';
import type { ComputeSettings } from '../src/policy/backends.ts';
import { behaviorInit } from '../src/policy/behavior.ts';
import { inferenceEngine } from '../src/policy/createEngine.ts';
import { evaluatePolicy } from '../src/policy/evaluate.ts';
import { encoderFor } from '../src/policy/inference.ts';
import { seatInputsOf } from '../src/policy/model.ts';
import { teamChange, transferredPolicy } from '../src/policy/transfer.ts';
import { hashFile, readProvenance, recordReport, startSession } from '../src/provenance.ts';
import { openEnvironment } from '../src/recording.ts';
import { fullDebate } from '../eval/baselines.ts';
import { transferComparison, type Role, type TransferMethod } from '../eval/transfer.ts';
import { GOALS, transferMarkdown, writeTransferReport } from '../eval/transferReport.ts';
import { debateSettingsOf, readConfigFile, resolveConfig, type TrainConfig } from '../train/config.ts';
import type { CurvePoint } from '../train/curves.ts';
import { runContentHashes } from '../train/identity.ts';
import { clearRun, readLog, runFiles } from '../train/runFolder.ts';
import { trainRuns } from '../train/runs.ts';

export interface TransferOptions {
  /** The trained policies, one per seed (checkpoints, or policy.json with `config`). */
  policies: string[];
  /** The cache of the new team. */
  cache: string;
  /** The member replaced and its newcomer, [old id, new id]; else worked out from the teams' ids and models. */
  replace?: [string, string];
  /** Training settings of the runs; default: those the first policy was trained with (its checkpoint's). */
  config?: string;
  /** Team-general policies (behavior rows, trained across teams: docs/transfer.md), one per seed of `policies`: the way (f), no training. */
  general?: string[];
  /** Steps of the fine-tunes (b, c); default: those of the from-scratch runs (d). */
  steps?: number;
  /** Test-split trace of every run every this many steps. */
  traceEvery: number;
  workers: number;
  compute: ComputeSettings;
  /** Job folder: start/, embedding/, all/, scratch/ (a run per seed each), report/. */
  out: string;
  /** Train anew the runs whose folders hold runs of other settings, another cache or another start policy. */
  force?: boolean;
}

const LABELS: Record<Role, (steps: number) => string> = {
  a: () => "(a) newcomer's embedding, no training",
  b: (n) => `(b) fine-tune the behavior embedding, ${n} steps`,
  c: (n) => `(c) fine-tune everything, ${n} steps`,
  d: (n) => `(d) from scratch, ${n} steps`,
  e: () => "(e) the replaced member's embedding",
  f: () => '(f) team-general policy, no training',
};
const FOLDERS = { b: 'embedding', c: 'all', d: 'scratch' } as const;

/** The settings a policy was trained with: its checkpoint's config, or the --config file (an exported policy carries none). */
function savedSettings(o: TransferOptions): { settings: Partial<TrainConfig>; notes: string[] } {
  if (o.config) return { settings: readConfigFile(o.config), notes: [] };
  const first = o.policies[0];
  const file = readJsonFile(first, z.looseObject({ format: z.string(), config: z.record(z.string(), z.unknown()).optional() }));
  if (file.format !== CHECKPOINT_FORMAT || !file.config)
    throw new SettingsError(`${first} is an exported policy: it holds no training settings; pass --config FILE, the settings it was trained with`);
  return { settings: file.config as Partial<TrainConfig>, notes: [`training settings: those ${first} was trained with`] };
}

/** The cache a policy trained on, when it is still there: its members' models, and its splits. */
function trainedOn(policy: PolicyArtifact): Cache | null {
  return existsSync(cacheFilePath(policy.trainedOn.cache)) ? loadCache(policy.trainedOn.cache, () => {}) : null;
}

/** Everything the job works out before it trains: the policies, the team change, the runs' settings. */
async function transferParts(o: TransferOptions) {
  if (o.policies.length === 0) throw new SettingsError('transfer: name the trained policies with --policy (one per seed)');
  const policies = o.policies.map((path) => readAnyPolicy(path));
  const [first] = policies;
  policies.forEach((p, i) => {
    if (p.team.join() !== first.team.join() || p.encoder !== first.encoder || JSON.stringify(p.shape) !== JSON.stringify(first.shape))
      throw new SettingsError(
        `--policy ${o.policies[i]}: another team, encoder or architecture than ${o.policies[0]}: the policies are the seeds of one method`,
      );
  });
  const seeds = policies.map((p) => p.trainedOn.seed);
  if (new Set(seeds).size !== seeds.length) throw new SettingsError(`--policy: two policies of seed ${seeds.find((s, i) => seeds.indexOf(s) !== i)}`);
  if (first.shape.behavior !== 'mean')
    throw new SettingsError(
      `${o.policies[0]}: behavior ${first.shape.behavior}: transfer starts the newcomer's behavior embedding from its validation ` +
        "responses, as the method starts every member's (behavior mean)",
    );
  const old = trainedOn(first);
  const cache = loadCache(o.cache);
  const change = teamChange(first.team, old?.agents ?? null, cache.agents, o.replace);
  const { settings, notes } = savedSettings(o);
  const { endpoints: _endpoints, ...saved } = settings;
  const s = first.shape;
  // The runs learn what the policy learned, on the new team, with the policy's architecture.
  const base: Partial<TrainConfig> = {
    ...saved,
    ...{ hidden: s.hidden, behavior: s.behavior, initSamples: s.initSamples, conditioning: s.conditioning, rounds: s.rounds },
    ...{ ownFeature: s.ownFeature, sourceFeature: s.sourceFeature, roundFeature: s.roundFeature, currentFeature: s.currentFeature, turnFeature: s.turnFeature },
    ...o.compute,
    cache: o.cache,
    agents: change.team,
    from: null,
    trainable: 'all',
    traceEvery: o.traceEvery,
  };
  const file = settings as Record<string, unknown>;
  if (settings.endpoints !== undefined) notes.push(`endpoints ${settings.endpoints} of the training settings is not used: transfer replays without recording`);
  for (const [k, v] of Object.entries(base))
    if (o.config && file[k] !== undefined && JSON.stringify(file[k]) !== JSON.stringify(v))
      notes.push(`${k} ${JSON.stringify(file[k])} of ${o.config} is not used: the runs take ${JSON.stringify(v)} (the policy's, or the new team's)`);
  const config = resolveConfig(base);
  if (config.miss === 'record')
    throw new SettingsError('transfer replays without recording: the training settings say miss = record; pass --config with miss model');
  if ((await makeEncoder(config.encoder)).id !== first.encoder)
    throw new SettingsError(`the policies' encoder is ${first.encoder}, the training settings' ${config.encoder}: pass --config with their encoder`);
  // Each seed's policies replay with that seed's draws, as its runs' validation and traces do (the
  // response model draws by the replay seed): (b) and (c) trace (a) of their seed at step 0.
  const envOf = (seed: number) => openEnvironment(cache, { ...debateSettingsOf({ ...config, seed }, 'eval'), agents: change.team });
  const env = envOf(seeds[0]);
  const perEpoch = Math.ceil(splitQuestions(env, 'train').questions.length / config.batchSize);
  const scratchSteps = config.steps ?? config.epochs * perEpoch;
  const steps = o.steps ?? scratchSteps;
  const runs = seeds.flatMap((seed) => {
    const scratch = { ...base, seed, out: join(o.out, FOLDERS.d, `seed-${seed}`) };
    const tune = { ...scratch, from: startFile(o.out, seed), steps, epochs: Math.ceil(steps / perEpoch) };
    return [
      { role: 'b' as const, seed, settings: { ...tune, trainable: 'behavior' as const, out: join(o.out, FOLDERS.b, `seed-${seed}`) } },
      { role: 'c' as const, seed, settings: { ...tune, trainable: 'all' as const, out: join(o.out, FOLDERS.c, `seed-${seed}`) } },
      { role: 'd' as const, seed, settings: scratch },
    ];
  });
  const labels = Object.fromEntries(Object.entries(LABELS).map(([r, label]) => [r, label(r === 'd' ? scratchSteps : steps)])) as Record<Role, string>;
  return { policies, seeds, old, cache, change, env, envOf, runs, labels, notes, scratchSteps };
}

const startFile = (out: string, seed: number) => join(out, 'start', `seed-${seed}.json`);

/**
 * The newcomer's start: each policy with its row of the behavior embedding from the newcomer's
 * validation responses (same seed and samples as the policy's own start).
 */
function startPolicies(o: TransferOptions, p: Awaited<ReturnType<typeof transferParts>>, emb: Embeddings): PolicyArtifact[] {
  const newcomer = p.cache.agents.findIndex((a) => a.id === p.change.newcomer.id);
  return p.policies.map((policy, i) => {
    const row = behaviorInit(p.cache, emb, [newcomer], policy.shape.initSamples, String(p.seeds[i]));
    const start = transferredPolicy(policy, p.change, row);
    savePolicy(startFile(o.out, p.seeds[i]), start);
    return start;
  });
}

/**
 * A fine-tune reused or resumed must have started from this start policy: its provenance names the
 * file it started from with its content's hash (a policy retrained since would make another).
 */
async function checkStart(settings: Partial<TrainConfig> & { out: string }, force?: boolean): Promise<void> {
  const provenance = runFiles(settings.out).provenance;
  if (!settings.from || !existsSync(provenance)) return;
  const was = readProvenance(provenance).sessions[0].inputs.find((i) => i.path === settings.from);
  if (was && was.sha256 === (await hashFile(settings.from)).sha256) return;
  if (!force) throw new RefusedError(`${settings.out} was fine-tuned from another ${settings.from} than now: pass --force to train it anew`);
  withLockSync(settings.out, 'a training run (emptied by --force)', () => clearRun(settings.out));
}

/** The job, with its folder locked. Returns what it prints. */
export function transferJob(o: TransferOptions): Promise<string> {
  return withLock(o.out, 'a transfer job', () => transferLocked(o));
}

async function transferLocked(o: TransferOptions): Promise<string> {
  const p = await transferParts(o);
  const { change, env } = p;
  const session = await startSession({ caches: [cacheFilePath(o.cache)], inputs: o.policies });
  const emb = await ensureEmbeddings(o.cache, p.cache, await encoderFor(p.policies[0].encoder));
  const starts = startPolicies(o, p, emb);
  const general = o.general?.length ? generalPolicies(o.general, p.seeds, change.team) : undefined; // checked before anything trains
  const hash = await runContentHashes()(p.runs[0].settings);
  const trained = await trainRuns(
    p.runs.map((r) => r.settings),
    hash,
    { workers: o.workers, label: 'train (b), (c), (d)', force: o.force, before: (settings) => checkStart(settings, o.force) },
  );

  const questions = splitQuestions(env, 'test').questions;
  if (questions.length === 0) throw new SettingsError(`${p.cache.file} has no test questions that the new team can debate`);
  const envs = new Map(p.seeds.map((seed, i) => [seed, i === 0 ? env : p.envOf(seed)]));
  const evaluate = async (a: PolicyArtifact, seed: number, method: string): Promise<MethodResult> => {
    const engine = await inferenceEngine(o.compute, a.shape, a.weights);
    session.compute ??= engine.ran;
    const r = await evaluatePolicy(engine, envs.get(seed)!, emb, questions, method);
    engine.dispose();
    return r;
  };
  const methods: TransferMethod[] = [];
  const untrained = async (role: 'a' | 'e' | 'f', policies: PolicyArtifact[]) => {
    const runs: MethodResult[] = [];
    for (const [i, a] of policies.entries()) runs.push(await evaluate(a, p.seeds[i], `${p.labels[role]}, seed ${p.seeds[i]}`));
    methods.push({ role, method: p.labels[role], runs, trainedSteps: runs.map(() => 0), checkpointSteps: runs.map(() => 0) });
  };
  await untrained('a', starts);
  for (const role of ['b', 'c', 'd'] as const) {
    const runs = p.runs.filter((r) => r.role === role);
    const results: MethodResult[] = [];
    for (const r of runs) results.push(await evaluate(artifactOf(readCheckpoint(runFiles(r.settings.out).best)), r.seed, r.settings.out));
    methods.push({
      role,
      method: p.labels[role],
      runs: results,
      trainedSteps: runs.map((r) => readCheckpoint(runFiles(r.settings.out).checkpoint).step),
      checkpointSteps: runs.map((r) => readCheckpoint(runFiles(r.settings.out).best).step),
    });
  }
  await untrained(
    'e',
    p.policies.map((a) => transferredPolicy(a, change)),
  );
  if (general) await untrained('f', general);
  const curves: CurvePoint[] = p.runs.flatMap((r) =>
    readLog(r.settings.out)
      .filter((l) => l.type === 'trace')
      .flatMap((l) => [
        { series: p.labels[r.role], run: `seed ${r.seed}`, x: l.step, metric: 'accuracy (%)' as const, value: 100 * l.accuracy! },
        { series: p.labels[r.role], run: `seed ${r.seed}`, x: l.step, metric: 'keep rate (%)' as const, value: 100 * l.keptEdges! },
      ]),
  );
  const comparison = transferComparison(await fullDebate(env, questions), methods, curves, GOALS.retainedPct / 100);
  const replaced = `${change.replaced.id}${change.replaced.model ? ` (${change.replaced.model})` : ''}`;
  const title =
    `${p.cache.header.name}: ${replaced} replaced by ${change.newcomer.id} (${change.newcomer.model}); team ${change.team.join(', ')}; ` +
    `test split, ${questions.length} questions, ${env.rounds} rounds, miss = ${env.settings.miss}; policies ${o.policies.join(', ')}`;
  const notes = [...p.notes, ...leakNote(p.old, p.cache)];
  const plotTitle = `${p.cache.header.name}: ${change.replaced.id} replaced by ${change.newcomer.id}`;
  const files = await writeTransferReport(join(o.out, 'report'), comparison, curves, { title, plotTitle }, notes);
  files.push(recordReport(join(o.out, 'report'), session, files[0]));
  const reused = trained.map((outcome, i) => `${p.runs[i].settings.out} ${outcome.status}`).join(', ');
  return [transferMarkdown(comparison, title), ...notes, `runs: ${reused}`, `written: ${files.join(', ')}`].join('\n\n');
}

/**
 * The team-general policies on the new team, seed for seed with the old policies (each replays with
 * its seed's draws): their weights hold nothing per seat (no behavior embedding, source or turn feature), and
 * the rows they read come from the new cache as the debates are played.
 */
function generalPolicies(paths: string[], seeds: number[], team: string[]): PolicyArtifact[] {
  const general = paths.map((path) => readAnyPolicy(path));
  general.forEach((g, i) => {
    const seat = seatInputsOf(g.shape);
    if (!g.shape.behaviorRows || seat.length)
      throw new SettingsError(
        `--general ${paths[i]}: not a team-general policy (it needs behaviorRows on and no per-seat input; ${seat.length ? `it reads ${seat.join(', ')}` : 'its behaviorRows are off'})`,
      );
  });
  const bySeed = seeds.map((seed) => general.find((g) => g.trainedOn.seed === seed));
  const missing = seeds.filter((_, i) => !bySeed[i]);
  if (missing.length || general.length !== seeds.length)
    throw new SettingsError(
      `--general: one team-general policy per seed of --policy (${seeds.join(', ')}); missing seed ${missing.join(', ') || '(extra policies)'}`,
    );
  return bySeed.map((g) => ({ ...g!, team }));
}

/**
 * Test questions of the new cache that the old policy trained or chose its checkpoint on (the same id
 * and text in its cache's train or validation split): said, since they favour (a), (b), (c) and (e).
 */
function leakNote(old: Cache | null, cache: Cache): string[] {
  if (!old) return ["the cache the policies trained on is not readable here: whether they saw the new cache's test questions is not checked"];
  const seen = new Set(old.questions.filter((q) => q.split !== 'test').map((q) => `${q.id}\0${q.text}`));
  const leaked = cache.questions.filter((q) => q.split === 'test' && seen.has(`${q.id}\0${q.text}`));
  return leaked.length
    ? [`warning: ${leaked.length} of the new cache's test questions were train or validation questions of ${old.file}: the old policies have seen them`]
    : [];
}
