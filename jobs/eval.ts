// `eval`: every comparison of docs/method.md §8-9 on one cache and split, from one command: baselines,
// consistency votes, freeze gates, the stopping rules (consensus stop, sparse debate), random pruning
// (and, beside policies that skip revisions or stop, random revise and random stop at their rates)
// and a static learned mask (seeded runs), and
// trained policies (all `--policy` files as the runs of one method, e.g. its seeds). Prints the
// Markdown tables (methods; paired tests of each policy against every other method) and writes
// them as Markdown and CSV with an accuracy-versus-cost SVG.
import type { Split } from '../src/cache/format.ts';
import { embeddingsPath } from '../src/cache/embeddings.ts';
import { keptEmbeddings, runCacheSteps } from '../src/cache/kept.ts';
import { cacheFilePath } from '../src/cache/load.ts';
import { hashFile, recordReport, startSession, type Session } from '../src/provenance.ts';
import type { Cache, Question } from '../src/cache/types.ts';
import { onInterrupt, stoppableSteps } from '../src/io/interrupt.ts';
import { fitResponseModelOfSteps, splitQuestions, teamIds, type Environment } from '../src/env/environment.ts';
import { DebateSettings } from '../src/env/settings.ts';
import type { PolicyArtifact } from '../src/policy/artifact.ts';
import { readAnyPolicy } from '../train/checkpoint.ts';
import type { ComputeSettings } from '../src/policy/backends.ts';
import type { PolicyShape } from '../src/policy/model.ts';
import { inferenceEngine } from '../src/policy/createEngine.ts';
import { encoderFor } from '../src/policy/inference.ts';
import { resolveConfig, readConfigFile, rewardSettingsOf } from '../train/config.ts';
import type { MethodResult } from '../src/env/tally.ts';
import { freezeGate, fullDebate, noCommunication, randomPruning, singleAgent } from '../eval/baselines.ts';
import { consistency, consistencyBest, consistencyFuse } from '../eval/consistency.ts';
import { decisionRates, randomRevise, randomStop, stoppingRules } from '../eval/stopping.ts';
import { evaluatePolicy, policyShapeFor } from '../src/policy/evaluate.ts';
import { pairedTests, rows, type MethodGroup, type PairedTest, type Row } from '../eval/comparison.ts';
import { markdown, writeReport } from '../eval/report.ts';
import { staticMask, trainStaticMask, type TrainedMask } from '../eval/staticMask.ts';
import { fewQuestionsNote } from '../train/smallData.ts';
import { ensureDefaultCache } from '../src/sim/generate.ts';
import { cachePlan, computePlan, type JobDescription } from '../train/plan.ts';
import { existsSync } from 'node:fs';
import { closeRecording, openEnvironmentSteps, recordingSummary, type RecordingOptions } from '../src/recording.ts';
import { InputError, SettingsError } from '../src/io/errors.ts';

export const METHODS = ['full', 'none', 'single', 'consistency', 'freeze', 'stop', 'random', 'mask'] as const;
export type MethodName = (typeof METHODS)[number];
/** Methods that replay the recorded contexts only (every edge, or none): on a cache that recorded them, the tier-3 model is never asked. */
const RECORDED_CONTEXTS: readonly MethodName[] = ['full', 'none', 'single'];

export interface EvalOptions {
  /** Each entry `path` or `label=path1,path2,...`; unlabelled paths are the runs of one method. */
  policies: string[];
  cache: string;
  split: Split;
  /** Engine, TF.js backend and threads of the policies' forward passes. */
  compute: ComputeSettings;
  settings: Partial<DebateSettings>;
  methods: MethodName[];
  /** Keep rate of random pruning; default: the policies' mean keep rate (0.5 without policies). */
  keepRate?: number;
  /** Seeded runs of random pruning and the static mask. */
  seeds: number;
  /** Training settings (reward, return, optimizer) of the static mask. */
  config?: string;
  /** Method whose name starts with this is the reference of cost % and signed utility. */
  reference: string;
  /** Folder of comparison.md / .csv / accuracy-cost.svg; none: print only. */
  out?: string;
  /** Signed-utility weights. */
  weights?: { collapse: number; correction: number };
  /** Concurrency, limits and endpoints (a team file) of the record tier (miss = record). */
  recording?: RecordingOptions;
  /** Lines the report carries under its table (the main job: which runs it reused). */
  notes?: string[];
  /** The command its provenance names (default: this process's; the main job's comparison runs in its training process). */
  command?: string[];
  /** The static mask of each seed, trained already with these options (trainMasks; the main job's idle process does it); default: trained here. */
  masks?: TrainedMask[];
}

/** Policy groups: `label=a,b` entries are their own methods; plain paths form one. */
export function policyGroups(entries: string[]): { label: string; paths: string[] }[] {
  const plain = entries.filter((e) => !e.includes('='));
  const labelled = entries
    .filter((e) => e.includes('='))
    .map((e) => {
      const at = e.indexOf('=');
      return {
        label: e.slice(0, at),
        paths: e
          .slice(at + 1)
          .split(',')
          .filter(Boolean),
      };
    });
  const unnamed = plain.length ? [{ label: `CPP FuseGLU (${plain.length === 1 ? plain[0] : `${plain.length} runs`})`, paths: plain }] : [];
  return [...unnamed, ...labelled];
}

export async function evalJob(o: EvalOptions): Promise<{ table: string; rows: Row[]; tests: PairedTest[]; files: string[] }> {
  const policyList = policyGroups(o.policies);
  // The policies are read (and checked) first: a bad one is refused before the default cache is made.
  const artifacts = policyList.flatMap((g) => g.paths).map(readAnyPolicy);
  if (artifacts.length) console.error(`policies evaluated on ${await computePlan(o.compute)}`);
  ensureDefaultCache(o.cache);
  const session = await startSession({ caches: [cacheFilePath(o.cache)], inputs: policyList.flatMap((g) => g.paths), command: o.command });
  // Stopped (Ctrl-C) before its report is written, it writes nothing.
  const unregister = onInterrupt({
    say: () => [`stopped before the comparison's table was made; nothing was written${o.out ? `: ${o.out} is as it was` : ''}; a rerun starts over`],
  });
  // Kept loaded for every policy (src/cache/kept.ts), except a cache the comparison records into.
  const cache = await stoppableSteps(runCacheSteps(o.cache, o.settings.miss === 'record'));
  try {
    return await evalStoppable(o, policyList, artifacts, session, cache);
  } finally {
    unregister();
  }
}

async function evalStoppable(
  o: EvalOptions,
  policyList: { label: string; paths: string[] }[],
  artifacts: PolicyArtifact[],
  session: Session,
  cache: Cache,
): Promise<{ table: string; rows: Row[]; tests: PairedTest[]; files: string[] }> {
  const env = await comparisonEnvironment(o, artifacts, cache);
  const split = splitQuestions(env, o.split);
  let questions = split.questions;
  if (questions.length === 0)
    throw new SettingsError(`cache ${cache.file} has no questions in split '${o.split}' that team ${teamIds(env).join(', ')} can debate`);
  if (split.skipped)
    console.error(
      `split ${o.split}: ${questions.length} questions; ${split.skipped} skipped (not every member of team ${teamIds(env).join(', ')} answered them)`,
    );
  if (o.config && o.methods.includes('mask')) for (const line of unusedConfigDebate(o.config, o.cache, env)) console.error(line);
  const shapes = policyList.flatMap((g) => g.paths).map((path, k) => policyShapeFor(artifacts[k], path, env.rounds));
  for (const s of shapes) if (s.note) console.error(s.note);
  const run = () =>
    runMethods(
      o,
      env,
      questions,
      policyList,
      artifacts,
      shapes.map((s) => s.shape),
      session,
    );
  let groups = await run();
  // A question some method could not replay (miss = signature) is left out of every row, so that
  // all rows compare the same questions: the methods run again without them.
  const unreplayable = [...new Set(groups.flatMap((g) => g.runs.flatMap((r) => r.skipped)))];
  const notes: string[] = [...(o.notes ?? [])];
  if (unreplayable.length) {
    const byMethod = groups.map((g) => `${g.method} ${Math.max(...g.runs.map((r) => r.skipped.length))}`).join(', ');
    const left =
      `miss = ${env.settings.miss}: ${unreplayable.length} of ${questions.length} questions could not be replayed by every method (most left ` +
      `by one run: ${byMethod}) and are left out of every row: ${unreplayable.slice(0, 8).join(', ')}${unreplayable.length > 8 ? ', ...' : ''}`;
    notes.push(left);
    console.error(left);
    questions = questions.filter((q) => !unreplayable.includes(q.id));
    if (questions.length === 0) throw new SettingsError(`${left}; no question is left to compare: replay with miss = model or record`);
    groups = await run();
  }
  if (env.recording) {
    notes.push(recordingSummary(env.recording));
    closeRecording(env.recording);
  }

  const referenceGroup = groups.find((g) => g.method.startsWith(o.reference));
  if (!referenceGroup) throw new SettingsError(`--reference '${o.reference}' names none of the methods: ${groups.map((g) => g.method).join(', ')}`);
  const reference = referenceGroup.runs[0];
  const few = fewQuestionsNote(`${o.split} split (${referenceGroup.method})`, questions.length, reference.correct);
  if (few) notes.unshift(few);
  const weights = o.weights ?? { collapse: 1, correction: 1 };
  const rs = rows(groups, reference, weights);
  const tests = pairedTests(groups, reference);
  const title =
    `${cache.header.name} (${cache.header.source}), ${o.split} split, ` + `${questions.length} questions, ${env.rounds} rounds, miss = ${env.settings.miss}`;
  const files = o.out ? await writeReport(o.out, rs, tests, referenceGroup.method, title, weights, notes) : [];
  if (o.out) files.push(recordReport(o.out, session, files.find((f) => f.endsWith('.md'))!));
  return { table: [`${title}\n\n${markdown(rs, tests, referenceGroup.method, weights)}`, ...notes].join('\n\n'), rows: rs, tests, files };
}

/**
 * The comparison's debate: the team of the (first) policy, and its rounds unless set (--rounds; each
 * policy must take them); the tier-3 model fitted where a method keeps other subsets than the
 * recorded ones. Made with stop points.
 */
function comparisonEnvironment(o: EvalOptions, artifacts: PolicyArtifact[], cache: Cache): Promise<Environment> {
  const team = artifacts[0]?.team;
  const rounds = o.settings.rounds ?? artifacts[0]?.shape.rounds;
  return stoppableSteps(
    (function* () {
      const env = yield* openEnvironmentSteps(cache, { ...o.settings, agents: o.settings.agents ?? team, rounds }, o.recording);
      if (env.settings.miss === 'model' && (artifacts.length || o.methods.some((m) => !RECORDED_CONTEXTS.includes(m)))) yield* fitResponseModelOfSteps(env);
      return env;
    })(),
  );
}

/**
 * The static masks of comparison `o` (one a seed), trained as evalJob trains them, in the debate of
 * its first policy (its team and rounds). `o` must record nothing: miss = record would change the
 * cache that the comparison reads after.
 */
export async function trainMasks(o: EvalOptions): Promise<TrainedMask[]> {
  const env = await comparisonEnvironment(o, [readAnyPolicy(o.policies[0])], await stoppableSteps(runCacheSteps(o.cache, false)));
  const train = splitQuestions(env, 'train').questions;
  const m = maskSettings(o.config);
  const masks: TrainedMask[] = [];
  for (let s = 0; s < o.seeds; s++) {
    const { theta, skipped } = await seedMask(o, m, env, train, s);
    masks.push({ theta: [...theta], skipped });
  }
  return masks;
}

/** Seed `seed`'s static mask of comparison `o`: the one given (`o.masks`), else trained on `train` with `m`. */
async function seedMask(o: EvalOptions, m: ReturnType<typeof maskSettings>, env: Environment, train: Question[], seed: number) {
  const given = o.masks?.[seed];
  if (given) return { theta: Float64Array.from(given.theta), skipped: given.skipped };
  return trainStaticMask(env, train, m.reward, { ...m.training, seed });
}

/** The static mask trains in this comparison's debate: the debate settings its config file gives otherwise are not used, and said. */
function unusedConfigDebate(file: string, cache: string, env: Environment): string[] {
  const c = readConfigFile(file);
  const here = {
    cache,
    rounds: env.rounds,
    agents: teamIds(env),
    miss: env.settings.miss,
    round1Sample: env.settings.round1Sample,
    tieBreak: env.settings.tieBreak,
    allowUnrecordedRounds: env.settings.allowUnrecordedRounds,
  };
  return Object.entries(here)
    .filter(([k, v]) => c[k as keyof typeof c] !== undefined && JSON.stringify(c[k as keyof typeof c]) !== JSON.stringify(v))
    .map(
      ([k, v]) =>
        `static mask: ${k} ${JSON.stringify(c[k as keyof typeof c])} of ${file} is not ` +
        `used: the mask trains in this comparison's debate (${k} ${JSON.stringify(v)})`,
    );
}

/** Every method of `o` on `questions`, one group (its runs) each. */
async function runMethods(
  o: EvalOptions,
  env: Environment,
  questions: Question[],
  policyList: { label: string; paths: string[] }[],
  artifacts: PolicyArtifact[],
  shapes: PolicyShape[],
  session: Session,
): Promise<MethodGroup[]> {
  const { cache } = env;
  const validation = splitQuestions(env, 'validation').questions;
  const train = splitQuestions(env, 'train').questions;
  const has = (m: MethodName) => o.methods.includes(m);
  const seeds = Array.from({ length: o.seeds }, (_, s) => s);
  const groups: MethodGroup[] = [];
  const one = (r: MethodResult) => groups.push({ method: r.method, runs: [r] });

  const full = await fullDebate(env, questions);
  if (has('full')) one(full);
  if (has('none')) one(await noCommunication(env, questions));
  if (has('single')) for (const m of env.team.keys()) one(await singleAgent(env, questions, m));
  if (has('consistency')) {
    env.team.forEach((_, m) => one(consistency(env, questions, m)));
    one(await consistencyBest(env, questions, validation, full.cost));
    one(consistencyFuse(env, questions, full.cost));
  }
  if (has('freeze')) for (const g of ['always', 'on-change'] as const) one(await freezeGate(env, questions, g));
  if (has('stop')) for (const r of await stoppingRules(env, questions)) one(r);

  const policyRuns: MethodResult[] = [];
  if (artifacts.length) {
    let k = 0;
    for (const group of policyList) {
      const runs: MethodResult[] = [];
      for (const path of group.paths) {
        const a = artifacts[k];
        const shape = shapes[k++];
        if (a.team.join() !== teamIds(env).join())
          throw new InputError(`${path}: trained for team ${a.team.join(', ')}, the debate team is ${teamIds(env).join(', ')}`);
        const emb = await keptEmbeddings(o.cache, cache, await encoderFor(a.encoder));
        const engine = await inferenceEngine(o.compute, shape, a.weights);
        const embeddings = embeddingsPath(o.cache, emb.encoder);
        if (!session.embeddings.some((e) => e.path === embeddings)) session.embeddings.push(await hashFile(embeddings, true));
        session.compute ??= engine.ran;
        runs.push(await evaluatePolicy(engine, env, emb, questions, path));
        engine.dispose();
      }
      policyRuns.push(...runs);
      groups.push({ method: group.label, runs, policy: true });
    }
  }
  if (has('random')) {
    const rate = o.keepRate ?? (policyRuns.length ? policyRuns.reduce((s, r) => s + r.keptEdges / r.maxEdges, 0) / policyRuns.length : 0.5);
    const runs: MethodResult[] = [];
    for (const s of seeds) runs.push(await randomPruning(env, questions, rate, s));
    groups.push({ method: `Random pruning (keep ${(100 * rate).toFixed(0)}%)`, runs });
    groups.push(...(await randomAtPolicyRates(env, questions, policyRuns, seeds)));
  }
  if (has('mask')) {
    const m = maskSettings(o.config);
    const masks: MethodResult[] = [];
    for (const s of seeds) {
      const { theta, skipped } = await seedMask(o, m, env, train, s);
      const mask = await staticMask(env, questions, theta);
      if (skipped) mask.note = `trained without ${skipped} train debates it could not replay (miss = ${env.settings.miss})`;
      masks.push(mask);
    }
    groups.push({ method: 'Static learned mask', runs: masks });
  }
  return groups;
}

/** Random revise and random stop at the policies' mean rates, where the policies skip revisions or stop (none otherwise). */
async function randomAtPolicyRates(env: Environment, questions: Question[], policyRuns: MethodResult[], seeds: number[]): Promise<MethodGroup[]> {
  const rates = policyRuns.map((r) => decisionRates(r, env.rounds));
  const mean = (k: 'revise' | 'stop') => rates.reduce((s, r) => s + r[k], 0) / rates.length;
  const groups: MethodGroup[] = [];
  if (policyRuns.some((r) => r.tiers.skipped > 0)) {
    const revise = mean('revise');
    const runs: MethodResult[] = [];
    for (const s of seeds) runs.push(await randomRevise(env, questions, revise, s));
    groups.push({ method: `Random revise (${(100 * revise).toFixed(0)}% of revisions, the policies' rate)`, runs });
  }
  if (policyRuns.some((r) => r.stopped > 0)) {
    const stop = mean('stop');
    const runs: MethodResult[] = [];
    for (const s of seeds) runs.push(await randomStop(env, questions, stop, s));
    groups.push({ method: `Random stop (${(100 * stop).toFixed(0)}% a round, the policies' rate)`, runs });
  }
  return groups;
}

/** Reward and training settings of the static learned mask: those of `config` (a training-settings file), with its own learning rate. */
function maskSettings(config?: string) {
  const c = resolveConfig(config ? readConfigFile(config) : {});
  return { reward: rewardSettingsOf(c, c.k), training: { ...c, lr: 0.05 } };
}

/**
 * The settings of an `eval` (or `baselines`) run, as it would use them, and its plan (its first
 * line is the cache's). `trainedFirst`: the policies are made by runs planned before (main).
 */
export function evalDescription(o: EvalOptions, trainedFirst = false): JobDescription {
  const groups = policyGroups(o.policies);
  const paths = groups.flatMap((g) => g.paths);
  const first = paths.find((p) => existsSync(p));
  const policy = first ? readAnyPolicy(first) : undefined;
  const { agents, ...debate } = o.settings;
  const has = (m: MethodName) => o.methods.includes(m);
  const settings = {
    cache: o.cache,
    split: o.split,
    debate: {
      ...DebateSettings.parse({ ...debate, rounds: policy?.shape.rounds ?? debate.rounds }),
      agents: agents ?? policy?.team ?? 'every agent of the cache',
    },
    methods: o.methods,
    policies: groups,
    compute: o.compute,
    seeds: o.seeds,
    keepRate: has('random') ? (o.keepRate ?? (paths.length ? "the policies' mean keep rate" : 0.5)) : undefined,
    staticMask: has('mask') ? maskSettings(o.config) : undefined,
    reference: o.reference,
    weights: o.weights ?? { collapse: 1, correction: 1 },
    out: o.out ?? null,
  };
  const rows: Record<MethodName, string> = {
    full: 'Full-Debate',
    none: 'No-communication',
    single: 'Single agent, for each team member',
    consistency: 'Consistency vote per model, Consistency-Best, Consistency-Fuse',
    freeze: 'Freeze gates (always, on-change)',
    stop: 'Consensus stop (2/3, unanimity), sparse debate (S2-MAD)',
    random:
      `Random pruning at ${typeof settings.keepRate === 'number' ? `keep rate ${settings.keepRate}` : settings.keepRate}, ${o.seeds} seeds ` +
      "(and random revise and random stop at the policies' rates, where they skip revisions or stop)",
    mask: `Static learned mask, ${o.seeds} seeds, trained ${settings.staticMask?.training.epochs} epochs on the train split`,
  };
  return {
    settings,
    plan: async () => [
      cachePlan(o.cache),
      `replay: split ${o.split}, team ${Array.isArray(settings.debate.agents) ? settings.debate.agents.join(', ') : settings.debate.agents}, ` +
        `${settings.debate.rounds} rounds, miss = ${settings.debate.miss}`,
      ...o.methods.map((m) => `row: ${rows[m]}`),
      ...groups.flatMap((g) => [
        `row: ${g.label}, the greedy policy of each run:`,
        ...g.paths.map((p) => `  ${p}${trainedFirst ? ' (from the run above)' : existsSync(p) ? '' : ' (missing: the command would stop there)'}`),
      ]),
      ...(paths.length ? [await computePlan(o.compute)] : []),
      `reference of cost % and utility: ${o.reference}`,
      o.out ? `writes in ${o.out}: comparison.md, comparison.csv, accuracy-cost.svg, provenance.json` : 'writes nothing (no --out): prints the table',
    ],
  };
}
