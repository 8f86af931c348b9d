// The tier-3 response model's fidelity as a report table (`cache stats`, the import report):
// fitted on the train split's revisions, scored on the other splits' (responseModel.ts).
import type { Cache } from '../cache/types.ts';
import { markdownTable, pct } from '../table.ts';
import { formFeatures, responseModelFidelity } from './responseModel.ts';

/** The tier-3 response model's fidelity (both forms beside "keep the previous answer"), and the default form's weights, as titled tables. */
export function fidelityTable(cache: Cache, priorSmoothing: number): string {
  const rows = responseModelFidelity(cache, priorSmoothing);
  const scored = (s: { logLik: number; accuracy: number }) => [s.logLik.toFixed(3), pct(s.accuracy)];
  return [
    'Tier-3 response model fidelity (fitted on train-split revisions, scored on the other splits: mean log-likelihood per revision, accuracy of the most likely answer)',
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
