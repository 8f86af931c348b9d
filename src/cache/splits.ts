// Seeded split assignment shared by the simulator and the importers: a shuffled order of the
// questions, cut by the train and validation fractions; the rest is test.
import { shuffle } from '../shuffle.ts';
import type { Split } from './format.ts';

export function assignSplits(n: number, trainFraction: number, validationFraction: number, random: () => number): Split[] {
  const order = shuffle(
    Array.from({ length: n }, (_, i) => i),
    random,
  );
  const nTrain = Math.round(n * trainFraction);
  const nVal = Math.round(n * validationFraction);
  const out = new Array<Split>(n);
  order.forEach((q, rank) => (out[q] = rank < nTrain ? 'train' : rank < nTrain + nVal ? 'validation' : 'test'));
  return out;
}
