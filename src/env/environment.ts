// The offline debate environment (docs/method.md §1-3): a cache, the debate settings, the team, and the
// indexes and fitted response model the lookup tiers read. The debate loop is in debate.ts, the
// tiers in tiers.ts, the record path in record.ts, pricing in cost.ts.
import { recordsBinding } from '../cache/columns.ts';
import type { Split } from '../cache/format.ts';
import type { Cache, Question } from '../cache/types.ts';
import { buildIndexSteps, type LookupIndex } from './lookupIndex.ts';
import type { Debate, DebateResponse } from './debate.ts';
import type { Recording } from './record.ts';
import { keepFits, keptFits } from './keptFit.ts';
import { keptIndexSteps } from './keptIndex.ts';
import { modelInputs, type ResponseModel, type RevisionContext } from './responseModel.ts';
import { fitResponseModelSteps } from './responseModelFit.ts';
import { checkProtocol, turnIndex } from './protocol.ts';
import { tokenLimits } from './tokenLimit.ts';
import { DebateSettings } from './settings.ts';
import { emptyTiers, type TierCounts } from './tiers.ts';
import { SettingsError } from '../io/errors.ts';
import { runSteps } from '../io/interrupt.ts';

export interface Environment extends LookupIndex {
  cache: Cache;
  settings: DebateSettings;
  /** Team as agent indices, in debate order. */
  team: number[];
  rounds: number;
  /** The live endpoint of the record tier and its journal (record.ts); environments of one cache may share it. */
  recording?: Recording;
  /** Cache responses indexed so far (responses recorded later are indexed before each recorded round). */
  indexed: number;
  /** The fitted tier-3 response model (responseModel.ts). */
  responseModel: ResponseModel;
  /** Lookups per tier since the environment was made (revisions only: rounds >= 2). */
  tiers: TierCounts;
  /** Under the recorded protocol, each question's recorded turns per round (protocol.ts turnIndex); absent under synchronous rounds. */
  turns?: Map<string, number[]>;
  /** Output-token limit per agent of the cache (tokenLimit.ts). */
  limits: Float64Array;
  /** Called at each lookup no cached response answers exactly: where a debate goes that the cache lacks (active recording). */
  onExactMiss?: (d: Debate, agent: number, own: DebateResponse, kept: DebateResponse[]) => void;
  /** Called at each lookup the tier-3 model answers, with what it was asked (`fidelity` measures its answers there; `ext`: external texts shown). */
  onModelAnswer?: (d: Debate, own: DebateResponse, kept: DebateResponse[], context: RevisionContext, ext: number[]) => void;
}

/** Debate settings checked against their schema; a problem names the setting. */
export function parseDebateSettings(settings: Partial<DebateSettings>): DebateSettings {
  const parsed = DebateSettings.safeParse(settings);
  if (!parsed.success) throw new SettingsError(parsed.error.issues.map((i) => `setting ${i.path.join('.') || '(debate settings)'}: ${i.message}`).join('\n'));
  return parsed.data;
}

/**
 * The deepest round the members of `team` (agent indices) recorded on each question the team can
 * debate (every member answered round 1), 0 on the others: how far that team's recorded debates
 * go. Other agents' deeper debates (a 2-agent debate going on to round 3 where the 3-agent ones
 * stopped at 2) do not count: they are not this team's.
 */
export function deepestRounds(cache: Cache, team: number[]): number[] {
  const A = cache.agents.length;
  const deepest = new Int32Array(cache.questions.length * A);
  for (const r of cache.responses) if (r.round > deepest[r.q * A + r.a]) deepest[r.q * A + r.a] = r.round;
  return cache.questions.map((_, q) => (team.length && team.every((a) => deepest[q * A + a] > 0) ? Math.max(...team.map((a) => deepest[q * A + a])) : 0));
}

/**
 * Rounds beyond what the team's recorded debates reach are answered only by a live endpoint (miss =
 * record) or, when explicitly allowed, by the tier-3 model; otherwise an error saying what the cache
 * holds for this team (not for the whole cache: a sub-team's debates may stop earlier).
 */
function checkRounds(cache: Cache, s: DebateSettings, team: number[]): void {
  if (s.allowUnrecordedRounds && s.miss !== 'model')
    throw new SettingsError(
      `setting allowUnrecordedRounds applies to miss = model only (the tier-3 model draws the unrecorded rounds); miss = ${s.miss} ` +
        `${s.miss === 'record' ? 'records every round the cache lacks through its live endpoint' : 'never draws an answer'}`,
    );
  // A live endpoint records the rounds a cache lacks; under the recorded protocol there are none to record past the log's turns.
  if (s.miss === 'record' && s.protocol !== 'recorded') return;
  const deepest = deepestRounds(cache, team);
  const most = deepest.reduce((m, t) => Math.max(m, t), 0);
  if (s.rounds <= most || (s.miss === 'model' && s.allowUnrecordedRounds)) return;
  const members = team.map((a) => cache.agents[a].id).join(',');
  if (most === 0)
    throw new SettingsError(
      `setting agents: ${members}, but cache ${cache.file} records no question that every member of this team answered in round 1: ` +
        `there is no recorded debate of this team to replay`,
    );
  const counts = new Map<number, number>();
  for (const t of deepest) if (t > 0) counts.set(t, (counts.get(t) ?? 0) + 1);
  const held = [...counts]
    .sort((x, y) => y[0] - x[0])
    .map(([t, n]) => `round ${t}: ${n} question${n === 1 ? '' : 's'}`)
    .join(', ');
  const deeper =
    s.protocol === 'recorded'
      ? `the recorded protocol has no turns past the rounds the log recorded (--protocol synchronous lets the tier-3 model draw them or a live endpoint record them)`
      : s.miss === 'model'
        ? `every answer of round ${most + 1}${s.rounds > most + 1 ? ` to ${s.rounds}` : ''} would be drawn by the tier-3 response model: ` +
          `allow that with allowUnrecordedRounds (--allow-unrecorded-rounds), or record those rounds with a live endpoint (miss = record)`
        : `no tier of miss = ${s.miss} answers round ${most + 1}: record it with a live endpoint (miss ` +
          `= record), or let the tier-3 model draw it (miss = model with --allow-unrecorded-rounds)`;
  throw new SettingsError(
    `setting rounds: ${s.rounds}, but cache ${cache.file} records debates of team ${members} of at most ${most} ` +
      `round${most === 1 ? '' : 's'} (deepest recorded round per question the team can debate: ${held}); ${deeper}`,
  );
}

// The fitted response model depends only on the cache's responses and two settings: environments
// of one cache (a run's train and eval environments, a job's replays) share one fit instead of
// refitting (about a second each on the default world). An environment fits it at its first tier-3
// lookup, so a replay the cache answers (the baselines on the default world) never does; the fit
// reads the `responses` first responses, those the cache held when the environment was made, as
// it would have then (the record tier may have added others since).
// The weights are also kept beside the cache (keptFit.ts): a process that finds them bound to the
// cache as it is takes them instead of fitting.
// A command that will need the fit (a replay that keeps other subsets than the recorded ones) makes
// it up front with stop points (fitSharedSteps); the first lookup then finds it made.
const fits = new WeakMap<Cache, Map<string, ResponseModel>>();
const sharedFit = (cache: Cache, s: DebateSettings, responses: number): ResponseModel => runSteps(sharedFitSteps(cache, s, responses));

function* sharedFitSteps(cache: Cache, s: DebateSettings, responses: number): Generator<unknown, ResponseModel> {
  let byKey = fits.get(cache);
  if (!byKey) fits.set(cache, (byKey = new Map()));
  const key = `${s.responseModel}|${s.priorSmoothing}|${responses}`;
  let model = byKey.get(key);
  if (!model) {
    const whole = responses === cache.responses.length;
    const from = whole ? recordsBinding(cache) : undefined;
    const kept = from ? keptFits(cache, s, from) : undefined;
    if (kept) model = { ...modelInputs(cache, s.priorSmoothing), form: s.responseModel, fits: kept };
    else {
      model = yield* fitResponseModelSteps(whole ? cache : { ...cache, responses: cache.responses.slice(0, responses) }, s);
      if (from) keepFits(cache, s, from, model.fits);
    }
    byKey.set(key, model);
  }
  return model;
}

/**
 * Fit a new environment's tier-3 model now, as steps (src/io/interrupt.ts), unless one of its cache
 * is fitted: its first lookup finds it shared (it fits again only if the record tier added responses meanwhile).
 */
export function* fitResponseModelOfSteps(env: Environment): Generator<unknown, void> {
  yield* sharedFitSteps(env.cache, env.settings, env.indexed);
}

// The lookup indexes depend on the cache's responses alone: environments of one cache that nothing
// is recorded into (a run's train and eval environments, the runs of a warm training process)
// share them. An environment that records indexes what it adds, so it builds its own.
const indexes = new WeakMap<Cache, { responses: number; index: LookupIndex }>();
function* lookupIndexSteps(cache: Cache, shared: boolean): Generator<unknown, LookupIndex> {
  const held = shared ? indexes.get(cache) : undefined;
  if (held?.responses === cache.responses.length) return held.index;
  // Shared lists are also kept beside the cache (keptIndex.ts) for the next process.
  const build = () => buildIndexSteps(cache, cache.responses.length, RESPONSES_A_STEP);
  const index = yield* shared ? keptIndexSteps(cache, build) : build();
  if (shared) indexes.set(cache, { responses: cache.responses.length, index });
  return index;
}

/** Responses a step of indexing reads between stop points (src/io/interrupt.ts). */
const RESPONSES_A_STEP = 2048;

export const makeEnvironment = (cache: Cache, settings: Partial<DebateSettings> = {}, recording?: Recording): Environment =>
  runSteps(makeEnvironmentSteps(cache, settings, recording));

/**
 * `makeEnvironment` as steps (src/io/interrupt.ts): indexing the responses yields every
 * RESPONSES_A_STEP of them. The tier-3 model is fitted at its first lookup (fitResponseModelOfSteps makes it up front).
 */
export function* makeEnvironmentSteps(
  cache: Cache,
  settings: Partial<DebateSettings> = {},
  /** A function: the recording is attached (its journal opened) after the last step, so that a stop leaves the cache's folder as it was. */
  attach?: Recording | (() => Recording),
): Generator<unknown, Environment> {
  const s = parseDebateSettings(settings);
  const team = (s.agents ?? cache.agents.map((a) => a.id)).map((id) => {
    const a = cache.agentIndex.get(id);
    if (a === undefined) throw new SettingsError(`setting agents: unknown agent '${id}' (cache ${cache.file} has ${cache.agents.map((x) => x.id).join(', ')})`);
    return a;
  });
  if (s.miss === 'record' && !attach) throw new SettingsError(`setting miss = record needs a live endpoint, and cache ${cache.file} has none attached`);
  if (s.miss !== 'record' && attach) {
    const name = typeof attach === 'function' ? 'a recording' : attach.endpoint.name;
    throw new SettingsError(`a live endpoint (${name}) is attached but miss = ${s.miss}: it would never be asked`);
  }
  checkProtocol(cache, s);
  checkRounds(cache, s, team);
  yield;
  const responses = cache.responses.length;
  const index = yield* lookupIndexSteps(cache, !attach);
  const recording = typeof attach === 'function' ? attach() : attach;
  let model: ResponseModel | undefined;
  const env: Environment = {
    cache,
    settings: s,
    team,
    rounds: s.rounds,
    recording,
    indexed: cache.responses.length,
    ...index,
    get responseModel() {
      return (model ??= sharedFit(cache, s, responses));
    },
    set responseModel(fitted) {
      model = fitted;
    },
    tiers: emptyTiers(),
    limits: tokenLimits(cache, s.tokenLimit),
    ...(s.protocol === 'recorded' && { turns: turnIndex(cache) }),
  };
  return env;
}

/**
 * The questions of a split this team can debate: those where every member has a round-1 response
 * (imported debates vary in team size), or all of them when the record tier can answer under
 * synchronous rounds; under the recorded protocol, every debate of the log where some member
 * answered (a member the log stopped before it spoke is replayed as recorded: it has no answer).
 */
export function splitQuestions(env: Environment, split: Split): { questions: Question[]; skipped: number } {
  const A = env.cache.agents.length;
  const all = env.cache.questions.filter((q) => q.split === split);
  const answered = (q: Question, a: number) => env.round1.has(q.index * A + a);
  const questions =
    env.settings.miss === 'record' && !env.turns
      ? all
      : all.filter((q) => (env.turns ? env.team.some((a) => answered(q, a)) : env.team.every((a) => answered(q, a))));
  return { questions, skipped: all.length - questions.length };
}

export const teamIds = (env: Environment) => env.team.map((a) => env.cache.agents[a].id);
