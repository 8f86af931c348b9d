// Seeded random decisions (and actions, advantages) for engine tests and the bench.
import seedrandom from 'seedrandom';
import { ROW_WIDTH } from '../src/policy/behaviorRows.ts';
import { kindsOf, type DecisionBatch, type PolicyShape } from '../src/policy/model.ts';

export function randomBatch(s: PolicyShape, n: number, seed: string): { batch: DecisionBatch; actions: Uint8Array; advantages: Float32Array } {
  const random = seedrandom(seed);
  const vec = (k: number) => Float32Array.from({ length: k }, () => 2 * random() - 1);
  const ints = (k: number, max: number) => Int32Array.from({ length: k }, () => Math.floor(random() * max));
  const drawn = {
    batch: {
      n,
      query: vec(n * s.dim),
      candidate: vec(n * s.dim),
      recipient: ints(n, s.agents),
      own: ints(n, 2),
      source: ints(n, s.agents),
      round: ints(n, Math.max(1, s.rounds - 1)),
      ...(s.behaviorRows ? { rows: vec(n * 2 * ROW_WIDTH) } : {}),
    },
    actions: Uint8Array.from({ length: n }, () => (random() < 0.5 ? 1 : 0)),
    advantages: vec(n),
  };
  // Drawn last, so that the batches drawn before these inputs existed stay as they were.
  const later = { current: ints(n, 2), turn: ints(n, s.agents) };
  const kinds = kindsOf(s) > 1 ? { kind: ints(n, kindsOf(s)), agree: Float32Array.from({ length: n }, () => Math.ceil(random() * s.agents) / s.agents) } : {};
  return { ...drawn, batch: { ...drawn.batch, ...later, ...kinds } };
}
