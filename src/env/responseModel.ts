// Tier-3 response model (SPEC §3): per agent,
//   P(answer = b) ∝ exp(w_own·[b = previous answer] + w_peer·(kept peers answering b) + w_prior·log p_r(b|q)),
// fitted by maximum likelihood (Newton's method; three weights) on cached revisions.
// p_r(b|q) is the agent's smoothed frequency of b among its round-1 answers to q, with one bucket for
// "any other answer". The outcome set of a revision is every answer among {previous, kept peers,
// round-1 answers} plus that OTHER bucket; drawing leaves OTHER out, since it names no answer.
import type { Cache, Response } from '../cache/load.ts';

export interface Weights {
  own: number;
  peer: number;
  prior: number;
}
const UNFITTED: Weights = { own: 0, peer: 0, prior: 1 };
const OTHER = -2; // answer key of the "any other answer" bucket (-1 is "unparsed")

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

interface Outcomes {
  answers: number[];
  features: number[][]; // [own, peer, logPrior] per outcome
}

/** The outcome set and its features for one decision. */
export function outcomes(prev: number, peerAnswers: number[], prior: Map<number, number> | undefined, smoothing: number): Outcomes {
  const answers: number[] = [prev];
  for (const b of peerAnswers) if (!answers.includes(b)) answers.push(b);
  let n = 0;
  if (prior) for (const [b, c] of prior) {
    n += c;
    if (!answers.includes(b)) answers.push(b);
  }
  const denom = n + smoothing * ((prior?.size ?? 0) + 1);
  answers.push(OTHER);
  const features = answers.map((b) => {
    let peers = 0;
    for (const p of peerAnswers) if (p === b) peers++;
    const count = b === OTHER ? 0 : (prior?.get(b) ?? 0);
    return [b === prev ? 1 : 0, peers, Math.log((count + smoothing) / denom)];
  });
  return { answers, features };
}

function probabilities(w: Weights, o: Outcomes, includeOther: boolean): number[] {
  const scores = o.features.map((f, i) =>
    !includeOther && o.answers[i] === OTHER ? -Infinity : w.own * f[0] + w.peer * f[1] + w.prior * f[2],
  );
  const max = Math.max(...scores);
  const e = scores.map((s) => Math.exp(s - max));
  const z = e.reduce((a, b) => a + b, 0);
  return e.map((x) => x / z);
}

/** Draw an answer for a recipient (OTHER excluded). */
export function drawAnswer(w: Weights, o: Outcomes, random: () => number): number {
  const p = probabilities(w, o, false);
  let u = random();
  for (let i = 0; i < p.length; i++) if ((u -= p[i]) < 0) return o.answers[i];
  return o.answers[p.length - 2]; // rounding: last real answer
}

export interface Revision {
  agent: number;
  outcomes: Outcomes;
  observed: number; // index into outcomes.answers
}

/** Every cached revision with a known previous response, as a fitting example. */
function revisions(cache: Cache, prior: PriorCounts, smoothing: number, keep: (r: Response) => boolean): Revision[] {
  const out: Revision[] = [];
  for (const r of cache.responses) {
    if (r.round < 2 || r.prevIndex < 0 || !keep(r)) continue;
    const prev = cache.responses[r.prevIndex].ans;
    const peers = r.ctx.filter((c) => cache.responses[c].a !== r.a).map((c) => cache.responses[c].ans);
    for (const e of r.ext) peers.push(cache.externals[e].ans);
    const o = outcomes(prev, peers, prior.get(r.q * cache.agents.length + r.a), smoothing);
    let observed = o.answers.indexOf(r.ans);
    if (observed < 0) observed = o.answers.length - 1; // an answer nobody proposed: the OTHER bucket
    out.push({ agent: r.a, outcomes: o, observed });
  }
  return out;
}

function logLikelihood(w: Weights, data: Revision[]): number {
  let ll = 0;
  for (const d of data) ll += Math.log(probabilities(w, d.outcomes, true)[d.observed]);
  return ll;
}

/** Maximum-likelihood weights (small L2 keeps the Hessian invertible on degenerate data). */
export function fitWeights(data: Revision[], l2 = 1e-3, iterations = 50): Weights {
  if (data.length === 0) return { ...UNFITTED };
  let w = [UNFITTED.own, UNFITTED.peer, UNFITTED.prior];
  const asWeights = (v: number[]) => ({ own: v[0], peer: v[1], prior: v[2] });
  const objective = (v: number[]) => logLikelihood(asWeights(v), data) - (l2 / 2) * (v[0] ** 2 + v[1] ** 2 + v[2] ** 2);
  let current = objective(w);
  for (let it = 0; it < iterations; it++) {
    const g = w.map((x) => -l2 * x);
    const H = [0, 1, 2].map((i) => [0, 1, 2].map((j) => (i === j ? -l2 : 0)));
    for (const d of data) {
      const p = probabilities(asWeights(w), d.outcomes, true);
      const mean = [0, 0, 0];
      p.forEach((pi, k) => d.outcomes.features[k].forEach((f, i) => (mean[i] += pi * f)));
      for (let i = 0; i < 3; i++) g[i] += d.outcomes.features[d.observed][i] - mean[i];
      p.forEach((pi, k) => {
        const f = d.outcomes.features[k];
        for (let i = 0; i < 3; i++) for (let j = 0; j < 3; j++) H[i][j] -= pi * (f[i] - mean[i]) * (f[j] - mean[j]);
      });
    }
    const step = solve3(H, g).map((x) => -x); // Newton: w - H^{-1} g
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
  return asWeights(w);
}

function solve3(A: number[][], b: number[]): number[] {
  const M = A.map((row, i) => [...row, b[i]]);
  for (let c = 0; c < 3; c++) {
    let pivot = c;
    for (let r = c + 1; r < 3; r++) if (Math.abs(M[r][c]) > Math.abs(M[pivot][c])) pivot = r;
    [M[c], M[pivot]] = [M[pivot], M[c]];
    for (let r = 0; r < 3; r++) {
      if (r === c) continue;
      const f = M[r][c] / M[c][c];
      for (let k = c; k < 4; k++) M[r][k] -= f * M[c][k];
    }
  }
  return [0, 1, 2].map((i) => M[i][3] / M[i][i]);
}

/** Per-agent weights fitted on the revisions `keep` accepts. */
export function fitResponseModel(cache: Cache, prior: PriorCounts, smoothing: number, keep: (r: Response) => boolean = () => true): Weights[] {
  const data = revisions(cache, prior, smoothing, keep);
  return cache.agents.map((_, a) => fitWeights(data.filter((d) => d.agent === a)));
}

interface FidelityRow {
  agent: string;
  train: number;
  heldOut: number;
  weights: Weights;
  /** Mean log-likelihood per held-out revision, and accuracy of the most likely answer. */
  model: { logLik: number; accuracy: number };
  keepPrevious: { logLik: number; accuracy: number };
}

/**
 * Fidelity of the response model: fitted on the train split's revisions, scored on the other
 * splits' revisions, beside the trivial "keep your previous answer" model (P(previous) = the
 * train rate of keeping it, the rest spread evenly over the other outcomes).
 */
export function responseModelFidelity(cache: Cache, smoothing: number): FidelityRow[] {
  const prior = priorCounts(cache);
  const isTrain = (r: Response) => cache.questions[r.q].split === 'train';
  const train = revisions(cache, prior, smoothing, isTrain);
  const held = revisions(cache, prior, smoothing, (r) => !isTrain(r));
  return cache.agents.map((agent, a) => {
    const tr = train.filter((d) => d.agent === a);
    const te = held.filter((d) => d.agent === a);
    const weights = fitWeights(tr);
    const keepRate = Math.min(1 - 1e-3, Math.max(1e-3, tr.filter((d) => d.observed === 0).length / Math.max(1, tr.length)));
    let ll = 0, acc = 0, llPrev = 0, accPrev = 0;
    for (const d of te) {
      const p = probabilities(weights, d.outcomes, true);
      ll += Math.log(p[d.observed]);
      if (p.indexOf(Math.max(...p)) === d.observed) acc++;
      const others = d.outcomes.answers.length - 1;
      llPrev += Math.log(d.observed === 0 ? keepRate : (1 - keepRate) / others);
      if (d.observed === 0) accPrev++;
    }
    const n = Math.max(1, te.length);
    return {
      agent: agent.id,
      train: tr.length,
      heldOut: te.length,
      weights,
      model: { logLik: ll / n, accuracy: acc / n },
      keepPrevious: { logLik: llPrev / n, accuracy: accPrev / n },
    };
  });
}
