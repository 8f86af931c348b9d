// `fidelity` (docs/method.md §3, last paragraph), the job: does a replay with the tier-3 response model tell
// what the debate would have done? It loads the cache twice (one load per tier: the record replay
// adds the endpoint's replies to its own), the trained policies and their embeddings, trains the
// static mask, runs the measurement of eval/fidelity.ts (every method under miss = model and under
// miss = record, the model's bias where each went and on every round-2 context) and prints the
// report of eval/fidelityReport.ts, writing fidelity.md, fidelity.csv and context-bias.csv with --out.
import type { Split } from '../src/cache/format.ts';
import { ensureEmbeddings } from '../src/cache/embeddings.ts';
import type { Cache } from '../src/cache/types.ts';
import { loadCache } from '../src/cache/load.ts';
import { writeFilesAtomic } from '../src/io/atomic.ts';
import type { Endpoint } from '../src/env/endpoint.ts';
import { splitQuestions, teamIds, type Environment } from '../src/env/environment.ts';
import type { DebateSettings } from '../src/env/settings.ts';
import { readAnyPolicy } from '../train/checkpoint.ts';
import type { ComputeSettings } from '../src/policy/backends.ts';
import { inferenceEngine } from '../src/policy/createEngine.ts';
import { encoderFor } from '../src/policy/inference.ts';
import { ensureDefaultCache } from '../src/sim/generate.ts';
import { cacheEndpoint, openEnvironment } from '../src/recording.ts';
import { readConfigFile, resolveConfig, rewardSettingsOf } from '../train/config.ts';
import { measureFidelity, type FidelityMeasurement, type Plan } from '../eval/fidelity.ts';
import { contextBiasCsv, fidelityCsv, fidelityText } from '../eval/fidelityReport.ts';
import { trainStaticMask } from '../eval/staticMask.ts';
import { policyGroups } from './eval.ts';
import { InputError, SettingsError } from '../src/io/errors.ts';

export interface FidelityOptions {
  cache: string;
  split: Split;
  /** Debate settings of both replays (`miss` is set per replay). */
  settings: Partial<DebateSettings>;
  /** Trained policies, as `eval --policy` takes them (plain paths: the runs of one method; `label=a,b`: a method of its own). */
  policies: string[];
  compute: ComputeSettings;
  /** Keep rates of random pruning. */
  keepRates: number[];
  /** Seeded runs (0..N-1) of random pruning and the static mask. */
  seeds: number;
  /** Training settings (reward, return, epochs) of the static mask. */
  config?: string;
  /** Endpoint samples per context in the bias tables. */
  samples: number;
  /** Per method, at most this many of the lookups the model answered in its miss = model replay are asked of the endpoint (0: none). */
  visited: number;
  /** Team file of the endpoints (default: a simulated cache's simulator). */
  endpoints?: string;
  /** Folder for fidelity.md, fidelity.csv and context-bias.csv; none: print only. */
  out?: string;
}

/**
 * The replay with miss = record: the one place this job attaches an endpoint (the cache's own, or
 * a team file's: src/recording.ts). Nothing is journaled: the replies live in this load of the cache
 * only, so the cache on disk is left as it was.
 */
export function recordEnvironment(cache: Cache, settings: Partial<DebateSettings>, endpoint: Endpoint): Environment {
  return openEnvironment(cache, { ...settings, miss: 'record' }, { endpoint, journal: false });
}

export async function fidelityJob(o: FidelityOptions): Promise<FidelityMeasurement & { text: string; files: string[] }> {
  ensureDefaultCache(o.cache);
  // Two loads of the cache: the record replay adds responses to its own.
  const modelCache = loadCache(o.cache);
  const recordCache = loadCache(o.cache);
  const endpoint = cacheEndpoint(recordCache, { endpoints: o.endpoints }); // a cache without an endpoint fails here, before any work
  const groups = policyGroups(o.policies);
  const artifacts = groups.flatMap((g) => g.paths).map(readAnyPolicy);
  const settings = { ...o.settings, agents: o.settings.agents ?? artifacts[0]?.team, rounds: artifacts[0]?.shape.rounds ?? o.settings.rounds };
  const modelEnv = openEnvironment(modelCache, { ...settings, miss: 'model' });
  const team = teamIds(modelEnv);
  artifacts.forEach((a, k) => {
    if (a.team.join() !== team.join())
      throw new InputError(`${groups.flatMap((g) => g.paths)[k]}: trained for team ${a.team.join(', ')}, the debate team is ${team.join(', ')}`);
  });
  const { questions } = splitQuestions(modelEnv, o.split);
  if (questions.length === 0)
    throw new SettingsError(`cache ${modelCache.file} has no questions in split '${o.split}' that team ${team.join(', ')} can debate`);
  const encoders = [...new Set(artifacts.map((a) => a.encoder))];
  const embeddingsOf = async (cache: Cache) =>
    new Map(await Promise.all(encoders.map(async (id) => [id, await ensureEmbeddings(o.cache, cache, await encoderFor(id))] as const)));
  const modelEmbeddings = await embeddingsOf(modelCache);
  const recordEmbeddings = await embeddingsOf(recordCache);
  const recordEnv = recordEnvironment(recordCache, settings, endpoint);

  const seeds = Array.from({ length: o.seeds }, (_, s) => s);
  const c = resolveConfig(o.config ? readConfigFile(o.config) : {});
  const train = splitQuestions(modelEnv, 'train').questions;
  // The static mask is trained once, on the model replay (as `eval` trains it), and evaluated under both tiers.
  const masks: Float64Array[] = [];
  if (train.length) for (const s of seeds) masks.push((await trainStaticMask(modelEnv, train, rewardSettingsOf(c, c.k), { ...c, lr: 0.05, seed: s })).theta);
  let k = 0;
  const policies = await Promise.all(
    groups.map(async (g) => ({
      label: g.label,
      runs: await Promise.all(
        g.paths.map(async (path) => {
          const a = artifacts[k++];
          return { path, engine: await inferenceEngine(o.compute, a.shape, a.weights), encoder: a.encoder };
        }),
      ),
    })),
  );
  const plan: Plan = { questions, validation: splitQuestions(modelEnv, 'validation').questions, keepRates: o.keepRates, seeds, masks, policies };
  try {
    const measured = await measureFidelity({ env: modelEnv, embeddings: modelEmbeddings }, { env: recordEnv, embeddings: recordEmbeddings }, endpoint, plan, o);
    const text = fidelityText(modelEnv, o.split, plan, measured, o.samples);
    const files = o.out ? writeFidelity(o.out, text, measured) : [];
    return { text, rows: measured.rows, tau: measured.tau, bias: measured.bias, files };
  } finally {
    for (const g of policies) for (const r of g.runs) r.engine.dispose();
  }
}

function writeFidelity(dir: string, text: string, m: FidelityMeasurement): string[] {
  const files = [`${dir}/fidelity.md`, `${dir}/fidelity.csv`, `${dir}/context-bias.csv`];
  writeFilesAtomic([
    [files[0], [`${text}\n`]],
    [files[1], [fidelityCsv(m.rows)]],
    [files[2], [contextBiasCsv(m.bias)]],
  ]);
  return files;
}
