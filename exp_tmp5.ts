// Probe: can the policy network read a candidate's correctness from its inputs? Supervised, via
// the same engine: action = "candidate correct", advantage 1 (maximizes log-likelihood).
import { resolveConfig } from './train/config.ts';
import { setup, initialWeights } from './train/trainer.ts';
import { tfjsEngine } from './src/policy/tfjsEngine.ts';
import { zeroMoments } from './src/policy/engine.ts';
import { rollout } from './src/policy/rollout.ts';
import { keepAll } from './src/env/environment.ts';
import seedrandom from 'seedrandom';
const cfg = resolveConfig({ backend: 'wasm', lr: Number(process.argv[2] ?? 1e-3) });
const s = await setup(cfg);
const w = initialWeights(s);
const eng = tfjsEngine(s.shape, { weights: w, step: 0, m: zeroMoments(w), v: zeroMoments(w) }, cfg);
const stub = { ...eng, keepLogits: async (b: any) => new Float32Array(b.n).fill(10) }; // keep all: Full-Debate contexts
async function data(split: string) {
  const qs = s.cache.questions.filter(q => q.split === split).map(q => q.index);
  const r = await rollout(stub as any, s.evalEnv, s.emb, qs, { mode: 'greedy', debateSeed: '0', conditioning: true });
  // label: the candidate's answer is correct
  const labels = new Uint8Array(r.batch.n);
  const A = 3, per = 18;
  r.results.forEach((d, k) => { for (let t = 2; t <= 3; t++) for (let i = 0; i < A; i++) for (let j = 0; j < A; j++) { const src = [i, ...[0,1,2].filter(x => x !== i)][j]; labels[k * per + (t - 2) * 9 + i * 3 + j] = d.correct[t - 2][src] ? 1 : 0; } });
  return { batch: r.batch, labels };
}
const tr = await data('train'); const va = await data('validation');
const ones = new Float32Array(tr.batch.n).fill(1);
const acc = async (d: any) => { const l = await eng.keepLogits(d.batch); let c = 0; l.forEach((x, i) => { if ((x > 0 ? 1 : 0) === d.labels[i]) c++; }); return c / l.length; };
console.log('base rate', va.labels.reduce((a: number, b: number) => a + b, 0) / va.labels.length);
for (let e = 0; e < 30; e++) { await eng.trainStep(tr.batch, tr.labels, ones); if (e % 5 === 4) console.log(e, 'train', (await acc(tr)).toFixed(3), 'val', (await acc(va)).toFixed(3)); }
