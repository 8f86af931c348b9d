// Tier-3 response model (docs/method.md §3): per recipient agent r, the answer it gives after reading its
// kept set, fitted by maximum likelihood on the cached revisions of the train split only.
//
// Base form (the method's): a multinomial logit over the answers its context and history make available,
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
// too weak. Fitted by EM (Newton for the logit weights) in responseModelFit.ts; scored on held-out
// revisions beside "keep your previous answer" in modelFidelity.ts.
//
// p_r(b|q) is r's smoothed frequency of b among its round-1 answers to q, with one bucket for "any
// other answer". The outcome set of a revision is every answer among {previous, kept peers, round-1
// answers} plus that OTHER bucket; drawing leaves OTHER out, since it names no answer. Agent accuracy
// is the smoothed share of right round-1 answers on the train split (external solutions: the team's).
import type { Cache, Response } from '../cache/types.ts';
import { drawIndex } from '../shuffle.ts';
import type { RESPONSE_MODELS } from './settings.ts';

export const FEATURES = ['prev', 'prevShown', 'alone', 'peers', 'peerAccuracy', 'peersRight', 'agreeing', 'disagreeing', 'prior'] as const;
export type Feature = (typeof FEATURES)[number];
export type ResponseModelForm = (typeof RESPONSE_MODELS)[number];
/** The features each form fits (indices into FEATURES). */
export const FORM_FEATURES: Record<ResponseModelForm, number[]> = {
  base: [0, 3, 8],
  full: FEATURES.map((_, k) => k),
};
export const formFeatures = (form: ResponseModelForm): Feature[] => FORM_FEATURES[form].map((k) => FEATURES[k]);

const OTHER = -2; // answer key of the "any other answer" bucket (-1 is "unparsed")
const PRIOR = FEATURES.indexOf('prior');

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
export function softmax(w: number[], rows: number[][]): number[] {
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
export function freshProbabilities(o: Outcomes): number[] {
  const prior = o.features.map((f) => Math.exp(f[PRIOR]));
  const z = prior.reduce((a, b) => a + b, 0);
  return prior.map((x) => x / z);
}

/**
 * The outcomes' probabilities under one agent's fit: the softmax of its features' scores, mixed
 * (full form) with a share `slip` of answering afresh from its round-1 frequencies.
 */
export function probabilities(fit: AgentFit, use: number[], o: Outcomes): number[] {
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

/** Each model's answer distribution per context it was asked about (a fitted model does not change; counterfactual replays ask the same contexts often). */
const asked = new WeakMap<ResponseModel, Map<string, { answers: number[]; p: number[] }>>();

/** Draw the recipient's answer. */
export function drawAnswer(model: ResponseModel, c: RevisionContext, random: () => number): number {
  let seen = asked.get(model);
  if (!seen) asked.set(model, (seen = new Map()));
  const key = `${c.q}|${c.agent}|${c.prev}|${+c.prevShown}|${c.peers.map((p) => `${p.agent}:${p.ans}`).join(',')}`;
  let dist = seen.get(key);
  if (!dist) seen.set(key, (dist = answerProbabilities(model, c)));
  return dist.answers[drawIndex(dist.p, random())];
}

/** A cached revision's context as the model reads it. */
export function revisionContext(cache: Cache, r: Response): RevisionContext {
  const shown = r.ctx.map((c) => cache.responses[c]);
  const peers = shown.filter((c) => c.a !== r.a).map((c) => ({ agent: c.a, ans: c.ans }));
  for (const e of r.ext) peers.push({ agent: cache.agents.length, ans: cache.externals[e].ans });
  return { q: r.q, agent: r.a, prev: cache.responses[r.prevIndex].ans, prevShown: shown.some((c) => c.a === r.a), peers };
}

/** The questions of the train split, which the model is fitted on by default. */
export const onTrain = (cache: Cache) => (q: number) => cache.questions[q].split === 'train';

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
