import { resolveConfig } from './train/config.ts';
import { setup } from './train/trainer.ts';
import { loadCheckpoint, artifactOf } from './src/policy/artifact.ts';
import { inferenceEngine } from './eval/evalPolicy.ts';
import { rollout } from './src/policy/rollout.ts';
const ck = loadCheckpoint(process.argv[2]);
const s = await setup(resolveConfig({ ...(ck.config as any), backend: 'wasm' }));
const eng = inferenceEngine(artifactOf(ck));
const qs = s.cache.questions.filter(q => q.split === 'validation').map(q => q.index);
const r = await rollout(eng, s.evalEnv, s.emb, qs, { mode: 'greedy', debateSeed: '0', conditioning: true });
const stats = new Map<string, [number, number]>();
r.results.forEach((d, k) => { for (let t = 2; t <= 3; t++) for (let i = 0; i < 3; i++) for (let j = 0; j < 3; j++) {
  const src = [i, ...[0,1,2].filter(x => x !== i)][j]; const x = k * 18 + (t - 2) * 9 + i * 3 + j;
  const key = `t${t} ${j === 0 ? 'own ' : 'peer'} src${d.correct[t - 2][src] ? 'C' : 'W'} rec${d.correct[t - 2][i] ? 'C' : 'W'}`;
  const st = stats.get(key) ?? [0, 0]; st[0] += r.actions[x]; st[1]++; stats.set(key, st); } });
for (const [k, [a, n]] of [...stats].sort()) console.log(k, (a / n).toFixed(2), n);
console.log('acc', r.results.filter(d => d.finalCorrect).length / r.results.length);
