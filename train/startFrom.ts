// Fine-tuning (setting `from`): a run that starts from a trained policy's weights instead of fresh
// ones, e.g. a policy transferred to a new team (docs/transfer.md). The policy must fit the run
// exactly: the same team in the same order (row i of the behavior embedding and of the source
// feature is team member i), the same encoder, the same architecture.
import { kebab } from '../src/io/problems.ts';
import { SettingsError } from '../src/io/errors.ts';
import type { PolicyShape, Weights } from '../src/policy/model.ts';
import { readAnyPolicy } from './checkpoint.ts';

/** What a policy's weights depend on (initSamples only chose where the behavior embedding started). */
const FITTED = [
  'dim',
  'hidden',
  'agents',
  'rounds',
  'behavior',
  'conditioning',
  'ownFeature',
  'sourceFeature',
  'roundFeature',
  'currentFeature',
  'turnFeature',
  'behaviorRows',
] as const;

/** The weights of the policy at `path`, checked against the run's shape, team and encoder (a SettingsError naming each difference). */
export function startingWeights(path: string, shape: PolicyShape, team: string[], encoder: string): Weights {
  const p = readAnyPolicy(path);
  const differ = [
    ...(p.team.join() !== team.join() ? [`its team is ${p.team.join(', ')}, the run's ${team.join(', ')} (--agents)`] : []),
    ...(p.encoder !== encoder ? [`its encoder is ${p.encoder}, the run's ${encoder} (--encoder)`] : []),
    ...FITTED.filter((k) => p.shape[k] !== shape[k]).map((k) => `its ${k} is ${p.shape[k]}, the run's ${shape[k]} (--${kebab(k)})`),
  ];
  if (differ.length) throw new SettingsError(`setting from: ${path} does not fit this run: ${differ.join('; ')}`);
  return p.weights;
}
