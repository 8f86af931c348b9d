// Fitting the tier-3 response model (responseModel.ts: its forms and features) by maximum likelihood
// on cached revisions: each revision with a known previous response as an example (its outcome set,
// features and observed answer), per agent; the base form's multinomial logit by Newton's method, the
// full form's mixture with fresh answers by EM. The environment fits it on the train split.
import type { Cache, Response } from '../cache/types.ts';
import {
  FEATURES,
  FORM_FEATURES,
  freshProbabilities,
  modelInputs,
  onTrain,
  outcomes,
  revisionContext,
  softmax,
  type AgentFit,
  type ModelInputs,
  type Outcomes,
  type ResponseModel,
  type ResponseModelForm,
} from './responseModel.ts';
import type { DebateSettings } from './settings.ts';
import { runSteps } from '../io/interrupt.ts';

/** Weights before fitting (no revisions to fit on): the round-1 frequency alone. */
const unfitted = (form: ResponseModelForm): number[] => FORM_FEATURES[form].map((k) => (FEATURES[k] === 'prior' ? 1 : 0));

export interface Revision {
  agent: number;
  outcomes: Outcomes;
  observed: number; // index into outcomes.answers
}

/** Every cached revision with a known previous response that `keep` accepts, as a fitting example. */
export const revisions = (cache: Cache, inputs: ModelInputs, keep: (r: Response) => boolean): Revision[] => runSteps(revisionsSteps(cache, inputs, keep));

/** Responses a step of revisionsSteps reads. */
const RESPONSES_A_STEP = 1024;

/** `revisions` as steps (src/io/interrupt.ts): it yields every RESPONSES_A_STEP responses. */
export function* revisionsSteps(cache: Cache, inputs: ModelInputs, keep: (r: Response) => boolean): Generator<unknown, Revision[]> {
  const out: Revision[] = [];
  for (const [i, r] of cache.responses.entries()) {
    if (i % RESPONSES_A_STEP === RESPONSES_A_STEP - 1) yield 'response model fit';
    if (r.round < 2 || r.prevIndex < 0 || !keep(r)) continue;
    const o = outcomes(inputs, revisionContext(cache, r));
    let observed = o.answers.indexOf(r.ans);
    if (observed < 0) observed = o.answers.length - 1; // an answer nobody proposed: the OTHER bucket
    out.push({ agent: r.a, outcomes: o, observed });
  }
  return out;
}

/** Examples a step of a pass over them (an iteration, the objective) reads between stop points (src/io/interrupt.ts). */
const EXAMPLES_A_STEP = 512;

/** A revision's features restricted to the form's, computed once per fit. */
interface Example {
  f: number[][];
  observed: number;
}

/**
 * Newton's method on Σ_d ω_d · log softmax(w · f_d)[observed] − l2/2 |w|², from `w`, with a
 * halving line search (small L2 keeps the Hessian invertible on degenerate data).
 */
function* newton(data: Example[], omega: number[], w: number[], l2: number, iterations: number): Generator<unknown, number[]> {
  const d = w.length;
  function* objective(v: number[]): Generator<unknown, number> {
    let sum = 0;
    for (const [i, x] of data.entries()) {
      if (i % EXAMPLES_A_STEP === EXAMPLES_A_STEP - 1) yield 'response model fit';
      sum += omega[i] * Math.log(softmax(v, x.f)[x.observed]);
    }
    return sum - (l2 / 2) * v.reduce((s, y) => s + y * y, 0);
  }
  let current = yield* objective(w);
  for (let it = 0; it < iterations; it++) {
    const g = w.map((x) => -l2 * x);
    const H = w.map((_, i) => w.map((_, j) => (i === j ? -l2 : 0)));
    for (const [n, x] of data.entries()) {
      if (n % EXAMPLES_A_STEP === EXAMPLES_A_STEP - 1) yield 'response model fit';
      const p = softmax(w, x.f);
      const mean = new Array<number>(d).fill(0);
      for (let k = 0; k < p.length; k++) for (let i = 0; i < d; i++) mean[i] += p[k] * x.f[k][i];
      for (let i = 0; i < d; i++) g[i] += omega[n] * (x.f[x.observed][i] - mean[i]);
      for (let k = 0; k < p.length; k++)
        for (let i = 0; i < d; i++) {
          const a = omega[n] * p[k] * (x.f[k][i] - mean[i]);
          for (let j = 0; j < d; j++) H[i][j] -= a * (x.f[k][j] - mean[j]);
        }
    }
    const step = solve(H, g).map((x) => -x); // Newton: w - H^{-1} g
    let scale = 1;
    let next = w.map((x, i) => x + step[i]);
    let value = yield* objective(next);
    while (value < current && scale > 1e-6) {
      scale /= 2;
      next = w.map((x, i) => x + scale * step[i]);
      value = yield* objective(next);
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
export const fitWeights = (data: Revision[], form: ResponseModelForm, l2 = 1e-3, iterations = 50): AgentFit =>
  runSteps(fitWeightsSteps(data, form, l2, iterations));

/** `fitWeights` as steps (src/io/interrupt.ts): it yields every EXAMPLES_A_STEP examples of each pass of Newton's method and of EM. */
export function* fitWeightsSteps(data: Revision[], form: ResponseModelForm, l2 = 1e-3, iterations = 50): Generator<unknown, AgentFit> {
  const use = FORM_FEATURES[form];
  const fit: AgentFit = { weights: unfitted(form), slip: 0 };
  if (data.length === 0) return fit;
  const examples: Example[] = [];
  for (const [n, x] of data.entries()) {
    if (n % EXAMPLES_A_STEP === EXAMPLES_A_STEP - 1) yield 'response model fit';
    examples.push({ f: x.outcomes.features.map((row) => use.map((k) => row[k])), observed: x.observed });
  }
  if (form === 'base')
    return {
      weights: yield* newton(
        examples,
        examples.map(() => 1),
        fit.weights,
        l2,
        iterations,
      ),
      slip: 0,
    };
  const fresh: number[] = [];
  for (const [n, x] of data.entries()) {
    if (n % EXAMPLES_A_STEP === EXAMPLES_A_STEP - 1) yield 'response model fit';
    fresh.push(freshProbabilities(x.outcomes)[x.observed]);
  }
  fit.slip = 0.05;
  let logLik = -Infinity;
  for (let it = 0; it < iterations; it++) {
    const inContext: number[] = [];
    for (const [n, x] of examples.entries()) {
      if (n % EXAMPLES_A_STEP === EXAMPLES_A_STEP - 1) yield 'response model fit';
      inContext.push(softmax(fit.weights, x.f)[x.observed]);
    }
    const mixed = inContext.map((p, n) => (1 - fit.slip) * p + fit.slip * fresh[n]);
    const next = mixed.reduce((s, p) => s + Math.log(p), 0);
    if (next - logLik < 1e-7 * data.length) break;
    logLik = next;
    const responsibility = mixed.map((p, n) => (fit.slip * fresh[n]) / p);
    fit.slip = Math.min(0.5, responsibility.reduce((a, b) => a + b, 0) / data.length);
    fit.weights = yield* newton(
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

/**
 * The environment's tier-3 model: per-agent weights of `settings.responseModel`, fitted on the
 * revisions of the train split (docs/method.md §3); `use` picks other questions (tests, the before/after
 * comparison of fitting on every split).
 */
export const fitResponseModel = (
  cache: Cache,
  settings: Pick<DebateSettings, 'responseModel' | 'priorSmoothing'>,
  use: (q: number) => boolean = onTrain(cache),
): ResponseModel => runSteps(fitResponseModelSteps(cache, settings, use));

/** `fitResponseModel` as steps (src/io/interrupt.ts): its passes over the responses and every pass of each agent's fit yield. */
export function* fitResponseModelSteps(
  cache: Cache,
  settings: Pick<DebateSettings, 'responseModel' | 'priorSmoothing'>,
  use: (q: number) => boolean = onTrain(cache),
): Generator<unknown, ResponseModel> {
  const inputs = modelInputs(cache, settings.priorSmoothing, use);
  yield 'response model fit';
  const data = yield* revisionsSteps(cache, inputs, (r) => use(r.q));
  const fits: AgentFit[] = [];
  for (const a of cache.agents.keys())
    fits.push(
      yield* fitWeightsSteps(
        data.filter((d) => d.agent === a),
        settings.responseModel,
      ),
    );
  return { ...inputs, form: settings.responseModel, fits };
}
