// A run's test-split trace (setting traceEvery): the greedy policy evaluated on the test split at the
// start and every N steps, and at the end, as `trace` lines of log.jsonl. It measures how a run
// moves (the transfer job's curves, docs/transfer.md); nothing chooses by it: the best checkpoint is
// chosen on validation.
import type { Embeddings } from '../src/cache/embeddings.ts';
import { keepAll, playDebates } from '../src/env/debate.ts';
import { splitQuestions, teamIds, type Environment } from '../src/env/environment.ts';
import { SettingsError } from '../src/io/errors.ts';
import type { PolicyEngine } from '../src/policy/engine.ts';
import { evaluatePolicy } from '../src/policy/evaluate.ts';
import { round4, tierShares, type openRunLog } from './runFolder.ts';

type RunLog = ReturnType<typeof openRunLog>;

export interface Tracer {
  /** Trace at `step` if it is a multiple of the setting (step 0: the starting policy). */
  at(engine: PolicyEngine, step: number, epoch: number, log: RunLog): Promise<void>;
  /** Trace the run's last step, unless it was just traced. */
  end(engine: PolicyEngine, step: number, epoch: number, log: RunLog): Promise<void>;
}

/** The tracer of a run with `every` = its traceEvery setting (none when null). */
export async function testTracer(every: number | null, env: Environment, emb: Embeddings): Promise<Tracer | undefined> {
  if (every === null) return undefined;
  const test = splitQuestions(env, 'test').questions;
  if (test.length === 0) throw new SettingsError(`setting traceEvery: ${env.cache.file} has no test questions that team ${teamIds(env).join(', ')} can debate`);
  const fullCost = (
    await playDebates(
      env,
      test.map((q) => q.index),
      keepAll,
    )
  ).reduce((s, d) => s + d.cost, 0);
  let last = -1;
  const trace = async (engine: PolicyEngine, step: number, epoch: number, log: RunLog) => {
    const v = await evaluatePolicy(engine, env, emb, test, 'test');
    if (v.skipped.length)
      throw new SettingsError(`setting traceEvery: the test debate on question '${v.skipped[0]}' cannot be replayed under miss = ${env.settings.miss}`);
    log.write({
      type: 'trace',
      epoch,
      step,
      accuracy: round4(v.correct / v.questions),
      costPct: round4((100 * v.cost) / fullCost),
      keptEdges: round4(v.keptEdges / v.maxEdges),
      ...tierShares(v.tiers),
    });
    last = step;
  };
  return {
    at: async (engine, step, epoch, log) => (step % every === 0 ? trace(engine, step, epoch, log) : undefined),
    end: async (engine, step, epoch, log) => (step !== last ? trace(engine, step, epoch, log) : undefined),
  };
}
