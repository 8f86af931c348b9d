// Evaluating a trained policy: deterministic decisions (keep iff p_keep >= 0.5, docs/method.md §7), replayed
// on a split and tallied like every other method (src/env/tally.ts), by `eval` and the other jobs
// as by a training run's validation; and the rounds a policy can be replayed for.
import type { Embeddings } from '../cache/embeddings.ts';
import type { Question } from '../cache/types.ts';
import type { Environment } from '../env/environment.ts';
import { tally, type MethodResult } from '../env/tally.ts';
import type { PolicyArtifact } from './artifact.ts';
import type { PolicyEngine } from './engine.ts';
import type { PolicyShape } from './model.ts';
import { playGreedy } from './rollout.ts';
import { SettingsError } from '../io/errors.ts';

export async function evaluatePolicy(engine: PolicyEngine, env: Environment, emb: Embeddings, questions: Question[], method: string): Promise<MethodResult> {
  return tally(
    env,
    questions,
    method,
    await playGreedy(
      engine,
      env,
      emb,
      questions.map((q) => q.index),
    ),
  );
}

/**
 * The shape a policy trained for R rounds runs with in a debate of `rounds` rounds. Its round
 * feature (when it has one) is a table of R - 1 rows, for rounds 2..R: a debate of up to R rounds
 * reads its first rows, a longer one has no row for its last rounds (an error naming both). A policy
 * without the round feature has nothing that depends on R and takes any number of rounds.
 */
export function policyShapeFor(artifact: PolicyArtifact, path: string, rounds: number): { shape: PolicyShape; note?: string } {
  const R = artifact.shape.rounds;
  if (rounds === R) return { shape: artifact.shape };
  if (!artifact.shape.roundFeature)
    return { shape: { ...artifact.shape, rounds }, note: `${path}: trained for ${R} rounds, replayed for ${rounds} (it has no round feature)` };
  if (rounds < R)
    return { shape: artifact.shape, note: `${path}: trained for ${R} rounds, replayed for ${rounds} (its round feature's rows for rounds 2..${rounds})` };
  throw new SettingsError(
    `${path}: trained for ${R} rounds, its round feature has ${R - 1} row${R - 1 === 1 ? '' : 's'} (rounds 2..${R}), but the debate has ${rounds} rounds: ` +
      `replay it with --rounds ${R} or fewer, or train a policy for ${rounds} rounds ` +
      `(or one without the round feature, --no-round-feature, which takes any number)`,
  );
}
