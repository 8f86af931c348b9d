// The offline debate environment (SPEC §1–3): replays a debate from cached responses, looking
// each revision up in tiers (exact, signature, model, record) and pricing every agent call.
//
// A debate is stepped round by round so that a trainer can run many debates in lockstep:
//   const d = startDebate(env, q, seed);              // round 1: independent answers
//   while (d.round < env.rounds) stepRound(env, d, keep); // keep[recipient][candidate]
//   const result = finishDebate(env, d);
// Candidates of recipient i are ordered own response first, then the others in team order.
import seedrandom from 'seedrandom';
import type { ResponseRecord, Split } from '../cache/format.ts';
import { appendResponse, type Cache, type Question, type Response } from '../cache/load.ts';
import { drawAnswer, fitResponseModel, type ResponseModel } from './responseModel.ts';
import { DebateSettings, type MissTier } from './settings.ts';

export const TIERS = ['exact', 'signature', 'model', 'record'] as const;
export type Tier = (typeof TIERS)[number];
export type TierCounts = Record<Tier, number>;
export const emptyTiers = (): TierCounts => ({ exact: 0, signature: 0, model: 0, record: 0 });

/** A live model endpoint for the `record` tier: answers any context. */
export interface Endpoint {
  respond(request: {
    cache: Cache;
    question: Question;
    agent: number;
    round: number;
    context: Response[];
    prev: Response | null;
    sample: number;
  }): Omit<ResponseRecord, 'type' | 'id' | 'question' | 'agent' | 'round' | 'sample' | 'context' | 'prev'>;
}

export class CacheMissError extends Error {
  constructor(cache: Cache, q: number, agent: number, round: number, context: string) {
    super(
      `cache miss in ${cache.file}: no response of agent '${cache.agents[agent].id}' to question ` +
        `'${cache.questions[q].id}' at round ${round} with context [${context}] (miss = error; ` +
        `set miss to signature, model or record to look deeper)`,
    );
    this.name = 'CacheMissError';
  }
}

export interface Environment {
  cache: Cache;
  settings: DebateSettings;
  /** Team as agent indices, in debate order. */
  team: number[];
  rounds: number;
  endpoint?: Endpoint;
  exact: Map<string, number[]>;
  signature: Map<string, number[]>;
  /** Round-1 responses per question and agent (key q * agents + a), by sample. */
  round1: Map<number, number[]>;
  /** Responses per question and answer (key `q|ans`), for tier-3 text. */
  byAnswer: Map<string, number[]>;
  /** The fitted tier-3 response model (responseModel.ts). */
  responseModel: ResponseModel;
  /** Lookups per tier since the environment was made (revisions only: rounds >= 2). */
  tiers: TierCounts;
  /** Responses the record tier added; they are in `cache` too, to be saved with it. */
  recorded: Response[];
}

const exactKey = (q: number, a: number, t: number, ctx: number[]) => `${q}|${a}|${t}|${[...ctx].sort((x, y) => x - y).join(',')}`;

/** Key of a context's (source agent, parsed answer) multiset; an external entry's source is agent `A`. */
function signatureKey(q: number, a: number, t: number, agents: number[], answers: number[]): string {
  const codes = agents.map((s, i) => s * 1048576 + answers[i] + 1).sort((x, y) => x - y);
  return `${q}|${a}|${t}|${codes.join(',')}`;
}

function push<K>(map: Map<K, number[]>, key: K, value: number) {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

function indexResponse(env: Environment, r: Response) {
  const A = env.cache.agents.length;
  if (r.round === 1) push(env.round1, r.q * A + r.a, r.index);
  else {
    // A context with external entries is one no debate here can rebuild: no exact key for it.
    if (r.ext.length === 0) push(env.exact, exactKey(r.q, r.a, r.round, r.ctx), r.index);
    const ctx = r.ctx.map((c) => env.cache.responses[c]);
    const ext = r.ext.map((e) => env.cache.externals[e]);
    const agents = [...ctx.map((c) => c.a), ...ext.map(() => A)];
    push(env.signature, signatureKey(r.q, r.a, r.round, agents, [...ctx.map((c) => c.ans), ...ext.map((e) => e.ans)]), r.index);
  }
  push(env.byAnswer, `${r.q}|${r.ans}`, r.index);
}

export function makeEnvironment(cache: Cache, settings: Partial<DebateSettings> = {}, endpoint?: Endpoint): Environment {
  const s = DebateSettings.parse(settings);
  const team = (s.agents ?? cache.agents.map((a) => a.id)).map((id) => {
    const a = cache.agentIndex.get(id);
    if (a === undefined) throw new Error(`setting agents: unknown agent '${id}' (cache ${cache.file} has ${cache.agents.map((x) => x.id).join(', ')})`);
    return a;
  });
  if (s.miss === 'record' && !endpoint) throw new Error(`setting miss = record needs a live endpoint, and cache ${cache.file} has none configured`);
  const env: Environment = {
    cache,
    settings: s,
    team,
    rounds: s.rounds,
    endpoint,
    exact: new Map(),
    signature: new Map(),
    round1: new Map(),
    byAnswer: new Map(),
    responseModel: fitResponseModel(cache, s),
    tiers: emptyTiers(),
    recorded: [],
  };
  for (const r of cache.responses) indexResponse(env, r);
  for (const list of env.round1.values()) list.sort((x, y) => cache.responses[x].sample - cache.responses[y].sample);
  return env;
}

/**
 * The questions of a split this team can debate: those where every member has a round-1 response
 * (imported debates vary in team size), or all of them when the record tier can answer.
 */
export function splitQuestions(env: Environment, split: Split): { questions: Question[]; skipped: number } {
  const A = env.cache.agents.length;
  const all = env.cache.questions.filter((q) => q.split === split);
  const questions = env.settings.miss === 'record' ? all : all.filter((q) => env.team.every((a) => env.round1.has(q.index * A + a)));
  return { questions, skipped: all.length - questions.length };
}

export const teamIds = (env: Environment) => env.team.map((a) => env.cache.agents[a].id);

/** One agent's response inside a debate. */
export interface DebateResponse {
  agent: number;
  ans: number;
  /** Cache response whose text, tokens and embedding this response uses. */
  source: number;
  /** True when `source` is itself this response (not a tier-3 stand-in), so exact keys can use it. */
  cached: boolean;
}

export interface Debate {
  q: number;
  round: number;
  current: DebateResponse[];
  /** answers[t-1][i]: answer key of team member i at round t. */
  answers: number[][];
  /** keeps[t-2][i][j]: recipient i kept candidate j at round t. */
  keeps: boolean[][][];
  cost: number;
  keptEdges: number;
  tiers: TierCounts;
  random: () => number;
}

function lazyRandom(seed: string): () => number {
  let rng: (() => number) | undefined;
  return () => (rng ??= seedrandom(seed))();
}

export function callCost(cache: Cache, agent: number, inTokens: number, outTokens: number): number {
  const a = cache.agents[agent];
  return inTokens * a.priceIn + outTokens * a.priceOut;
}

/** Candidate order for recipient i: own response first, then the others in team order. */
export function candidateOrder(teamSize: number, i: number): number[] {
  const order = [i];
  for (let j = 0; j < teamSize; j++) if (j !== i) order.push(j);
  return order;
}

function record(env: Environment, q: number, agent: number, round: number, context: Response[], prev: Response | null, sample: number): Response {
  const { cache } = env;
  const question = cache.questions[q];
  const reply = env.endpoint!.respond({ cache, question, agent, round, context, prev, sample });
  const base = `rec/${question.id}/${cache.agents[agent].id}/r${round}/${context.map((c) => c.index).sort((x, y) => x - y).join('+')}/s${sample}`;
  let id = base;
  for (let k = 2; cache.responseIndex.has(id); k++) id = `${base}#${k}`;
  const r = appendResponse(cache, {
    type: 'response',
    id,
    question: question.id,
    agent: cache.agents[agent].id,
    round,
    sample,
    context: context.map((c) => c.id),
    prev: prev?.id ?? null,
    ...reply,
  });
  indexResponse(env, r);
  env.recorded.push(r);
  return r;
}

const pick = (list: number[], random: () => number) => (list.length === 1 ? list[0] : list[Math.floor(random() * list.length)]);

export function startDebate(env: Environment, q: number, seed: string | number = env.settings.seed): Debate {
  const { cache } = env;
  const random = lazyRandom(`${seed}|${cache.questions[q].id}`);
  const A = cache.agents.length;
  const prompt = cache.questions[q].promptTokens;
  let cost = 0;
  const current = env.team.map((a) => {
    let samples = env.round1.get(q * A + a);
    if (!samples) {
      if (env.settings.miss !== 'record') throw new CacheMissError(cache, q, a, 1, '');
      samples = [record(env, q, a, 1, [], null, 0).index];
    }
    const r = cache.responses[env.settings.round1Sample === 'first' ? samples[0] : pick(samples, random)];
    cost += callCost(cache, a, prompt, r.outTokens);
    return { agent: a, ans: r.ans, source: r.index, cached: true };
  });
  return { q, round: 1, current, answers: [current.map((r) => r.ans)], keeps: [], cost, keptEdges: 0, tiers: emptyTiers(), random };
}

/**
 * Text source for a tier-3 answer: the recipient's own response with that answer (nearest round,
 * earlier first), else another agent's. Every answer the response model can draw is stated by some
 * cached response to the question (previous, peers', round-1), so SPEC §3's "model-bare" fallback
 * cannot arise here and is not counted.
 */
function standIn(env: Environment, q: number, agent: number, round: number, ans: number): number {
  let best = -1;
  let bestScore = Infinity;
  for (const idx of env.byAnswer.get(`${q}|${ans}`)!) {
    const r = env.cache.responses[idx];
    const score = (r.a === agent ? 0 : 1000) + Math.abs(r.round - round) * 10 + (r.round < round ? 0 : 1);
    if (score < bestScore) [best, bestScore] = [idx, score];
  }
  return best;
}

function lookup(env: Environment, d: Debate, agent: number, own: DebateResponse, kept: DebateResponse[]): { response: DebateResponse; tier: Tier } {
  const { cache } = env;
  const t = d.round + 1;
  const miss: MissTier = env.settings.miss;
  if (kept.every((k) => k.cached)) {
    const hit = env.exact.get(exactKey(d.q, agent, t, kept.map((k) => k.source)));
    if (hit) return { response: fromCache(cache, pick(hit, d.random)), tier: 'exact' };
  }
  if (miss === 'error') throw new CacheMissError(cache, d.q, agent, t, kept.map((k) => (k.cached ? cache.responses[k.source].id : `(tier-3 ${cache.agents[k.agent].id})`)).join(', '));
  // With a live endpoint the approximate tiers never stand in for a real answer.
  const sig = miss === 'record' ? undefined : env.signature.get(signatureKey(d.q, agent, t, kept.map((k) => k.agent), kept.map((k) => k.ans)));
  if (sig) return { response: fromCache(cache, pick(sig, d.random)), tier: 'signature' };
  if (miss === 'signature') throw new CacheMissError(cache, d.q, agent, t, `signature ${kept.map((k) => `${cache.agents[k.agent].id}:${k.ans < 0 ? '-' : cache.answerKeys[k.ans]}`).join(', ')}`);
  if (miss === 'record') {
    const context = kept.map((k) => cache.responses[k.source]);
    const r = record(env, d.q, agent, t, context, own.cached ? cache.responses[own.source] : null, 0);
    return { response: fromCache(cache, r.index), tier: 'record' };
  }
  const peers = kept.filter((k) => k.agent !== agent);
  const ans = drawAnswer(env.responseModel, { q: d.q, agent, prev: own.ans, prevShown: peers.length < kept.length, peers }, d.random);
  return { response: { agent, ans, source: standIn(env, d.q, agent, t, ans), cached: false }, tier: 'model' };
}

function fromCache(cache: Cache, index: number): DebateResponse {
  const r = cache.responses[index];
  return { agent: r.a, ans: r.ans, source: index, cached: true };
}

/** Play round d.round + 1 with keep[i][j] for recipient i and candidate j (see candidateOrder). */
export function stepRound(env: Environment, d: Debate, keep: boolean[][]): void {
  const { cache } = env;
  const n = env.team.length;
  const prompt = cache.questions[d.q].promptTokens;
  const next: DebateResponse[] = new Array(n);
  for (let i = 0; i < n; i++) {
    const order = candidateOrder(n, i);
    const kept: DebateResponse[] = [];
    let inTokens = prompt;
    for (let j = 0; j < n; j++) {
      if (!keep[i][j]) continue;
      const c = d.current[order[j]];
      kept.push(c);
      inTokens += cache.responses[c.source].outTokens;
    }
    d.keptEdges += kept.length;
    const { response, tier } = lookup(env, d, env.team[i], d.current[i], kept);
    d.tiers[tier]++;
    env.tiers[tier]++;
    d.cost += callCost(cache, env.team[i], inTokens, cache.responses[response.source].outTokens);
    next[i] = response;
  }
  d.current = next;
  d.round++;
  d.answers.push(next.map((r) => r.ans));
  d.keeps.push(keep);
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
  final: number;
  finalCorrect: boolean;
  /** No parsed final-round answer at all. */
  invalid: boolean;
  cost: number;
  keptEdges: number;
  tiers: TierCounts;
}

export function finishDebate(env: Environment, d: Debate): DebateResult {
  const gold = env.cache.questions[d.q].goldKey;
  const final = majority(d.answers[d.answers.length - 1], env.settings.tieBreak, d.random);
  return {
    q: d.q,
    answers: d.answers,
    correct: d.answers.map((row) => row.map((a) => a === gold)),
    keeps: d.keeps,
    final,
    finalCorrect: final === gold,
    invalid: final < 0,
    cost: d.cost,
    keptEdges: d.keptEdges,
    tiers: d.tiers,
  };
}

/** A fixed pruning rule: keep[i][j] for a round, given the debate so far. */
export type KeepRule = (d: Debate, team: number) => boolean[][];

export function replay(env: Environment, q: number, rule: KeepRule, seed?: string | number): DebateResult {
  const d = startDebate(env, q, seed);
  while (d.round < env.rounds) stepRound(env, d, rule(d, env.team.length));
  return finishDebate(env, d);
}

export const keepAll: KeepRule = (_d, n) => Array.from({ length: n }, () => new Array<boolean>(n).fill(true));
export const keepOwn: KeepRule = (_d, n) => Array.from({ length: n }, () => Array.from({ length: n }, (_, j) => j === 0));
