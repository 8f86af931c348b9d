// The debate loop (docs/method.md §1-2): a debate is stepped round by round so that a trainer can run many
// debates in lockstep:
//   const d = startDebate(env, q, seed);                  // round 1: independent answers
//   while (d.round < env.rounds) stepRound(env, d, { keep, revise, stop });  // a RoundDecision
//   const result = finishDebate(env, d);
// A round's decisions are data (docs/architecture.md): keep[recipient][candidate], whether each
// member revises (one that does not makes no call and keeps its response), and whether the debate
// stops (no member revises in this round or any later one). Candidates of recipient i are ordered
// own response first, then the others in team order (actions.ts). Each revision is looked up in tiers (tiers.ts) and every call is priced (cost.ts:
// recorded input tokens where the call is the recorded one, computed ones elsewhere).
// The asynchronous startDebates / stepDebates / playDebates do the same for many debates at once
// and, with a live endpoint, first record what the cache lacks (record.ts); a debate that misses
// under miss = signature is marked and left out, not fatal.
import seedrandom from 'seedrandom';
import { pick } from '../shuffle.ts';
import { candidateOrder } from './actions.ts';
import { callCost, pricedFromRecord, pricing, type PricingCounts } from './cost.ts';
import type { Environment } from './environment.ts';
import { recordedTurns, type RecordedTurn } from './protocol.ts';
import { recordFirstRound, recordRound, recordTurns } from './record.ts';
import type { DebateSettings } from './settings.ts';
import { CacheMissError, emptyTiers, lookup, roundOneMiss, type TierCounts } from './tiers.ts';
import { limitReply, shownTokens } from './tokenLimit.ts';

/** One agent's response inside a debate. */
export interface DebateResponse {
  agent: number;
  ans: number;
  /** Cache response whose text, tokens and embedding this response uses. */
  source: number;
  /** True when `source` is itself this response (not a tier-3 stand-in), so exact keys can use it. */
  cached: boolean;
  /** A reply cut at its agent's token limit: the answer it argued for (`ans` reads unparsed). */
  cutAnswer?: number;
}

export interface Debate {
  q: number;
  round: number;
  current: DebateResponse[];
  /** history[t-1][i]: team member i's response as of round t (the recorded protocol reads earlier rounds' answers). */
  history: DebateResponse[][];
  /** answers[t-1][i]: answer key of team member i at round t. */
  answers: number[][];
  /** keeps[t-2][i][j]: recipient i kept candidate j at round t (false for every j where i did not revise). */
  keeps: boolean[][][];
  /** revises[t-2][i]: member i made its call at round t (false in a stopped round). */
  revises: boolean[][];
  /** The round after which the debate stopped (no member revised after it); absent: it did not stop. */
  stoppedAfter?: number;
  cost: number;
  keptEdges: number;
  tiers: TierCounts;
  random: () => number;
  /**
   * Common random numbers (train/counterfactual.ts): when set, the lookup of `agent`'s reply in
   * round `round` draws from drawsOf(round, agent), and the final vote from drawsOf(round + 1, -1),
   * instead of all of them taking turns on `random`; two replays of a question can then share each
   * lookup's draws whatever the other lookups drew.
   */
  drawsOf?: (round: number, agent: number) => () => number;
  /** Why the debate could not go on (a miss under miss = signature); it is left out of results. */
  missed?: string;
}

/** A member with no round-1 answer in the log (recorded protocol): no response, no answer; never shown, never looked up. */
const absent = (agent: number): DebateResponse => ({ agent, ans: -1, source: -1, cached: false });
export const isPresent = (r: DebateResponse) => r.source >= 0;

function lazyRandom(seed: string): () => number {
  let rng: (() => number) | undefined;
  return () => (rng ??= seedrandom(seed))();
}

export function startDebate(env: Environment, q: number, seed: string | number = env.settings.seed): Debate {
  const { cache } = env;
  const random = lazyRandom(`${seed}|${cache.questions[q].id}`);
  const A = cache.agents.length;
  let cost = 0;
  const current = env.team.map((a) => {
    const samples = env.round1.get(q * A + a);
    // Under the recorded protocol a member the log stopped before it spoke is replayed as recorded: no answer, no call.
    if (!samples && env.turns) return absent(a);
    if (!samples) throw roundOneMiss(env, q, a);
    const r = cache.responses[env.settings.round1Sample === 'first' ? samples[0] : pick(samples, random)];
    const reply = limitReply(env, { agent: a, ans: r.ans, source: r.index, cached: true });
    cost += callCost(cache, a, r.inTokens, shownTokens(env, reply)); // a round-1 answer is the call that was recorded
    return reply;
  });
  return {
    q,
    round: 1,
    current,
    history: [current],
    answers: [current.map((r) => r.ans)],
    keeps: [],
    revises: [],
    cost,
    keptEdges: 0,
    tiers: emptyTiers(),
    random,
  };
}

/**
 * Recipient i's reply in round d.round + 1 to what it was shown (kept answers; external texts under
 * the recorded protocol), looked up in tiers, counted and priced. `recorded`: the response the
 * record tier added for it before (-1: none).
 */
function answerRecipient(env: Environment, d: Debate, i: number, kept: DebateResponse[], ext: number[], recorded = -1): DebateResponse {
  const { cache } = env;
  let inTokens = cache.questions[d.q].promptTokens;
  for (const c of kept) inTokens += shownTokens(env, c);
  for (const e of ext) inTokens += cache.externals[e].tokens;
  const { response, tier } = lookup(env, d, env.team[i], d.current[i], kept, recorded, ext);
  d.tiers[tier]++;
  env.tiers[tier]++;
  const reply = limitReply(env, response);
  const source = cache.responses[response.source];
  d.cost += callCost(cache, env.team[i], pricedFromRecord(tier) ? source.inTokens : inTokens, shownTokens(env, reply));
  return reply;
}

/**
 * The recorded protocol's round d.round + 1 (protocol.ts): its turns in the log's order, each sent
 * its reply (`next(reply)`) before the next turn is built, since a later speaker may read it.
 * A member that does not revise (`revise[m]` false) takes its turn without a call: from its turn
 * on, later speakers read its last answer. Returns the round's replies; the members without a turn
 * keep their answers.
 */
function* recordedRound(env: Environment, d: Debate, keep: boolean[][], revise: boolean[]): Generator<RecordedTurn, DebateResponse[], DebateResponse> {
  const next = [...d.current];
  const spoke = new Array<boolean>(env.team.length).fill(false);
  const answered = (m: number, round: number) => (round <= d.round ? d.history[round - 1][m] : spoke[m] ? next[m] : undefined);
  for (const turn of recordedTurns(env.cache, env.turns!, env.team, d.q, d.round + 1, keep, answered)) {
    if (revise[turn.member]) {
      d.keptEdges += turn.shown.filter((c) => env.team.includes(c.agent)).length;
      next[turn.member] = yield turn;
    } else skip(env, d);
    spoke[turn.member] = true;
  }
  return next;
}

/** A member's call not made: counted, never looked up or priced. */
function skip(env: Environment, d: Debate): void {
  d.tiers.skipped++;
  env.tiers.skipped++;
}

/**
 * Who makes a call in round d.round + 1 under `decision`: nobody once the debate stopped (before
 * or by this decision), else those `revise` does not rule out (everyone without it).
 */
export function revisers(d: Debate, decision: RoundDecision, n: number): boolean[] {
  if (d.stoppedAfter !== undefined || decision.stop) return new Array<boolean>(n).fill(false);
  if (decision.revise && decision.revise.length !== n) throw new Error(`round decision: revise has ${decision.revise.length} entries for a team of ${n}`);
  return Array.from({ length: n }, (_, i) => decision.revise?.[i] ?? true);
}

function closeRound(d: Debate, next: DebateResponse[], keep: boolean[][], revise: boolean[], stop: boolean | undefined): void {
  if (stop && d.stoppedAfter === undefined) d.stoppedAfter = d.round;
  d.current = next;
  d.history.push(next);
  d.round++;
  d.answers.push(next.map((r) => r.ans));
  d.keeps.push(keep.map((row, i) => (revise[i] ? row : row.map(() => false))));
  d.revises.push(revise);
}

/**
 * Play round d.round + 1 under `decision` (keep[i][j] for recipient i and candidate j, see
 * candidateOrder; who revises; stop); `recorded[i]`: the response the record tier added for
 * recipient i before the round (-1: none; synchronous rounds: under the recorded protocol
 * stepDebates records turn by turn).
 */
export function stepRound(env: Environment, d: Debate, decision: RoundDecision, recorded?: number[]): void {
  const n = env.team.length;
  const { keep } = decision;
  const revise = revisers(d, decision, n);
  let next: DebateResponse[];
  if (env.turns) {
    const turns = recordedRound(env, d, keep, revise);
    let step = turns.next();
    while (!step.done) step = turns.next(answerRecipient(env, d, step.value.member, step.value.shown, step.value.ext));
    next = step.value;
  } else {
    next = new Array(n);
    for (let i = 0; i < n; i++) {
      if (!revise[i]) {
        next[i] = d.current[i];
        skip(env, d);
        continue;
      }
      const order = candidateOrder(n, i);
      const kept: DebateResponse[] = [];
      for (let j = 0; j < n; j++) if (keep[i][j]) kept.push(d.current[order[j]]);
      d.keptEdges += kept.length;
      next[i] = answerRecipient(env, d, i, kept, [], recorded?.[i]);
    }
  }
  closeRound(d, next, keep, revise, decision.stop);
}

/**
 * The recorded protocol with a live endpoint: every debate's round turn by turn, in lockstep: the
 * k-th turns of all debates are built, what the cache lacks of them recorded (record.ts), then
 * answered, so that the next turns read those replies. A turn not revised is never asked.
 */
async function stepRecordedTurns(env: Environment, debates: Debate[], decisions: RoundDecision[]): Promise<void> {
  const n = env.team.length;
  const revise = debates.map((d, k) => revisers(d, decisions[k], n));
  const rounds = debates.map((d, k) => (d.missed ? undefined : recordedRound(env, d, decisions[k].keep, revise[k])));
  let steps = rounds.map((g) => g?.next());
  for (;;) {
    const turns = steps.map((s) => (s && !s.done ? s.value : undefined));
    if (!turns.some(Boolean)) break;
    const recorded = await recordTurns(env, debates, turns);
    steps = steps.map((s, k) => {
      const turn = turns[k];
      return turn ? rounds[k]!.next(answerRecipient(env, debates[k], turn.member, turn.shown, turn.ext, recorded[k])) : s;
    });
  }
  steps.forEach((s, k) => s?.done && closeRound(debates[k], s.value, decisions[k].keep, revise[k], decisions[k].stop));
}

/** Majority of parsed answers; ties go to the lowest-numbered agent's answer (or a random tied one). */
export function majority(answers: number[], tieBreak: DebateSettings['tieBreak'], random: () => number): number {
  const counts = new Map<number, number>();
  let best = 0;
  for (const a of answers) {
    if (a < 0) continue;
    const c = (counts.get(a) ?? 0) + 1;
    counts.set(a, c);
    best = Math.max(best, c);
  }
  if (best === 0) return -1;
  const tied = answers.filter((a, i) => a >= 0 && counts.get(a) === best && answers.indexOf(a) === i);
  return tieBreak === 'lowest-agent' ? tied[0] : pick(tied, random);
}

export interface DebateResult {
  q: number;
  /** answers[t-1][i], and whether each is correct. */
  answers: number[][];
  correct: boolean[][];
  keeps: boolean[][][];
  /** revises[t-2][i]: member i made its call at round t. */
  revises: boolean[][];
  /** Calls made (round 1 and revisions); the calls not made are counted in tiers.skipped. */
  calls: number;
  /** The round after which the debate stopped; absent: it did not stop. */
  stoppedAfter?: number;
  final: number;
  finalCorrect: boolean;
  /** No parsed final-round answer at all. */
  invalid: boolean;
  cost: number;
  priced: PricingCounts;
  keptEdges: number;
  tiers: TierCounts;
  /** Set when the debate could not be replayed to the end (miss = signature): count it nowhere but in the skipped list. */
  missed?: string;
}

export function finishDebate(env: Environment, d: Debate): DebateResult {
  const gold = env.cache.questions[d.q].goldKey;
  const priced = pricing(d.tiers, d.history[0].filter(isPresent).length);
  const final = majority(d.answers[d.answers.length - 1], env.settings.tieBreak, d.drawsOf?.(d.round + 1, -1) ?? d.random);
  return {
    q: d.q,
    answers: d.answers,
    correct: d.answers.map((row) => row.map((a) => a === gold)),
    keeps: d.keeps,
    revises: d.revises,
    calls: priced.recorded + priced.computed, // every call made is priced one way or the other
    ...(d.stoppedAfter !== undefined && { stoppedAfter: d.stoppedAfter }),
    final,
    finalCorrect: final === gold,
    invalid: final < 0,
    cost: d.cost,
    priced,
    keptEdges: d.keptEdges,
    tiers: d.tiers,
    ...(d.missed && { missed: d.missed }),
  };
}

/** One round's decisions (docs/architecture.md, "The policy's decisions"). */
export interface RoundDecision {
  /** keep[i][j]: recipient i reads candidate j (candidateOrder); moot where i does not revise. */
  keep: boolean[][];
  /** revise[i]: member i makes its call this round; false: it keeps its response, at no cost. Absent: everyone revises. */
  revise?: boolean[];
  /** No member revises in this round or any later one; the final majority is the current one. */
  stop?: boolean;
}

/** A fixed rule: a round's decisions, given the debate so far. */
export type DecisionRule = (d: Debate, team: number) => RoundDecision;

const keepNothing = (n: number) => Array.from({ length: n }, () => new Array<boolean>(n).fill(false));

/** The decision of a debate that has stopped (its rule is not asked again). */
const stopped = (n: number): RoundDecision => ({ keep: keepNothing(n), stop: true });

/** The rule's decision for d's next round, or the stopped one once d has stopped. */
const decide = (rule: DecisionRule, d: Debate, n: number) => (d.stoppedAfter === undefined ? rule(d, n) : stopped(n));

export function replay(env: Environment, q: number, rule: DecisionRule, seed?: string | number): DebateResult {
  const d = startDebate(env, q, seed);
  while (d.round < env.rounds) stepRound(env, d, decide(rule, d, env.team.length));
  return finishDebate(env, d);
}

/** Step one debate; under miss = signature a miss marks the debate (d.missed) instead of ending the run. */
function stepOrMark(env: Environment, d: Debate, decision: RoundDecision, recorded?: number[]): void {
  try {
    stepRound(env, d, decision, recorded);
  } catch (e) {
    if (!(e instanceof CacheMissError) || env.settings.miss !== 'signature') throw e;
    d.missed = e.message;
  }
}

/** Start debates on questions `qs`; with a live endpoint, the round-1 answers the cache lacks are recorded first. */
export async function startDebates(env: Environment, qs: number[], seed?: string | number): Promise<Debate[]> {
  if (env.recording) await recordFirstRound(env, qs);
  return qs.map((q) => startDebate(env, q, seed));
}

/**
 * Step every debate not yet missed one round, decisions[k] for debate k; with a live endpoint,
 * what the cache lacks is recorded first (never a call that is not made).
 */
export async function stepDebates(env: Environment, debates: Debate[], decisions: RoundDecision[]): Promise<void> {
  if (env.recording && env.turns) return stepRecordedTurns(env, debates, decisions);
  const n = env.team.length;
  const recorded = env.recording
    ? await recordRound(
        env,
        debates,
        decisions.map((dec) => dec.keep),
        debates.map((d, k) => (d.missed ? [] : revisers(d, decisions[k], n))),
      )
    : undefined;
  debates.forEach((d, k) => d.missed || stepOrMark(env, d, decisions[k], recorded?.[k]));
}

/**
 * Replay questions `qs` under a fixed rule. Without an endpoint, one question after another (the
 * rule sees them in that order, as with replay); with one, all in lockstep, so that each round's
 * missing contexts are asked together.
 */
export async function playDebates(env: Environment, qs: number[], rule: DecisionRule, seed?: string | number): Promise<DebateResult[]> {
  const n = env.team.length;
  if (!env.recording)
    return qs.map((q) => {
      const d = startDebate(env, q, seed);
      while (d.round < env.rounds && !d.missed) stepOrMark(env, d, decide(rule, d, n));
      return finishDebate(env, d);
    });
  const debates = await startDebates(env, qs, seed);
  for (let t = 2; t <= env.rounds; t++)
    await stepDebates(
      env,
      debates,
      debates.map((d) => (d.missed ? stopped(n) : decide(rule, d, n))),
    );
  return debates.map((d) => finishDebate(env, d));
}

/** A rule that decides edges only (everyone revises, the debate never stops). */
export const edgesOnly =
  (keep: (d: Debate, team: number) => boolean[][]): DecisionRule =>
  (d, n) => ({ keep: keep(d, n) });

export const keepAll: DecisionRule = (_d, n) => ({ keep: Array.from({ length: n }, () => new Array<boolean>(n).fill(true)) });
export const keepOwn: DecisionRule = (_d, n) => ({ keep: Array.from({ length: n }, () => Array.from({ length: n }, (_, j) => j === 0)) });
export const keepNone: DecisionRule = (_d, n) => ({ keep: keepNothing(n) });
