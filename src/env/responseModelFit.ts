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
  type AgentFit,
  type ModelInputs,
  type Outcomes,
  type ResponseModel,
  type ResponseModelForm,
} from './responseModel.ts';
import type { DebateSettings } from './settings.ts';
import { runSteps } from '../io/interrupt.ts';

/** The fit's version, kept with its weights (keptFit.ts): a change to what the fit computes must raise it, or kept weights of the code before are taken. */
export const FIT_VERSION = 1;

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
    const revision = keep(r) ? revisionOf(cache, inputs, r) : undefined;
    if (revision) out.push(revision);
  }
  return out;
}

/** Response `r` as a fitting example, if it is a revision with a known previous response. */
function revisionOf(cache: Cache, inputs: ModelInputs, r: Response): Revision | undefined {
  if (r.round < 2 || r.prevIndex < 0) return undefined;
  const o = outcomes(inputs, revisionContext(cache, r));
  let observed = o.answers.indexOf(r.ans);
  if (observed < 0) observed = o.answers.length - 1; // an answer nobody proposed: the OTHER bucket
  return { agent: r.a, outcomes: o, observed };
}

/** Examples a step of a pass over them (an iteration, the objective) reads between stop points (src/io/interrupt.ts). */
const EXAMPLES_A_STEP = 512;

/**
 * One agent's examples, each revision's outcome rows restricted to the form's features and laid end
 * to end in one array (a revision's rows as arrays of arrays took several times the heap at 10,000
 * questions, and the fit held every agent's at once): example n's rows start at `start[n]` (in rows)
 * and end at `start[n + 1]`; `fresh[n]` is its observed answer's fresh probability (full form).
 */
interface Examples {
  d: number;
  rows: number[];
  start: number[];
  observed: number[];
  fresh: number[];
}

const noExamples = (form: ResponseModelForm): Examples => ({ d: FORM_FEATURES[form].length, rows: [], start: [0], observed: [], fresh: [] });

/** Adds a revision's outcomes to `into`, its rows restricted to the form's features. */
function addExample(into: Examples, form: ResponseModelForm, o: Outcomes, observed: number): void {
  const use = FORM_FEATURES[form];
  for (const row of o.features) for (const k of use) into.rows.push(row[k]);
  into.start.push(into.start[into.start.length - 1] + o.features.length);
  into.observed.push(observed);
  if (form === 'full') into.fresh.push(freshProbabilities(o)[observed]);
}

/** The softmax of `w`'s scores of example n's rows, into `p` (softmax in responseModel.ts, summed in the same order). */
function softmaxOf(w: number[], x: Examples, n: number, p: number[]): number[] {
  const { d, rows } = x;
  const from = x.start[n];
  const count = x.start[n + 1] - from;
  p.length = count;
  let max = -Infinity;
  for (let k = 0; k < count; k++) {
    let score = 0;
    const at = (from + k) * d;
    for (let j = 0; j < d; j++) score += w[j] * rows[at + j];
    p[k] = score;
    if (score > max) max = score;
  }
  let z = 0;
  for (let k = 0; k < count; k++) z += p[k] = Math.exp(p[k] - max);
  for (let k = 0; k < count; k++) p[k] /= z;
  return p;
}

/**
 * Newton's method on Σ_d ω_d · log softmax(w · f_d)[observed] − l2/2 |w|², from `w`, with a
 * halving line search (small L2 keeps the Hessian invertible on degenerate data).
 */
function* newton(x: Examples, omega: number[], w: number[], l2: number, iterations: number): Generator<unknown, number[]> {
  const d = w.length;
  const examples = x.observed.length;
  const p: number[] = [];
  function* objective(v: number[]): Generator<unknown, number> {
    let sum = 0;
    for (let n = 0; n < examples; n++) {
      if (n % EXAMPLES_A_STEP === EXAMPLES_A_STEP - 1) yield 'response model fit';
      sum += omega[n] * Math.log(softmaxOf(v, x, n, p)[x.observed[n]]);
    }
    return sum - (l2 / 2) * v.reduce((s, y) => s + y * y, 0);
  }
  let current = yield* objective(w);
  const mean = new Array<number>(d);
  const diff = new Array<number>(d);
  for (let it = 0; it < iterations; it++) {
    const g = w.map((v) => -l2 * v);
    const H = w.map((_, i) => w.map((_, j) => (i === j ? -l2 : 0)));
    for (let n = 0; n < examples; n++) {
      if (n % EXAMPLES_A_STEP === EXAMPLES_A_STEP - 1) yield 'response model fit';
      softmaxOf(w, x, n, p);
      const row = (k: number) => (x.start[n] + k) * d;
      mean.fill(0);
      for (let k = 0; k < p.length; k++) for (let i = 0; i < d; i++) mean[i] += p[k] * x.rows[row(k) + i];
      const observed = row(x.observed[n]);
      for (let i = 0; i < d; i++) g[i] += omega[n] * (x.rows[observed + i] - mean[i]);
      for (let k = 0; k < p.length; k++) {
        const at = row(k);
        for (let i = 0; i < d; i++) diff[i] = x.rows[at + i] - mean[i];
        for (let i = 0; i < d; i++) {
          const a = omega[n] * p[k] * diff[i];
          const Hi = H[i];
          for (let j = 0; j < d; j++) Hi[j] -= a * diff[j];
        }
      }
    }
    const step = solve(H, g).map((v) => -v); // Newton: w - H^{-1} g
    let scale = 1;
    let next = w.map((v, i) => v + step[i]);
    let value = yield* objective(next);
    while (value < current && scale > 1e-6) {
      scale /= 2;
      next = w.map((v, i) => v + scale * step[i]);
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
  const examples = noExamples(form);
  for (const [n, x] of data.entries()) {
    if (n % EXAMPLES_A_STEP === EXAMPLES_A_STEP - 1) yield 'response model fit';
    addExample(examples, form, x.outcomes, x.observed);
  }
  return yield* fitExamplesSteps(examples, form, l2, iterations);
}

function* fitExamplesSteps(x: Examples, form: ResponseModelForm, l2 = 1e-3, iterations = 50): Generator<unknown, AgentFit> {
  const fit: AgentFit = { weights: unfitted(form), slip: 0 };
  const examples = x.observed.length;
  if (examples === 0) return fit;
  if (form === 'base') return { weights: yield* newton(x, new Array<number>(examples).fill(1), fit.weights, l2, iterations), slip: 0 };
  const { fresh } = x;
  const p: number[] = [];
  fit.slip = 0.05;
  let logLik = -Infinity;
  for (let it = 0; it < iterations; it++) {
    const inContext: number[] = [];
    for (let n = 0; n < examples; n++) {
      if (n % EXAMPLES_A_STEP === EXAMPLES_A_STEP - 1) yield 'response model fit';
      inContext.push(softmaxOf(fit.weights, x, n, p)[x.observed[n]]);
    }
    const mixed = inContext.map((q, n) => (1 - fit.slip) * q + fit.slip * fresh[n]);
    const next = mixed.reduce((s, q) => s + Math.log(q), 0);
    if (next - logLik < 1e-7 * examples) break;
    logLik = next;
    const responsibility = mixed.map((q, n) => (fit.slip * fresh[n]) / q);
    fit.slip = Math.min(0.5, responsibility.reduce((a, b) => a + b, 0) / examples);
    fit.weights = yield* newton(
      x,
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
  // Each revision goes straight into its agent's examples: no revision is held with all its features.
  const form = settings.responseModel;
  const byAgent = cache.agents.map(() => noExamples(form));
  for (const [i, r] of cache.responses.entries()) {
    if (i % RESPONSES_A_STEP === RESPONSES_A_STEP - 1) yield 'response model fit';
    const revision = revisionOf(cache, inputs, r);
    if (revision && use(r.q)) addExample(byAgent[r.a], form, revision.outcomes, revision.observed);
  }
  const fits: AgentFit[] = [];
  for (const examples of byAgent) fits.push(yield* fitExamplesSteps(examples, form));
  return { ...inputs, form, fits };
}
