// `record`: replay a method or a trained policy on a split with the record tier, so that the live
// endpoint answers every context the cache lacks; each reply is journaled as it arrives (a rerun
// asks for nothing twice). It stops cleanly at a call or cost limit, and reports what was asked and
// spent, and the tier shares of the same method replayed with miss = model before and after.
import type { Split } from '../src/cache/format.ts';
import { ensureEmbeddings } from '../src/cache/embeddings.ts';
import type { Cache, Question } from '../src/cache/types.ts';
import { loadCacheSteps } from '../src/cache/load.ts';
import { fitResponseModelOfSteps, splitQuestions, teamIds, type Environment } from '../src/env/environment.ts';
import { exactKey } from '../src/env/lookupIndex.ts';
import { RecordingStopped, type Recording } from '../src/env/record.ts';
import type { DebateSettings } from '../src/env/settings.ts';
import { TIERS } from '../src/env/tiers.ts';
import { readAnyPolicy } from '../train/checkpoint.ts';
import type { ComputeSettings } from '../src/policy/backends.ts';
import { inferenceEngine } from '../src/policy/createEngine.ts';
import { encoderFor } from '../src/policy/inference.ts';
import { closeRecording, openEnvironmentSteps, recordingLimits, recordingSummary, type RecordingOptions } from '../src/recording.ts';
import { ensureDefaultCache } from '../src/sim/generate.ts';
import { markdownTable, pct } from '../src/table.ts';
import { onInterrupt, stoppableSteps } from '../src/io/interrupt.ts';
import type { MethodResult } from '../src/env/tally.ts';
import { fullDebate, noCommunication, randomPruning } from '../eval/baselines.ts';
import { evaluatePolicy, policyShapeFor } from '../src/policy/evaluate.ts';

export const RECORD_METHODS = ['full', 'none', 'random'] as const;

export interface RecordOptions {
  cache: string;
  split: Split;
  settings: Partial<DebateSettings>;
  /** A fixed rule, unless `policy` names a trained policy (checkpoint or policy.json). */
  method: (typeof RECORD_METHODS)[number];
  /** Keep rate of `random`. */
  keepRate: number;
  policy?: string;
  compute: ComputeSettings;
  recording: RecordingOptions;
}

/** A method replayed on some questions of an environment. */
type Play = (env: Environment, questions: Question[]) => Promise<MethodResult>;

async function methodOf(o: RecordOptions, cache: Cache): Promise<{ label: string; play: Play; dispose: () => void; settings: Partial<DebateSettings> }> {
  if (o.policy) {
    const artifact = readAnyPolicy(o.policy);
    const emb = await ensureEmbeddings(o.cache, cache, await encoderFor(artifact.encoder));
    const rounds = o.settings.rounds ?? artifact.shape.rounds;
    const { shape, note } = policyShapeFor(artifact, o.policy, rounds);
    if (note) console.error(note);
    const engine = await inferenceEngine(o.compute, shape, artifact.weights);
    const settings = { ...o.settings, agents: o.settings.agents ?? artifact.team, rounds };
    return { label: `policy ${o.policy}`, play: (env, qs) => evaluatePolicy(engine, env, emb, qs, o.policy!), dispose: () => engine.dispose(), settings };
  }
  const seed = o.settings.seed ?? 0;
  const play: Play = o.method === 'full' ? fullDebate : o.method === 'none' ? noCommunication : (env, qs) => randomPruning(env, qs, o.keepRate, seed);
  const label = o.method === 'random' ? `random pruning (keep ${pct(o.keepRate, 0)}, seed ${seed})` : o.method === 'full' ? 'Full-Debate' : 'No-communication';
  return { label, play, dispose: () => {}, settings: o.settings };
}

export async function recordJob(
  o: RecordOptions,
): Promise<{ text: string; recording: Recording; before: MethodResult; during?: MethodResult; after: MethodResult }> {
  ensureDefaultCache(o.cache);
  const cache = await stoppableSteps(loadCacheSteps(o.cache));
  const method = await methodOf(o, cache);
  // The before/after replays measure tier shares: rounds the cache has not recorded yet are the
  // tier-3 model's, and the table shows that share.
  // The environments (and the tier-3 model the miss = model replays draw from) are made with stop points.
  const atModel = async () => {
    const env = await stoppableSteps(
      (function* () {
        const env = yield* openEnvironmentSteps(cache, { ...method.settings, miss: 'model', allowUnrecordedRounds: true });
        yield* fitResponseModelOfSteps(env);
        return env;
      })(),
    );
    return method.play(env, splitQuestions(env, o.split).questions);
  };
  let recording: Recording | undefined;
  // A stop keeps every reply journaled so far: a rerun pays for none of them again. Before the record
  // tier's environment is made, its journal is not opened: nothing was written.
  const unregister = onInterrupt({
    say: () => [
      recording
        ? `${recordingSummary(recording)}${recording.journal ? `; journaled in ${recording.journal.file}: a rerun asks none of them again` : ''}`
        : `record stopped before it asked the endpoint anything; nothing was written: the cache in ${o.cache} is as it was`,
    ],
  });
  let before: MethodResult;
  let env: Environment;
  let questions: Question[];
  let during: MethodResult | undefined;
  let after: MethodResult;
  try {
    before = await atModel();
    env = await stoppableSteps(openEnvironmentSteps(cache, { ...method.settings, miss: 'record', allowUnrecordedRounds: false }, o.recording));
    recording = env.recording!;
    questions = splitQuestions(env, o.split).questions;
    try {
      during = await method.play(env, questions);
    } catch (e) {
      if (!(e instanceof RecordingStopped)) throw e;
    } finally {
      closeRecording(recording);
    }
    after = await atModel();
  } finally {
    unregister();
  }
  method.dispose();

  const contexts = new Set(recording.recorded.map((r) => exactKey(r.q, r.a, r.round, r.prevIndex, r.ctx))).size;
  const row = (name: string, r: MethodResult) => {
    const total = TIERS.reduce((s, k) => s + r.tiers[k], 0) || 1;
    return [name, r.questions, pct(r.correct / Math.max(1, r.questions)), ...TIERS.map((k) => pct(r.tiers[k] / total))];
  };
  const text = [
    `record: ${cache.file}, ${o.split} split (${questions.length} questions), ${method.label}, team ${teamIds(env).join(', ')}; ` +
      `endpoint ${recording.endpoint.name}, ${recording.concurrency} calls at a time; limits: ${recordingLimits(recording)}`,
    recordingSummary(recording),
    `new contexts: ${contexts} (question x agent x round x context shown); ` +
      `${recording.journal ? `journal ${recording.journal.file} (fold it into cache.jsonl with \`cache compact\`)` : 'kept in memory only'}`,
    ...(during ? [] : ['the method did not finish: a rerun continues where this one stopped, asking nothing twice']),
    '',
    `Tier shares of revision lookups, ${method.label}:`,
    markdownTable(
      ['replay', 'questions', 'accuracy', ...TIERS],
      [row('before, miss = model', before), ...(during ? [row('recording, miss = record', during)] : []), row('after, miss = model', after)],
    ),
  ].join('\n');
  return { text, recording, before, during, after };
}
