// A training step of a policy that also decides revise and stop, beside an edges-only step (goal:
// <= 1.3x its time), on the ONNX engine at the default training shape (bof-256, hidden 128, three
// agents, three rounds). Two comparisons, timed in interleaved rounds (trials.ts):
//   the same decisions: a step's edge rows (16 questions x 4 rollouts x 18 edges), every row read by
//     its head: what the kind table and the heads cost per decision;
//   a full step: every slot of the step's debates made (per round a stop, 3 revisions, 9 edges): the
//     most a step of the same debates can hold; a policy that skips revisions or stops makes fewer.
import { randomBatch } from './randomBatch.ts';
import { zeroMoments, type OptimizerSettings } from '../src/policy/engine.ts';
import { initWeights, type PolicyShape } from '../src/policy/model.ts';
import { decisionLayout } from '../src/policy/decisionLayout.ts';
import { onnxEngine } from '../src/policy/onnxEngine.ts';
import { beside } from './goals.ts';
import { interleaved, rateOf, type Contender } from './trials.ts';
import { loadNote, SHAPE } from './engines.ts';

const OPT: OptimizerSettings = { lr: 3e-4, beta1: 0.9, beta2: 0.999, epsilon: 1e-8, entropyBonus: 1 };
const DEBATES = 16 * 4;

export async function benchDecisionHeads(): Promise<void> {
  console.log(`\nDecision heads: ${loadNote(true)}`);
  const shape = (decisions: PolicyShape['decisions']): PolicyShape => ({ ...SHAPE, dim: 256, hidden: 128, decisions });
  const edges = DEBATES * decisionLayout(3, 3, 'edges').perDebate;
  const full = DEBATES * decisionLayout(3, 3, 'edges+revise+stop').perDebate;
  const contender = async (name: string, s: PolicyShape, n: number): Promise<Contender> => {
    const w = initWeights(s, 'heads');
    const engine = await onnxEngine(s, { weights: w, step: 0, m: zeroMoments(w), v: zeroMoments(w) }, OPT);
    const { batch, actions, advantages } = randomBatch(s, n, `heads-${n}`);
    return { name, run: (seconds) => rateOf(() => engine.trainStep(batch, actions, advantages), 1, seconds) };
  };
  const rates = await interleaved(
    [
      await contender('edges', shape('edges'), edges),
      await contender('heads, same rows', shape('edges+revise+stop'), edges),
      await contender('heads, every slot', shape('edges+revise+stop'), full),
    ],
    { warmup: 2, seconds: 1.5, trials: 5 },
  );
  const base = rates.get('edges')!.median;
  for (const [name, r] of rates) console.log(`  ${name.padEnd(18)} ${r.median.toFixed(1)} steps/s (min ${r.min.toFixed(1)}, max ${r.max.toFixed(1)})`);
  const same = base / rates.get('heads, same rows')!.median;
  const every = base / rates.get('heads, every slot')!.median;
  console.log(
    `  step time beside edges: same ${edges} rows ${same.toFixed(2)}x (${beside('decision-heads step, same rows', same, 'x', { limit: 1.3, atMost: true })}); ` +
      `every slot (${full} rows) ${every.toFixed(2)}x`,
  );
  console.log(`  at the end: ${loadNote(false)}`);
}
