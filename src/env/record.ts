// The record tier (docs/method.md §3, tier 4): a live endpoint answers the contexts the cache lacks. The
// lookups stay synchronous: before a round is stepped (under the recorded protocol, before each
// wave of turns: recordTurns), the contexts no cached response answers exactly are collected, asked
// concurrently (bounded), journaled, and added to the cache; the round is then stepped and those
// lookups count as tier `record`.
//
// A request's key derives from what is asked (question, agent, round, context shown, previous
// response, sample), and so does the id of its response (requestKey.ts, shared with `debate` and
// `serve`): a rerun finds what an earlier run recorded (the journal is loaded with the cache) and
// never asks for it again. An intent line is journaled before each call; the same key is sent as
// the call's idempotency key, so an endpoint that honours it does not charge again for a request
// whose reply an interrupted run lost. An endpoint that refuses a call at its cap
// (EndpointCapReached) stops the recording cleanly, as the recording's own limits do.
import type { ResponseRecord } from '../cache/format.ts';
import { appendJournal, readAppended, type Journal } from '../cache/journal.ts';
import type { Cache, Response } from '../cache/types.ts';
import { appendResponse } from '../cache/load.ts';
import { candidateOrder } from './actions.ts';
import { callCost } from './cost.ts';
import type { Debate } from './debate.ts';
import { EndpointCapReached, replyFields, type Endpoint, type Shown } from './endpoint.ts';
import type { Environment } from './environment.ts';
import { exactHits, indexResponse } from './lookupIndex.ts';
import { shownInLogOrder, type RecordedTurn } from './protocol.ts';
import { recordedResponseId, requestKey, type RequestIds } from './requestKey.ts';
import { RefusedError, SettingsError, UserError } from '../io/errors.ts';
import { stopPoint } from '../io/interrupt.ts';

export interface RecordLimits {
  /** Stop before a call that would exceed this many calls. */
  maxCalls?: number;
  /** Stop once the replies received cost this much (prices x tokens of each reply, the cache's currency). */
  budget?: number;
}

export interface Spend {
  calls: number;
  inTokens: number;
  outTokens: number;
  cost: number;
}

/** A live endpoint attached to a cache, with where its replies go and what it may spend. */
export interface Recording {
  endpoint: Endpoint;
  /** The cache's journal; none: replies are kept in memory only (tests). */
  journal?: Journal;
  /** Calls in flight at once. */
  concurrency: number;
  limits: RecordLimits;
  spent: Spend;
  /** Responses this recording added to the cache, in the order they were added. */
  recorded: Response[];
  /** Intents an interrupted run journaled without a reply (response id -> request key), from the cache's journal. */
  unanswered: Map<string, string>;
  /** Of those, how many this recording asked again: calls that may have been paid twice. */
  reasked: number;
  /** Why recording stopped (a limit reached), once it has. */
  stopped?: string;
  /** A recordResponses call is running (they run one at a time, so no request is asked twice at once). */
  busy: boolean;
}

export function newRecording(
  endpoint: Endpoint,
  o: { journal?: Journal; concurrency?: number; limits?: RecordLimits; unanswered?: Map<string, string> } = {},
): Recording {
  return {
    endpoint,
    journal: o.journal,
    concurrency: o.concurrency ?? 8,
    limits: o.limits ?? {},
    spent: { calls: 0, inTokens: 0, outTokens: 0, cost: 0 },
    recorded: [],
    unanswered: o.unanswered ?? new Map(),
    reasked: 0,
    busy: false,
  };
}

/** Thrown after a limit stopped recording (what was recorded is journaled and in the cache). */
export class RecordingStopped extends RefusedError {
  constructor(reason: string) {
    super(`recording stopped: ${reason}`);
  }
}

/** One response to ask for: agent `agent` (cache index) at `round` of question `q`. */
export interface RecordRequest {
  q: number;
  agent: number;
  round: number;
  /** What the agent is shown, in the order shown (external texts too under the recorded protocol). */
  context: Shown[];
  prev: Response | null;
  sample: number;
}

/** The ids of a request (requestKey.ts names it and its response from them). */
export const recordRequestIds = (cache: Cache, r: RecordRequest): RequestIds => ({
  question: cache.questions[r.q].id,
  agent: cache.agents[r.agent].id,
  round: r.round,
  context: r.context.map((c) => c.id),
  prev: r.prev?.id ?? null,
  sample: r.sample,
});

/** Index the responses added to the cache since the environment last looked (by other environments or processes). */
export function syncIndex(env: Environment): void {
  const { cache } = env;
  for (; env.indexed < cache.responses.length; env.indexed++) indexResponse(env, cache, cache.responses[env.indexed]);
}

/** Add responses that other processes journaled since this one last read (so it does not ask for them again). */
function readOthers(cache: Cache, journal: Journal): void {
  for (const line of readAppended(journal)) {
    const rec = line as ResponseRecord;
    if (rec?.type !== 'response' || cache.responseIndex.has(rec.id)) continue;
    try {
      appendResponse(cache, rec);
    } catch (e) {
      console.error(`${journal.file}: skipped a response another process journaled: ${(e as Error).message}`);
    }
  }
}

function limitReached(rec: Recording): string | undefined {
  const { maxCalls, budget } = rec.limits;
  if (maxCalls !== undefined && rec.spent.calls >= maxCalls) return `--max-calls ${maxCalls} reached`;
  if (budget !== undefined && rec.spent.cost >= budget) return `budget of ${budget} reached (${rec.spent.cost.toFixed(4)} spent on received replies)`;
  return undefined;
}

/**
 * The cache responses answering `requests`, in request order: those recorded already (this run,
 * an earlier run's journal, another process) are reused; the others are asked, `concurrency` at a
 * time, each journaled as it arrives. They enter the cache in request order, so a run's response
 * indices do not depend on reply timing. Throws RecordingStopped after a limit (what arrived is kept).
 */
export async function recordResponses(env: Environment, requests: RecordRequest[]): Promise<number[]> {
  const { cache } = env;
  const rec = env.recording;
  if (!rec) throw new SettingsError(`miss = record needs a live endpoint, and none is attached to cache ${cache.file}`);
  if (rec.busy) throw new Error('record tier: asked again while a batch of calls is in flight (replay one method at a time per recording)');
  rec.busy = true;
  try {
    return await recordMissing(env, rec, requests);
  } finally {
    rec.busy = false;
  }
}

async function recordMissing(env: Environment, rec: Recording, requests: RecordRequest[]): Promise<number[]> {
  const { cache } = env;
  if (rec.journal) readOthers(cache, rec.journal);
  const keys = requests.map((r) => requestKey(recordRequestIds(cache, r)));
  const ids = requests.map((r, k) => recordedResponseId(recordRequestIds(cache, r), keys[k]));
  const todo: number[] = [];
  const asked = new Set<string>();
  ids.forEach((id, k) => {
    if (!cache.responseIndex.has(id) && !asked.has(id)) {
      asked.add(id);
      todo.push(k);
    }
  });
  const replies = new Map<string, ResponseRecord>();
  let failure: Error | undefined;
  let next = 0;
  const worker = async () => {
    while (next < todo.length && !failure && !rec.stopped) {
      rec.stopped = limitReached(rec);
      if (rec.stopped) break;
      const k = todo[next];
      const r = requests[k];
      const question = cache.questions[r.q];
      const agent = cache.agents[r.agent];
      const request = { cache, question, agent, round: r.round, context: r.context, prev: r.prev, sample: r.sample, idempotencyKey: keys[k] };
      // The endpoint's cap is asked before the intent is journaled: a refused call is no call.
      rec.stopped = rec.endpoint.refuses?.(request) ?? undefined;
      if (rec.stopped) break;
      next++;
      rec.spent.calls++;
      if (rec.unanswered.has(ids[k])) rec.reasked++;
      if (rec.journal) appendJournal(rec.journal, { type: 'intent', id: ids[k], key: keys[k] });
      try {
        const reply = await rec.endpoint.respond(request);
        const record: ResponseRecord = {
          type: 'response',
          id: ids[k],
          question: question.id,
          agent: agent.id,
          round: r.round,
          sample: r.sample,
          context: r.context.map((c) => c.id),
          prev: r.prev?.id ?? null,
          ...replyFields(reply),
        };
        if (rec.journal) appendJournal(rec.journal, record);
        replies.set(ids[k], record);
        rec.spent.inTokens += reply.inTokens;
        rec.spent.outTokens += reply.outTokens;
        rec.spent.cost += callCost(cache, r.agent, reply.inTokens, reply.outTokens);
      } catch (e) {
        if (e instanceof EndpointCapReached) {
          rec.spent.calls--; // refused at the cap (another user of the endpoint spent it meanwhile): not sent
          rec.stopped ??= e.message;
        }
        // A user error (the service refused, or kept failing) stays one; anything else is a bug, its stack the cause's.
        else
          failure ??= new (e instanceof UserError ? UserError : Error)(
            `record tier: endpoint ${rec.endpoint.name} failed for agent '${agent.id}' ` +
              `on question '${question.id}' at round ${r.round}: ${(e as Error).message}`,
            { cause: e },
          );
      }
      // A stand-in endpoint answers at once, so this loop may never reach the event loop: a stop
      // point after each reply (journaled whole) lets Ctrl-C in before the next call.
      await stopPoint('record replies');
    }
  };
  await Promise.all(Array.from({ length: Math.min(rec.concurrency, todo.length) }, worker));
  for (const k of todo) {
    const record = replies.get(ids[k]);
    if (record) rec.recorded.push(appendResponse(cache, record));
  }
  syncIndex(env);
  if (failure) throw failure;
  if (replies.size < todo.length && rec.stopped) throw new RecordingStopped(rec.stopped);
  return ids.map((id) => cache.responseIndex.get(id)!);
}

/** Record the round-1 answers the cache lacks for the team on questions `qs` (sample 0); none under the recorded protocol (a member the log lacks has no turn). */
export async function recordFirstRound(env: Environment, qs: number[]): Promise<void> {
  if (env.turns) return;
  syncIndex(env);
  const A = env.cache.agents.length;
  const requests: RecordRequest[] = [];
  for (const q of qs) for (const a of env.team) if (!env.round1.has(q * A + a)) requests.push({ q, agent: a, round: 1, context: [], prev: null, sample: 0 });
  if (requests.length) await recordResponses(env, requests);
}

/**
 * Record the responses of round d.round + 1 that no cached response answers exactly, for every
 * debate with its keep[i][j] and the members that revise (`revise[k][i]`: a call not made is never
 * asked); returns, per debate and recipient, the recorded response (-1: the exact tier answers it,
 * or no call).
 */
export async function recordRound(env: Environment, debates: Debate[], keeps: boolean[][][], revise: boolean[][]): Promise<number[][]> {
  syncIndex(env);
  const { cache } = env;
  const n = env.team.length;
  const requests: RecordRequest[] = [];
  const at: [number, number][] = [];
  debates.forEach((d, k) => {
    if (d.missed) return;
    for (let i = 0; i < n; i++) {
      if (!revise[k][i]) continue;
      const kept = candidateOrder(n, i)
        .filter((_, j) => keeps[k][i][j])
        .map((c) => d.current[c]);
      const own = d.current[i];
      if (exactHits(env, d.q, env.team[i], d.round + 1, own, kept)) continue;
      requests.push({
        q: d.q,
        agent: env.team[i],
        round: d.round + 1,
        context: kept.map((c) => cache.responses[c.source]),
        prev: cache.responses[own.source],
        sample: 0,
      });
      at.push([k, i]);
    }
  });
  const recorded = debates.map(() => new Array<number>(n).fill(-1));
  if (requests.length) (await recordResponses(env, requests)).forEach((index, r) => (recorded[at[r][0]][at[r][1]] = index));
  return recorded;
}

/**
 * The recorded protocol's counterpart of recordRound: record the replies of one turn per debate
 * (`turns[k]`, none where debate k has no turn left) that no cached response answers exactly, each
 * asked with what the turn shows in its recorded prompt's order (protocol.ts shownInLogOrder);
 * returns, per debate, the recorded response (-1: the exact tier answers it, or no turn).
 */
export async function recordTurns(env: Environment, debates: Debate[], turns: (RecordedTurn | undefined)[]): Promise<number[]> {
  syncIndex(env);
  const { cache } = env;
  const requests: RecordRequest[] = [];
  const at: number[] = [];
  turns.forEach((turn, k) => {
    const d = debates[k];
    if (!turn) return;
    const own = d.current[turn.member];
    const agent = env.team[turn.member];
    if (exactHits(env, d.q, agent, d.round + 1, own, turn.shown, turn.ext)) return;
    requests.push({ q: d.q, agent, round: d.round + 1, context: shownInLogOrder(cache, turn), prev: cache.responses[own.source], sample: 0 });
    at.push(k);
  });
  const recorded = turns.map(() => -1);
  if (requests.length) (await recordResponses(env, requests)).forEach((index, r) => (recorded[at[r]] = index));
  return recorded;
}
