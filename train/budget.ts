// The cost budget's floor (docs/method.md §7, targetCost): round-1 answers are paid whatever the policy
// decides; a policy of edges alone also pays every reply's own tokens whatever it prunes, so a target
// below the cost of pruning every edge cannot be met. A policy that may keep answers without a call
// (decisions edges+revise, edges+revise+stop) can stop paying after round 1.
import { keepAll, keepNone, playDebates, startDebate, type DecisionRule } from '../src/env/debate.ts';
import type { Environment } from '../src/env/environment.ts';
import { SettingsError } from '../src/io/errors.ts';
import type { Decisions } from '../src/policy/model.ts';

/**
 * The lowest cost a policy deciding `decisions` can reach on `questions`, as a fraction of
 * Full-Debate's: pruning every edge, or (when it may skip revisions) round 1's own cost.
 */
export async function costFloor(env: Environment, questions: number[], decisions: Decisions = 'edges'): Promise<number> {
  const total = async (rule: DecisionRule) => (await playDebates(env, questions, rule)).reduce((s, d) => s + d.cost, 0);
  const floor = decisions === 'edges' ? await total(keepNone) : questions.reduce((s, q) => s + startDebate(env, q).cost, 0);
  return floor / (await total(keepAll));
}

/** A target below the policy's cost floor cannot be met: say so before training. */
export async function checkTarget(target: number, env: Environment, questions: number[], decisions: Decisions = 'edges'): Promise<void> {
  const floor = await costFloor(env, questions, decisions);
  if (target < floor)
    throw new SettingsError(
      decisions === 'edges'
        ? `setting targetCost: ${target} is below ${floor.toFixed(3)}, the cost of pruning every edge on the train ` +
            `split of ${env.cache.file} (round-1 answers and every reply's own tokens are paid whatever is pruned; ` +
            "a policy that may keep answers without a call, --decisions edges+revise, goes down to round 1's cost)"
        : `setting targetCost: ${target} is below ${floor.toFixed(3)}, the cost of round 1 alone on the train split of ${env.cache.file} ` +
            '(round-1 answers are paid whatever the policy decides)',
    );
}
