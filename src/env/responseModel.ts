// Tier-3 response model (SPEC §3): per recipient agent r, the answer it gives after reading its
// kept set, fitted by maximum likelihood on the cached revisions of the train split only.
//
// Base form (SPEC's): a multinomial logit over the answers its context and history make available,
//   P(answer = b) ∝ exp(w_prev·[b = previous] + w_peers·(kept peers answering b) + w_prior·log p_r(b|q)).
// Full form (the default): the same logit with more features of an outcome b,
//   prevShown     [b = previous] · [r's own previous response is kept] (r remembers its answer either way)
//   alone         [b = previous] · [nothing is kept] (r is asked to reflect on its own: another prompt)
//   peerAccuracy  Σ over kept peers answering b of (their agent's accuracy − the team's): peers of an
//                 agent that is usually right may pull harder (or less) than others
//   peersRight    [b is the gold answer] · kept peers answering b: right arguments persuade more than
//                 wrong ones, as they do real agents (the environment reads the gold answer here, as
//                 the reward does; a policy never sees it)
//   agreeing      [b = previous] · kept peers agreeing with the previous answer
//   disagreeing   [b = previous] · kept peers disagreeing with it
// mixed with a share `slip` of revisions answered afresh, from r's round-1 frequencies p_r(b|q)
// alone, whatever it was shown: P = (1 − slip)·logit + slip·p_r. Without that share the logit's
// weights shrink to explain the odd fresh answer, and a lone right (or wrong) peer's pull comes out
// too weak. Fitted by EM (Newton for the logit weights).
//
// p_r(b|q) is r's smoothed frequency of b among its round-1 answers to q, with one bucket for "any
// other answer". The outcome set of a revision is every answer among {previous, kept peers, round-1
// answers} plus that OTHER bucket; drawing leaves OTHER out, since it names no answer. Agent accuracy
// is the smoothed share of right round-1 answers on the train split (external solutions: the team's).
import type { Cache, Response } from '../cache/types.ts';
import { drawIndex } from '../shuffle.ts';
import type { DebateSettings, RESPONSE_MODELS } from './settings.ts';

export const FEATURES = ['prev', 'prevShown', 'alone', 'peers', 'peerAccuracy', 'peersRight', 'agreeing', 'disagreeing', 'prior'] as const;
export type Feature = (typeof FEATURES)[number];
export type ResponseModelForm = (typeof RESPONSE_MODELS)[number];
/** The features each form fits (indices into FEATURES). */
const FORM_FEATURES: Record<ResponseModelForm, number[]> = {
  base: [0, 3, 8],
  full: FEATURES.map((_, k) => k),
};
export const formFeatures = (form: ResponseModelForm): Feature[] => FORM_FEATURES[form].map((k) => FEATURES[k]);

const OTHER = -2; // answer key of the "any other answer" bucket (-1 is "unparsed")
const PRIOR = FEATURES.indexOf('prior');
/** Weights before fitting (no revisions to fit on): the round-1 frequency alone. */
const unfitted = (form: ResponseModelForm): number[] => FORM_FEATURES[form].map((k) => (FEATURES[k] === 'prior' ? 1 : 0));

/** Round-1 answer counts per (question, agent): key q * agents + a. */
export type PriorCounts = Map<number, Map<number, number>>;

export function priorCounts(cache: Cache): PriorCounts {
  const counts: PriorCounts = new Map();
  for (const r of cache.responses) {
    if (r.round !== 1) continue;
    const key = r.q * cache.agents.length + r.a;
    let m = counts.get(key);
    if (!m) counts.set(key, (m = new Map()));
    m.set(r.ans, (m.get(r.ans) ?? 0) + 1);
  }
  return counts;
}

/**
 * Smoothed round-1 accuracy per agent on the questions `use` accepts ((right + 1) / (answers + 2)),
 * and at index A the team's pooled accuracy, which stands for external solutions (no agent) and
 * centres the peerAccuracy feature.
 */
export function agentAccuracy(cache: Cache, use: (q: number) => boolean): number[] {
  const A = cache.agents.length;
  const right = new Array<number>(A + 1).fill(0),
    n = new Array<number>(A + 1).fill(0);
  for (const r of cache.responses) {
    if (r.round !== 1 || !use(r.q)) continue;
    for (const k of [r.a, A]) {
      right[k] += +r.correct;
      n[k]++;
    }
  }
  return right.map((c, k) => (c + 1) / (n[k] + 2));
}

/** What the model reads besides its weights. */
export interface ModelInputs {
  agents: number;
  smoothing: number;
  /** Round-1 answer counts per (question, agent). */
  prior: PriorCounts;
  /** agentAccuracy. */
  accuracy: number[];
  /** Gold answer key per question. */
  gold: number[];
  /** Per question: how many cached responses (any agent, any round) state each answer. */
  stated: Map<number, Map<number, number>>;
}

/** One revision to predict: recipient, its previous answer, and what it is shown. */
export interface RevisionContext {
  q: number;
  agent: number;
  /** Answer key of the recipient's previous response. */
  prev: number;
  /** The recipient's own previous response is in the kept set. */
  prevShown: boolean;
  /** Kept responses of others: source agent (cache index; `agents` for an external solution) and answer key. */
  peers: { agent: number; ans: number }[];
}

export interface Outcomes {
  answers: number[];
  /** Every feature of FEATURES per outcome. */
  features: number[][];
}

/** The outcome set and its features for one revision. */
export function outcomes(inputs: ModelInputs, c: RevisionContext): Outcomes {
  const prior = inputs.prior.get(c.q * inputs.agents + c.agent);
  const answers: number[] = [c.prev];
  for (const p of c.peers) if (!answers.includes(p.ans)) answers.push(p.ans);
  let n = 0;
  if (prior)
    for (const [b, count] of prior) {
      n += count;
      if (!answers.includes(b)) answers.push(b);
    }
  const denom = n + inputs.smoothing * ((prior?.size ?? 0) + 1);
  answers.push(OTHER);
  const team = inputs.accuracy[inputs.agents];
  const agreeing = c.peers.filter((p) => p.ans === c.prev).length;
  const features = answers.map((b) => {
    let peers = 0,
      peerAccuracy = 0;
    for (const p of c.peers)
      if (p.ans === b) {
        peers++;
        peerAccuracy += inputs.accuracy[p.agent] - team;
      }
    const isPrev = b === c.prev ? 1 : 0;
    const count = b === OTHER ? 0 : (prior?.get(b) ?? 0);
    return [
      isPrev,
      isPrev * +c.prevShown,
      isPrev * +(!c.prevShown && c.peers.length === 0),
      peers,
      peerAccuracy,
      b === inputs.gold[c.q] ? peers : 0,
      isPrev * agreeing,
      isPrev * (c.peers.length - agreeing),
      Math.log((count + inputs.smoothing) / denom),
    ];
  });
  return { answers, features };
}

/** Softmax of the scores w · row over feature rows (each row restricted to w's features). */
function softmax(w: number[], rows: number[][]): number[] {
  const p = new Array<number>(rows.length);
  let max = -Infinity;
  for (let k = 0; k < rows.length; k++) {
    let score = 0;
    for (let j = 0; j < w.length; j++) score += w[j] * rows[k][j];
    p[k] = score;
    if (score > max) max = score;
  }
  let z = 0;
  for (let k = 0; k < rows.length; k++) z += p[k] = Math.exp(p[k] - max);
  for (let k = 0; k < rows.length; k++) p[k] /= z;
  return p;
}

/** Each outcome's probability of being answered afresh: the prior feature, normalized over the outcomes. */
function freshProbabilities(o: Outcomes): number[] {
  const prior = o.features.map((f) => Math.exp(f[PRIOR]));
  const z = prior.reduce((a, b) => a + b, 0);
  return prior.map((x) => x / z);
}

/**
 * The outcomes' probabilities under one agent's fit: the softmax of its features' scores, mixed
 * (full form) with a share `slip` of answering afresh from its round-1 frequencies.
 */
function probabilities(fit: AgentFit, use: number[], o: Outcomes): number[] {
  const p = softmax(
    fit.weights,
    o.features.map((f) => use.map((k) => f[k])),
  );
  if (fit.slip === 0) return p;
  const fresh = freshProbabilities(o);
  return p.map((x, k) => (1 - fit.slip) * x + fit.slip * fresh[k]);
}

/** One agent's fitted parameters: weights of the form's features (formFeatures order), and the share of fresh answers (full form; 0 in the base form). */
export interface AgentFit {
  weights: number[];
  slip: number;
}

export interface ResponseModel extends ModelInputs {
  form: ResponseModelForm;
  /** Per agent (cache index). */
  fits: AgentFit[];
}

/**
 * The answers a recipient may give and their probabilities. OTHER's share goes to the answers to q
 * that cached responses state outside the outcome set, in proportion to how many state each (so a
 * recipient can still move to an answer no one in its context holds); with none, it is left out.
 */
export function answerProbabilities(model: ResponseModel, c: RevisionContext): { answers: number[]; p: number[] } {
  const o = outcomes(model, c);
  const p = probabilities(model.fits[c.agent], FORM_FEATURES[model.form], o);
  const answers = o.answers.slice(0, -1);
  const other = p[p.length - 1];
  const rest = [...(model.stated.get(c.q) ?? [])].filter(([b]) => !answers.includes(b));
  const n = rest.reduce((t, [, count]) => t + count, 0);
  if (n === 0) return { answers, p: p.slice(0, -1).map((x) => x / (1 - other)) };
  return { answers: [...answers, ...rest.map(([b]) => b)], p: [...p.slice(0, -1), ...rest.map(([, count]) => (other * count) / n)] };
}

/** Draw the recipient's answer. */
export function drawAnswer(model: ResponseModel, c: RevisionContext, random: () => number): number {
  const { answers, p } = answerProbabilities(model, c);
  return answers[drawIndex(p, random())];
}

export interface Revision {
  agent: number;
  outcomes: Outcomes;
  observed: number; // index into outcomes.answers
}

/** A cached revision's context as the model reads it. */
export function revisionContext(cache: Cache, r: Response): RevisionContext {
  const shown = r.ctx.map((c) => cache.responses[c]);
  const peers = shown.filter((c) => c.a !== r.a).map((c) => ({ agent: c.a, ans: c.ans }));
  for (const e of r.ext) peers.push({ agent: cache.agents.length, ans: cache.externals[e].ans });
  return { q: r.q, agent: r.a, prev: cache.responses[r.prevIndex].ans, prevShown: shown.some((c) => c.a === r.a), peers };
}

/** Every cached revision with a known previous response that `keep` accepts, as a fitting example. */
export function revisions(cache: Cache, inputs: ModelInputs, keep: (r: Response) => boolean): Revision[] {
  const out: Revision[] = [];
  for (const r of cache.responses) {
    if (r.round < 2 || r.prevIndex < 0 || !keep(r)) continue;
    const o = outcomes(inputs, revisionContext(cache, r));
    let observed = o.answers.indexOf(r.ans);
    if (observed < 0) observed = o.answers.length - 1; // an answer nobody proposed: the OTHER bucket
    out.push({ agent: r.a, outcomes: o, observed });
  }
  return out;
}

/** Mean log-likelihood per revision, and the share whose most likely outcome is the observed one. */
export function score(fit: AgentFit, form: ResponseModelForm, data: Revision[]): { logLik: number; accuracy: number } {
  let ll = 0,
    acc = 0;
  for (const d of data) {
    const p = probabilities(fit, FORM_FEATURES[form], d.outcomes);
    ll += Math.log(p[d.observed]);
    if (p.indexOf(Math.max(...p)) === d.observed) acc++;
  }
  return { logLik: ll / Math.max(1, data.length), accuracy: acc / Math.max(1, data.length) };
}

/** A revision's features restricted to the form's, computed once per fit. */
interface Example {
  f: number[][];
  observed: number;
}

/**
 * Newton's method on Σ_d ω_d · log softmax(w · f_d)[observed] − l2/2 |w|², from `w`, with a
 * halving line search (small L2 keeps the Hessian invertible on degenerate data).
 */
function newton(data: Example[], omega: number[], w: number[], l2: number, iterations: number): number[] {
  const d = w.length;
  const objective = (v: number[]) =>
    data.reduce((s, x, i) => s + omega[i] * Math.log(softmax(v, x.f)[x.observed]), 0) - (l2 / 2) * v.reduce((s, y) => s + y * y, 0);
  let current = objective(w);
  for (let it = 0; it < iterations; it++) {
    const g = w.map((x) => -l2 * x);
    const H = w.map((_, i) => w.map((_, j) => (i === j ? -l2 : 0)));
    data.forEach((x, n) => {
      const p = softmax(w, x.f);
      const mean = new Array<number>(d).fill(0);
      for (let k = 0; k < p.length; k++) for (let i = 0; i < d; i++) mean[i] += p[k] * x.f[k][i];
      for (let i = 0; i < d; i++) g[i] += omega[n] * (x.f[x.observed][i] - mean[i]);
      for (let k = 0; k < p.length; k++)
        for (let i = 0; i < d; i++) {
          const a = omega[n] * p[k] * (x.f[k][i] - mean[i]);
          for (let j = 0; j < d; j++) H[i][j] -= a * (x.f[k][j] - mean[j]);
        }
    });
    const step = solve(H, g).map((x) => -x); // Newton: w - H^{-1} g
    let scale = 1;
    let next = w.map((x, i) => x + step[i]);
    let value = objective(next);
    while (value < current && scale > 1e-6) {
      scale /= 2;
      next = w.map((x, i) => x + scale * step[i]);
      value = objective(next);
    }
    if (value < current) break;
    const moved = Math.max(...step.map((s) => Math.abs(s * scale)));
    w = next;
    current = value;
    if (moved < 1e-9) break;
  }
  return w;
}

/**
 * Maximum-likelihood fit of a form on one agent's revisions. The base form is a multinomial logit
 * (Newton). The full form's mixture is fitted by EM: each revision's responsibility of the fresh
 * answer (E), then slip = their mean and the logit weights by Newton weighted by 1 − responsibility (M).
 */
export function fitWeights(data: Revision[], form: ResponseModelForm, l2 = 1e-3, iterations = 50): AgentFit {
  const use = FORM_FEATURES[form];
  const fit: AgentFit = { weights: unfitted(form), slip: 0 };
  if (data.length === 0) return fit;
  const examples = data.map((x) => ({ f: x.outcomes.features.map((row) => use.map((k) => row[k])), observed: x.observed }));
  if (form === 'base')
    return {
      weights: newton(
        examples,
        examples.map(() => 1),
        fit.weights,
        l2,
        iterations,
      ),
      slip: 0,
    };
  const fresh = data.map((x) => freshProbabilities(x.outcomes)[x.observed]);
  fit.slip = 0.05;
  let logLik = -Infinity;
  for (let it = 0; it < iterations; it++) {
    const inContext = examples.map((x) => softmax(fit.weights, x.f)[x.observed]);
    const mixed = inContext.map((p, n) => (1 - fit.slip) * p + fit.slip * fresh[n]);
    const next = mixed.reduce((s, p) => s + Math.log(p), 0);
    if (next - logLik < 1e-7 * data.length) break;
    logLik = next;
    const responsibility = mixed.map((p, n) => (fit.slip * fresh[n]) / p);
    fit.slip = Math.min(0.5, responsibility.reduce((a, b) => a + b, 0) / data.length);
    fit.weights = newton(
      examples,
      responsibility.map((r) => 1 - r),
      fit.weights,
      l2,
      1,
    );
  }
  return fit;
}

/** Solve A x = b by Gaussian elimination with partial pivoting (A is the small negative-definite Hessian). */
function solve(A: number[][], b: number[]): number[] {
  const n = b.length;
  const M = A.map((row, i) => [...row, b[i]]);
  for (let c = 0; c < n; c++) {
    let pivot = c;
    for (let r = c + 1; r < n; r++) if (Math.abs(M[r][c]) > Math.abs(M[pivot][c])) pivot = r;
    [M[c], M[pivot]] = [M[pivot], M[c]];
    for (let r = 0; r < n; r++) {
      if (r === c) continue;
      const f = M[r][c] / M[c][c];
      for (let k = c; k <= n; k++) M[r][k] -= f * M[c][k];
    }
  }
  return M.map((row, i) => row[n] / row[i]);
}

const onTrain = (cache: Cache) => (q: number) => cache.questions[q].split === 'train';

/** Prior counts and agent accuracies; accuracies from the questions `use` accepts (default: train split). */
export function modelInputs(cache: Cache, smoothing: number, use: (q: number) => boolean = onTrain(cache)): ModelInputs {
  const stated = new Map<number, Map<number, number>>();
  for (const r of cache.responses) {
    let m = stated.get(r.q);
    if (!m) stated.set(r.q, (m = new Map()));
    m.set(r.ans, (m.get(r.ans) ?? 0) + 1);
  }
  return {
    agents: cache.agents.length,
    smoothing,
    prior: priorCounts(cache),
    accuracy: agentAccuracy(cache, use),
    gold: cache.questions.map((q) => q.goldKey),
    stated,
  };
}

/**
 * The environment's tier-3 model: per-agent weights of `settings.responseModel`, fitted on the
 * revisions of the train split (SPEC §3); `use` picks other questions (tests, the before/after
 * comparison of fitting on every split).
 */
export function fitResponseModel(
  cache: Cache,
  settings: Pick<DebateSettings, 'responseModel' | 'priorSmoothing'>,
  use: (q: number) => boolean = onTrain(cache),
): ResponseModel {
  const inputs = modelInputs(cache, settings.priorSmoothing, use);
  const data = revisions(cache, inputs, (r) => use(r.q));
  const perAgent = cache.agents.map((_, a) => data.filter((d) => d.agent === a));
  return { ...inputs, form: settings.responseModel, fits: perAgent.map((rs) => fitWeights(rs, settings.responseModel)) };
}

export interface FidelityRow {
  agent: string;
  train: number;
  heldOut: number;
  /** Fit of each form. */
  fits: Record<ResponseModelForm, AgentFit>;
  /** Mean log-likelihood per held-out revision, and accuracy of the most likely answer, per form. */
  model: Record<ResponseModelForm, { logLik: number; accuracy: number }>;
  keepPrevious: { logLik: number; accuracy: number };
}

/**
 * Fidelity of the response model: both forms fitted on the train split's revisions, scored on the
 * other splits' revisions, beside the trivial "keep your previous answer" model (P(previous) = the
 * train rate of keeping it, the rest spread evenly over the other outcomes).
 */
export function responseModelFidelity(cache: Cache, smoothing: number): FidelityRow[] {
  const inputs = modelInputs(cache, smoothing);
  const isTrain = (r: Response) => cache.questions[r.q].split === 'train';
  const train = revisions(cache, inputs, isTrain);
  const held = revisions(cache, inputs, (r) => !isTrain(r));
  return cache.agents.map((agent, a) => {
    const tr = train.filter((d) => d.agent === a);
    const te = held.filter((d) => d.agent === a);
    const fits = { base: fitWeights(tr, 'base'), full: fitWeights(tr, 'full') };
    const keepRate = Math.min(1 - 1e-3, Math.max(1e-3, tr.filter((d) => d.observed === 0).length / Math.max(1, tr.length)));
    let llPrev = 0,
      accPrev = 0;
    for (const d of te) {
      llPrev += Math.log(d.observed === 0 ? keepRate : (1 - keepRate) / (d.outcomes.answers.length - 1));
      if (d.observed === 0) accPrev++;
    }
    const n = Math.max(1, te.length);
    return {
      agent: agent.id,
      train: tr.length,
      heldOut: te.length,
      fits,
      model: { base: score(fits.base, 'base', te), full: score(fits.full, 'full', te) },
      keepPrevious: { logLik: llPrev / n, accuracy: accPrev / n },
    };
  });
}
