// The record tier's live side, attached to a cache directory: the endpoint that answers it and the
// journal its replies go into (src/env/record.ts asks, src/cache/journal.ts keeps). The endpoint is
// the team file's (`--endpoints FILE`: OpenAI-compatible servers, src/endpoints/) when one is given,
// else the simulator of a simulated cache, else the simulator fitted to a recorded cache (`cache fit`).
import { dirname } from 'node:path';
import { z } from 'zod';
import { closeJournal, openJournal } from './cache/journal.ts';
import type { Cache } from './cache/types.ts';
import { loadTeamEndpoints, type TeamEndpoint } from './endpoints/teamEndpoints.ts';
import type { Endpoint } from './env/endpoint.ts';
import { makeEnvironmentSteps, parseDebateSettings, type Environment } from './env/environment.ts';
import { newRecording, type RecordLimits, type Recording } from './env/record.ts';
import type { DebateSettings } from './env/settings.ts';
import { fitPath, hasFit } from './sim/fitFile.ts';
import { fittedEndpoint } from './sim/fittedEndpoint.ts';
import { simulatorEndpoint } from './sim/simulator.ts';
import { SettingsError } from './io/errors.ts';
import { runSteps } from './io/interrupt.ts';

/** A recording's own settings (flags of record and active; the endpoints of every command that replays), each with its range. */
export const RecordingSettings = z.strictObject({
  concurrency: z.number().int().min(1, 'must be at least 1 (with no call in flight nothing is recorded)'),
  maxCalls: z.number().int().nonnegative().optional(),
  budgetUsd: z.number().nonnegative().optional(),
  endpoints: z
    .string()
    .optional()
    .describe(
      'team file: the OpenAI-compatible endpoint of each agent, asked by the record tier (miss = record; active: its recording); ' +
        "default: a simulated cache's simulator, or the simulator fitted to a recorded cache by `cache fit` (docs/recording.md, Live endpoints)",
    ),
});

export interface RecordingOptions {
  /** Calls in flight at once (default 8; with a team file, at most its `concurrency`). */
  concurrency?: number;
  /** With a team file, its caps (overriding the file's budget: maxCalls, and budget as maxUsd in dollars). */
  limits?: RecordLimits;
  /** A team file (--endpoints): its endpoints answer instead of a simulated cache's simulator. */
  endpoints?: string;
  /** The endpoint itself (a test's, or one a job made up front); default: the cache's (cacheEndpoint). */
  endpoint?: Endpoint;
  /** false: the replies stay in this load of the cache (nothing journaled, no limits); default: journaled in the cache's folder. */
  journal?: boolean;
  /** The recording of another environment of the same cache, which this one asks through too (one journal, one spending). */
  shared?: Recording;
}

/**
 * The environment of every command that replays: `cache` under `settings`, and with miss = record
 * the record tier's live side: the shared recording, else the endpoint (`o.endpoint`, else the
 * cache's: cacheEndpoint) with its journal opened in the cache's folder (openRecording), or kept in
 * memory (`journal: false`). A team file given without miss = record would never be asked: an error.
 */
export const openEnvironment = (cache: Cache, settings: Partial<DebateSettings>, o: RecordingOptions = {}): Environment =>
  runSteps(openEnvironmentSteps(cache, settings, o));

/** `openEnvironment` as steps (src/io/interrupt.ts: makeEnvironmentSteps); the journal is opened after the last of them. */
export function* openEnvironmentSteps(cache: Cache, settings: Partial<DebateSettings>, o: RecordingOptions = {}): Generator<unknown, Environment> {
  const s = parseDebateSettings(settings);
  if (s.miss !== 'record') {
    if (o.endpoints !== undefined)
      throw new SettingsError(`setting endpoints (${o.endpoints}): the record tier asks them only with miss = record, and miss is ${s.miss}`);
    return yield* makeEnvironmentSteps(cache, s);
  }
  const endpoint = o.shared ? undefined : (o.endpoint ?? cacheEndpoint(cache, o));
  // Attached after the environment's steps: a stop during them leaves no journal opened (created) in the cache's folder.
  const recording = () =>
    o.shared ?? (o.journal === false ? newRecording(endpoint!, { concurrency: o.concurrency }) : openRecording(dirname(cache.file), cache, o, endpoint));
  return yield* makeEnvironmentSteps(cache, s, recording);
}

/**
 * The live endpoint of a cache: the team file's when `o.endpoints` names one (one budget and one
 * limiter for all its agents, capped by `o.limits`); else a simulated cache's simulator, which
 * answers every context; any other cache is an error saying to pass --endpoints.
 */
export function cacheEndpoint(cache: Cache, o: RecordingOptions = {}): Endpoint {
  if (o.endpoints) {
    const { maxCalls, budget } = o.limits ?? {};
    return loadTeamEndpoints(o.endpoints, cache, { ...(maxCalls !== undefined && { maxCalls }), ...(budget !== undefined && { maxUsd: budget }) });
  }
  if (cache.header.source === 'simulator' && cache.header.simulator) return simulatorEndpoint(cache);
  const dir = dirname(cache.file);
  if (hasFit(dir)) {
    const endpoint = fittedEndpoint(cache);
    console.error(`${cache.file}: the record tier asks ${endpoint.name}, read from ${fitPath(dir)} (a model of the recorded agents, not the agents)`);
    return endpoint;
  }
  throw new SettingsError(
    `cache ${cache.file} (source ${cache.header.source}) has no live endpoint for ` +
      `miss = record: only a simulated cache (cache gen) is answered by its simulator; ` +
      `pass --endpoints FILE, a team file naming the OpenAI-compatible endpoint of each agent ` +
      `(docs/recording.md, "Live endpoints"), or fit a simulator to its records with \`cache fit ${dir}\``,
  );
}

const isTeam = (e: Endpoint): e is TeamEndpoint => 'stats' in e && 'budget' in e;

/**
 * Attach the cache's endpoint (cacheEndpoint) and open its journal (`dir`/journal.jsonl) for
 * appending. With a team file the caps are the team's budget, shared by all its agents; without
 * one, `o.limits` stop the recording (record.ts).
 */
export function openRecording(dir: string, cache: Cache, o: RecordingOptions = {}, endpoint: Endpoint = cacheEndpoint(cache, o)): Recording {
  const unanswered = cache.journal?.unanswered ?? new Map<string, string>();
  const team = isTeam(endpoint) ? endpoint.team : undefined;
  const recording = newRecording(endpoint, {
    journal: openJournal(dir, cache.journal?.bytes ?? 0),
    concurrency: team ? Math.min(o.concurrency ?? team.concurrency, team.concurrency) : o.concurrency,
    limits: team ? {} : o.limits,
    unanswered,
  });
  if (unanswered.size)
    console.error(
      `${recording.journal!.file}: ${unanswered.size} calls of an interrupted run have no journaled ` +
        `reply (they may have been paid); asked again, each carries the same idempotency key`,
    );
  return recording;
}

export function closeRecording(r: Recording): void {
  if (r.journal) closeJournal(r.journal);
}

/** The limits a recording stops at: a team's caps, or the recording's own. */
export function recordingLimits(r: Recording): string {
  if (isTeam(r.endpoint)) {
    const { maxUsd, maxCalls } = r.endpoint.budget.state();
    return `team caps ${maxUsd === null ? 'no dollar cap' : `$${maxUsd}`}, ${maxCalls === null ? 'no call cap' : `${maxCalls} calls`}`;
  }
  const { maxCalls, budget } = r.limits;
  return [maxCalls !== undefined && `at most ${maxCalls} calls`, budget !== undefined && `budget ${budget}`].filter(Boolean).join(', ') || 'none';
}

/** One line: what the record tier asked and spent (with a team file: its attempts and retries by cause). */
export function recordingSummary(r: Recording): string {
  const s = r.spent;
  let team = '';
  if (isTeam(r.endpoint)) {
    const { retries } = r.endpoint.stats();
    const causes = Object.entries(retries.retries)
      .filter(([, n]) => n > 0)
      .map(([cause, n]) => `${cause} ${n}`);
    team = `; ${retries.attempts} attempts, retries: ${causes.join(', ') || 'none'}`;
  }
  return (
    `record tier (${r.endpoint.name}): ${s.calls} calls, ${s.inTokens.toLocaleString('en-US')} ` +
    `input and ${s.outTokens.toLocaleString('en-US')} output tokens, ` +
    `cost ${s.cost.toFixed(4)}, ${r.recorded.length} new responses` +
    team +
    (r.reasked ? `; ${r.reasked} of them asked again after an interrupted run (possibly paid twice)` : '') +
    (r.stopped ? `; stopped: ${r.stopped}` : '')
  );
}
