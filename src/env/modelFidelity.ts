// The tier-3 response model's fidelity as a report table (`cache stats`, the import report):
// fitted on the train split's revisions, scored on the other splits' (responseModel.ts).
import type { Cache } from '../cache/load.ts';
import { markdownTable, pct } from '../table.ts';
import { responseModelFidelity } from './responseModel.ts';

/** The tier-3 response model's fidelity, as a titled table. */
export function fidelityTable(cache: Cache, priorSmoothing: number): string {
  return [
    'Tier-3 response model fidelity (fitted on train-split revisions, scored on the other splits)',
    markdownTable(
      ['agent', 'train', 'held out', 'w_own', 'w_peer', 'w_prior', 'loglik/rev', 'accuracy', 'keep-prev loglik', 'keep-prev acc'],
      responseModelFidelity(cache, priorSmoothing).map((f) => [
        f.agent, f.train, f.heldOut, f.weights.own.toFixed(2), f.weights.peer.toFixed(2), f.weights.prior.toFixed(2),
        f.model.logLik.toFixed(3), pct(f.model.accuracy), f.keepPrevious.logLik.toFixed(3), pct(f.keepPrevious.accuracy),
      ]),
    ),
  ].join('\n');
}
