// The cost budget's floor (docs/method.md §7, targetCost): round-1 answers and every reply's own
// tokens are paid whatever is pruned, so a target below the cost of pruning every edge cannot be met.
import { keepAll, keepNone, playDebates, type DecisionRule } from '../src/env/debate.ts';
import type { Environment } from '../src/env/environment.ts';
import { SettingsError } from '../src/io/errors.ts';

/** Cost of pruning every edge as a fraction of Full-Debate's on `questions`: the lowest target a budget can have. */
export async function costFloor(env: Environment, questions: number[]): Promise<number> {
  const total = async (rule: DecisionRule) => (await playDebates(env, questions, rule)).reduce((s, d) => s + d.cost, 0);
  return (await total(keepNone)) / (await total(keepAll));
}

/** A target below the cost of pruning every edge cannot be met: say so before training. */
export async function checkTarget(target: number, env: Environment, questions: number[]): Promise<void> {
  const floor = await costFloor(env, questions);
  if (target < floor)
    throw new SettingsError(
      `setting targetCost: ${target} is below ${floor.toFixed(3)}, the cost of pruning every edge on the train ` +
        `split of ${env.cache.file} (round-1 answers and every reply's own tokens are paid whatever is pruned)`,
    );
}
