// The tier-3 response model's fidelity (`cache stats`, the import report): both forms fitted on the
// train split's revisions (responseModelFit.ts), scored on the other splits' beside the trivial
// "keep your previous answer" model, and shown as a report table.
import type { Cache, Response } from '../cache/types.ts';
import { markdownTable, pct } from '../table.ts';
import { FORM_FEATURES, formFeatures, modelInputs, probabilities, type AgentFit, type ResponseModelForm } from './responseModel.ts';
import { fitWeightsSteps, revisionsSteps, type Revision } from './responseModelFit.ts';
import { runSteps } from '../io/interrupt.ts';

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
export const responseModelFidelity = (cache: Cache, smoothing: number): FidelityRow[] => runSteps(responseModelFidelitySteps(cache, smoothing));

/** `responseModelFidelity` as steps (src/io/interrupt.ts), through the fits' iterations. */
export function* responseModelFidelitySteps(cache: Cache, smoothing: number): Generator<unknown, FidelityRow[]> {
  const inputs = modelInputs(cache, smoothing);
  const isTrain = (r: Response) => cache.questions[r.q].split === 'train';
  const train = yield* revisionsSteps(cache, inputs, isTrain);
  const held = yield* revisionsSteps(cache, inputs, (r) => !isTrain(r));
  const rows: FidelityRow[] = [];
  for (const [a, agent] of cache.agents.entries()) {
    const tr = train.filter((d) => d.agent === a);
    const te = held.filter((d) => d.agent === a);
    const fits = { base: yield* fitWeightsSteps(tr, 'base'), full: yield* fitWeightsSteps(tr, 'full') };
    const keepRate = Math.min(1 - 1e-3, Math.max(1e-3, tr.filter((d) => d.observed === 0).length / Math.max(1, tr.length)));
    let llPrev = 0,
      accPrev = 0;
    for (const d of te) {
      llPrev += Math.log(d.observed === 0 ? keepRate : (1 - keepRate) / (d.outcomes.answers.length - 1));
      if (d.observed === 0) accPrev++;
    }
    const n = Math.max(1, te.length);
    yield;
    rows.push({
      agent: agent.id,
      train: tr.length,
      heldOut: te.length,
      fits,
      model: { base: score(fits.base, 'base', te), full: score(fits.full, 'full', te) },
      keepPrevious: { logLik: llPrev / n, accuracy: accPrev / n },
    });
  }
  return rows;
}

/** The tier-3 response model's fidelity (both forms beside "keep the previous answer"), and the default form's weights, as titled tables. */
export const fidelityTable = (cache: Cache, priorSmoothing: number): string => runSteps(fidelityTableSteps(cache, priorSmoothing));

/** `fidelityTable` as steps (src/io/interrupt.ts): `cache stats` and the import reports can be stopped while it fits. */
export function* fidelityTableSteps(cache: Cache, priorSmoothing: number): Generator<unknown, string> {
  const rows = yield* responseModelFidelitySteps(cache, priorSmoothing);
  const scored = (s: { logLik: number; accuracy: number }) => [s.logLik.toFixed(3), pct(s.accuracy)];
  return [
    'Tier-3 response model fidelity (fitted on train-split revisions, scored on the other splits: ' +
      'mean log-likelihood per revision, accuracy of the most likely answer)',
    markdownTable(
      ['agent', 'train', 'held out', 'full loglik', 'full acc', 'base loglik', 'base acc', 'keep-prev loglik', 'keep-prev acc'],
      rows.map((f) => [f.agent, f.train, f.heldOut, ...scored(f.model.full), ...scored(f.model.base), ...scored(f.keepPrevious)]),
    ),
    '\nThe full form fitted on the train split: feature weights and the share of fresh answers (slip)',
    markdownTable(
      ['agent', ...formFeatures('full'), 'slip'],
      rows.map((f) => [f.agent, ...[...f.fits.full.weights, f.fits.full.slip].map((w) => w.toFixed(2))]),
    ),
  ].join('\n');
}
