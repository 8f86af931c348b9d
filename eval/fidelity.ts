// `fidelity` (docs/method.md §3, last paragraph), the measurement: does a replay with the tier-3 response
// model tell what the debate would have done? On a cache whose endpoint answers every context (a
// simulated cache's simulator, or a recorded cache's fitted simulator), every method runs on the same
// questions and seeds twice: with the fitted model answering what the cache lacks (miss = model) and
// with the endpoint answering it (miss = record). Per method: accuracy and cost under both, the
// difference with a paired 95% interval over questions, and Kendall's tau-b of the two rankings of
// the methods. Beside it, the model's bias on every round-2 context (each subset of candidates a
// recipient may keep, on each question): the endpoint's answers against the model's expected
// accuracy, for the response-model forms. And per method, the same comparison where the method
// itself went: at the lookups the model answered in its miss = model replay. A learned method can
// read differently under the two tiers with the model right where it went (the debate then unfolds
// differently) or because it went where the model is wrong: this column tells the two apart.
// The tables and files: fidelityReport.ts; the job (options, loading, writing): jobs/fidelity.ts.
import type { Embeddings } from '../src/cache/embeddings.ts';
import type { Cache, Question } from '../src/cache/types.ts';
import { internAnswer } from '../src/cache/load.ts';
import { candidateOrder } from '../src/env/actions.ts';
import { edgesOnly, startDebate, type DecisionRule } from '../src/env/debate.ts';
import type { Endpoint, EndpointRequest } from '../src/env/endpoint.ts';
import type { Environment } from '../src/env/environment.ts';
import { answerProbabilities, type ResponseModel, type RevisionContext } from '../src/env/responseModel.ts';
import { fitResponseModel } from '../src/env/responseModelFit.ts';
import type { DebateSettings } from '../src/env/settings.ts';
import type { TierCounts } from '../src/env/tiers.ts';
import { normalizeAnswer } from '../src/answer.ts';
import type { PolicyEngine } from '../src/policy/engine.ts';
import { kendallTauB, pairedBootstrap, pairedDifference, sd, type Estimate } from '../src/significance.ts';
import { freezeGate, fullDebate, noCommunication, randomPruning, runRule, singleAgent } from './baselines.ts';
import type { MethodResult } from '../src/env/tally.ts';
import { consistency, consistencyBest, consistencyFuse } from './consistency.ts';
import { evaluatePolicy } from '../src/policy/evaluate.ts';
import { perQuestion, tierShares, type MethodGroup } from './comparison.ts';
import { staticMask } from './staticMask.ts';

/** The oracle pruner: keeps exactly the candidates whose answer is right. It reads the gold answer. */
export const ORACLE = 'Oracle: keeps only correct candidates (reads gold)';
const oracleRule = (env: Environment): DecisionRule =>
  edgesOnly((d, n) => Array.from({ length: n }, (_, i) => candidateOrder(n, i).map((c) => d.current[c].ans === env.cache.questions[d.q].goldKey)));

interface PolicyRun {
  path: string;
  engine: PolicyEngine;
  encoder: string;
}

/** What both replays run: the same questions, seeds, trained masks and policies. */
export interface Plan {
  questions: Question[];
  validation: Question[];
  keepRates: number[];
  seeds: number[];
  masks: Float64Array[];
  policies: { label: string; runs: PolicyRun[] }[];
}

/** Every method of the plan on one replay, in a fixed order (`done` is told each method as it ends). Runners may be synchronous or not. */
async function runMethods(env: Environment, embeddings: Map<string, Embeddings>, p: Plan, done?: (method: string) => void): Promise<MethodGroup[]> {
  const groups: MethodGroup[] = [];
  const push = (g: MethodGroup) => {
    groups.push(g);
    done?.(g.method);
  };
  const one = (r: MethodResult) => push({ method: r.method, runs: [r] });
  const { questions } = p;
  const members = env.team.map((_, m) => m);
  const full = await fullDebate(env, questions);
  one(full);
  one(await noCommunication(env, questions));
  for (const m of members) one(await singleAgent(env, questions, m));
  for (const m of members) one(await consistency(env, questions, m));
  one(await consistencyBest(env, questions, p.validation, full.cost));
  one(await consistencyFuse(env, questions, full.cost));
  for (const gate of ['always', 'on-change'] as const) one(await freezeGate(env, questions, gate));
  for (const rate of p.keepRates) {
    const runs: MethodResult[] = [];
    for (const s of p.seeds) runs.push(await randomPruning(env, questions, rate, s));
    push({ method: `Random pruning (keep ${(100 * rate).toFixed(0)}%)`, runs });
  }
  one(await runRule(env, questions, ORACLE, oracleRule(env)));
  if (p.masks.length) {
    const runs: MethodResult[] = [];
    for (const theta of p.masks) runs.push(await staticMask(env, questions, theta));
    push({ method: 'Static learned mask', runs });
  }
  for (const g of p.policies) {
    const runs: MethodResult[] = [];
    for (const r of g.runs) runs.push(await evaluatePolicy(r.engine, env, embeddings.get(r.encoder)!, questions, r.path));
    push({ method: g.label, runs, policy: true });
  }
  return groups;
}

export interface FidelityRow {
  method: string;
  runs: number;
  /** Accuracy % (mean over runs) under each tier, and its sd over the runs (NaN for one run). */
  accuracy: { model: number; record: number };
  sd: { model: number; record: number };
  /** Cost % of Full-Debate under record on the same questions. */
  cost: { model: number; record: number };
  /** model − record: accuracy in pp, cost in pp of Full-Debate's (record) cost; paired bootstrap over questions. */
  delta: { accuracy: Estimate; cost: Estimate };
  /** Shares (%) of the revision lookups each tier answered, in the miss = model replay and in the miss = record one. */
  tiers: { model: TierCounts; record: TierCounts };
  /** Where the method went: model − endpoint probability of the gold answer (pp) at the lookups the model answered (visitedBias). */
  visited?: VisitedBias;
}

export function fidelityRows(model: MethodGroup[], record: MethodGroup[]): FidelityRow[] {
  const reference = record[0].runs[0]; // Full-Debate under record
  const questions = reference.outcomes.map((o) => o.q);
  const referenceCost = reference.outcomes.map((o) => o.cost);
  const accuracy = (g: MethodGroup) => (100 * g.runs.reduce((s, r) => s + r.correct, 0)) / g.runs.reduce((s, r) => s + r.questions, 0);
  const cost = (g: MethodGroup) => (100 * g.runs.reduce((s, r) => s + r.cost, 0)) / g.runs.length / reference.cost;
  return model.map((m, k) => {
    const r = record[k];
    const runAccuracy = (g: MethodGroup) => g.runs.map((x) => (100 * x.correct) / x.questions);
    return {
      method: m.method,
      runs: m.runs.length,
      accuracy: { model: accuracy(m), record: accuracy(r) },
      sd: { model: sd(runAccuracy(m)), record: sd(runAccuracy(r)) },
      cost: { model: cost(m), record: cost(r) },
      delta: pairedDifference(perQuestion(m.method, m.runs, questions), perQuestion(r.method, r.runs, questions), referenceCost, {
        seed: `fidelity ${m.method}`,
      }),
      tiers: { model: tierShares(m.runs), record: tierShares(r.runs) },
    };
  });
}

/** Share of `samples` endpoint replies to a request (samples 0..samples-1) that state the gold answer. */
async function endpointRight(endpoint: Endpoint, request: Omit<EndpointRequest, 'sample'>, samples: number): Promise<number> {
  const { cache, question } = request;
  let right = 0;
  for (let sample = 0; sample < samples; sample++) {
    const reply = await endpoint.respond({ ...request, sample });
    right += +(internAnswer(cache, normalizeAnswer(reply.answer, question.answerType), question.index) === question.goldKey);
  }
  return right / samples;
}

/** A response model's probability of the gold answer in a revision context. */
function modelRight(model: ResponseModel, context: RevisionContext, goldKey: number): number {
  const { answers, p } = answerProbabilities(model, context);
  const g = answers.indexOf(goldKey);
  return g < 0 ? 0 : p[g];
}

/** A lookup the tier-3 model answered in a miss = model replay: what it was asked. */
interface ModelLookup {
  round: number;
  /** Response indices shown: the recipient's own previous response and the kept ones (a stand-in by its text source, as the replay showed it). */
  own: number;
  kept: number[];
  /** External texts shown (the recorded protocol), as indices into cache.externals. */
  ext: number[];
  context: RevisionContext;
}

export interface VisitedBias extends Estimate {
  /** Lookups the model answered in the method's replay, and of them those asked of the endpoint. */
  lookups: number;
  asked: number;
}

/**
 * The model's answers where a method went: of the lookups the model answered in the method's
 * miss = model replay, at most `cap` (evenly spaced), each asked of the endpoint `samples` times
 * with the same context, against the model's probability of the gold answer there. Bias = model −
 * endpoint (pp), 95% bootstrap over questions; undefined when the model answered nothing.
 */
async function visitedBias(
  env: Environment,
  endpoint: Endpoint,
  lookups: ModelLookup[],
  questions: Question[],
  samples: number,
  cap: number,
  seed: string,
): Promise<VisitedBias | undefined> {
  if (!lookups.length || cap <= 0) return undefined;
  const { cache } = env;
  const asked = lookups.length <= cap ? lookups : Array.from({ length: cap }, (_, i) => lookups[Math.floor((i * lookups.length) / cap)]);
  const slot = new Map(questions.map((q, i) => [q.index, i]));
  const num = new Array<number>(questions.length).fill(0),
    den = new Array<number>(questions.length).fill(0);
  for (const l of asked) {
    const question = cache.questions[l.context.q];
    const right = await endpointRight(
      endpoint,
      {
        cache,
        question,
        agent: cache.agents[l.context.agent],
        round: l.round,
        // External texts after the answers, not in the log's order: the fitted simulator reads what is shown, not its order.
        context: [...l.kept.map((i) => cache.responses[i]), ...l.ext.map((e) => cache.externals[e])],
        prev: cache.responses[l.own],
      },
      samples,
    );
    const i = slot.get(question.index)!;
    num[i] += 100 * (modelRight(env.responseModel, l.context, question.goldKey) - right);
    den[i]++;
  }
  return { ...pairedBootstrap([{ num, den }], { seed: `visited ${seed}` })[0], lookups: lookups.length, asked: asked.length };
}

export interface BiasCell {
  cell: string;
  contexts: number;
  /** Accuracy % of the endpoint's answers. */
  endpoint: number;
  /** Per model: its expected accuracy % and its bias (expected − endpoint, pp, bootstrap over questions). */
  models: { name: string; expected: number; bias: Estimate }[];
}

const BIAS_CELLS: { cell: string; keep: (prevRight: boolean, ownKept: boolean) => boolean }[] = [
  { cell: 'every context', keep: () => true },
  { cell: 'right recipient, own response kept', keep: (right, own) => right && own },
  { cell: 'right recipient, own response pruned', keep: (right, own) => right && !own },
  { cell: 'wrong recipient, own response kept', keep: (right, own) => !right && own },
  { cell: 'wrong recipient, own response pruned', keep: (right, own) => !right && !own },
];

/**
 * Bias of response models on every round-2 context of `questions`: for each recipient, each subset
 * of its candidates (the debate's round-1 responses) kept, `samples` endpoint answers against each
 * model's probability of the gold answer. Cells by whether the recipient's previous answer is right
 * and whether its own response is kept.
 */
export async function contextBias(
  env: Environment,
  endpoint: Endpoint,
  models: { name: string; model: ResponseModel }[],
  questions: Question[],
  samples: number,
): Promise<BiasCell[]> {
  const { cache } = env;
  const n = env.team.length;
  const contexts: { qi: number; prevRight: boolean; ownKept: boolean; endpoint: number; expected: number[] }[] = [];
  for (const [qi, question] of questions.entries()) {
    const d = startDebate(env, question.index);
    for (let i = 0; i < n; i++) {
      const order = candidateOrder(n, i);
      const agent = env.team[i];
      const prev = cache.responses[d.current[i].source];
      for (let mask = 0; mask < 1 << n; mask++) {
        const kept = order.filter((_, j) => mask & (1 << j)).map((c) => cache.responses[d.current[c].source]);
        const right = await endpointRight(endpoint, { cache, question, agent: cache.agents[agent], round: 2, context: kept, prev }, samples);
        const context = {
          q: question.index,
          agent,
          prev: prev.ans,
          prevShown: (mask & 1) === 1,
          peers: kept.filter((r) => r.a !== agent).map((r) => ({ agent: r.a, ans: r.ans })),
        };
        const expected = models.map(({ model }) => modelRight(model, context, question.goldKey));
        contexts.push({ qi, prevRight: prev.correct, ownKept: (mask & 1) === 1, endpoint: right, expected });
      }
    }
  }
  return BIAS_CELLS.map(({ cell, keep }) => {
    const inCell = contexts.filter((c) => keep(c.prevRight, c.ownKept));
    const count = new Array<number>(questions.length).fill(0);
    for (const c of inCell) count[c.qi]++;
    const sumBy = (value: (c: (typeof inCell)[number]) => number) => {
      const s = new Array<number>(questions.length).fill(0);
      for (const c of inCell) s[c.qi] += value(c);
      return s;
    };
    const share = (s: number[]) => (100 * s.reduce((a, b) => a + b, 0)) / Math.max(1, inCell.length);
    const biases = inCell.length
      ? pairedBootstrap(
          models.map((_, k) => ({ num: sumBy((c) => 100 * (c.expected[k] - c.endpoint)), den: count })),
          { seed: `context bias ${cell}` },
        )
      : models.map(() => ({ estimate: NaN, low: NaN, high: NaN }));
    return {
      cell,
      contexts: inCell.length,
      endpoint: share(sumBy((c) => c.endpoint)),
      models: models.map((m, k) => ({ name: m.name, expected: share(sumBy((c) => c.expected[k])), bias: biases[k] })),
    };
  });
}

/** Both forms of the model as the environment fits them (train split), and the base form fitted on every split (the environment's older fit, kept as a reference). */
function biasModels(cache: Cache, { priorSmoothing }: DebateSettings): { name: string; model: ResponseModel }[] {
  return [
    { name: 'base, every split', model: fitResponseModel(cache, { responseModel: 'base', priorSmoothing }, () => true) },
    { name: 'base', model: fitResponseModel(cache, { responseModel: 'base', priorSmoothing }) },
    { name: 'full', model: fitResponseModel(cache, { responseModel: 'full', priorSmoothing }) },
  ];
}

/** One tier's replay: its environment, and the trained policies' embeddings of its load of the cache. */
export interface TierReplay {
  env: Environment;
  embeddings: Map<string, Embeddings>;
}

export interface FidelityMeasurement {
  rows: FidelityRow[];
  /** Kendall's tau-b of the methods ranked under model and under record, by accuracy and by cost. */
  tau: { accuracy: number; cost: number };
  bias: BiasCell[];
}

/**
 * Every method of the plan under miss = model, then under miss = record; per method where it went
 * (of the lookups the model answered, at most `visited` asked of the endpoint, `samples` times
 * each); the rankings' tau; and the model's bias on every round-2 context of the plan's questions.
 */
export async function measureFidelity(
  model: TierReplay,
  record: TierReplay,
  endpoint: Endpoint,
  plan: Plan,
  o: { samples: number; visited: number },
): Promise<FidelityMeasurement> {
  const modelEnv = model.env;
  const { questions } = plan;
  // What the model answered in each method's replay: the lookups since the previous method ended.
  const lookups: ModelLookup[] = [];
  const visited = new Map<string, ModelLookup[]>();
  modelEnv.onModelAnswer = (d, own, kept, context, ext) => lookups.push({ round: d.round + 1, own: own.source, kept: kept.map((k) => k.source), ext, context });
  const modelGroups = await runMethods(modelEnv, model.embeddings, plan, (method) => visited.set(method, lookups.splice(0)));
  modelEnv.onModelAnswer = undefined;
  const recordGroups = await runMethods(record.env, record.embeddings, plan);
  const rows = fidelityRows(modelGroups, recordGroups);
  for (const row of rows) row.visited = await visitedBias(modelEnv, endpoint, visited.get(row.method) ?? [], questions, o.samples, o.visited, row.method);
  const tau = {
    accuracy: kendallTauB(
      rows.map((r) => r.accuracy.model),
      rows.map((r) => r.accuracy.record),
    ),
    cost: kendallTauB(
      rows.map((r) => r.cost.model),
      rows.map((r) => r.cost.record),
    ),
  };
  const bias = await contextBias(modelEnv, endpoint, biasModels(modelEnv.cache, modelEnv.settings), questions, o.samples);
  return { rows, tau, bias };
}
