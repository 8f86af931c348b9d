import { resolveConfig } from './train/config.ts';
import { setup, initialWeights } from './train/trainer.ts';
import { tfjsEngine } from './src/policy/tfjsEngine.ts';
import { zeroMoments } from './src/policy/engine.ts';
import { rollout } from './src/policy/rollout.ts';
import seedrandom from 'seedrandom';
const cfg = resolveConfig({ cache: '/tmp/tiny', out: '/tmp/tinyrun', rounds: 2, miss: 'error', k: -1, hidden: 16, backend: 'cpu' });
const s = await setup(cfg);
const w = initialWeights(s);
for (const [k, t] of Object.entries(w)) { let n = 0; for (const x of t.data) n += x * x; console.log(k, t.shape.join('x'), Math.sqrt(n / t.data.length).toExponential(2)); }
const eng = tfjsEngine(s.shape, { weights: w, step: 0, m: zeroMoments(w), v: zeroMoments(w) }, cfg);
const qs = s.cache.questions.filter(q => q.split === 'train').map(q => q.index).slice(0, 6);
const rnd = seedrandom('a');
for (let i = 0; i < 10; i++) {
  const r = await rollout(eng, s.trainEnv, s.emb, qs, { mode: { sample: rnd }, debateSeed: 'x', conditioning: true });
  const l = await eng.keepLogits(r.batch);
  const adv = new Float32Array(r.batch.n).map((_, k) => (r.actions[k] ? -1 : 1) * 0.5);
  const st = await eng.trainStep(r.batch, r.actions, adv);
  console.log(i, 'logits', Math.min(...l).toFixed(3), Math.max(...l).toFixed(3), 'loss', st.loss.toFixed(4), 'H', st.entropy.toFixed(4));
}
