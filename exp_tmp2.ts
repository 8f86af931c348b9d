import { loadCache } from './src/cache/load.ts';
import { makeEnvironment, replay, candidateOrder } from './src/env/environment.ts';
import { simulatorEndpoint } from './src/sim/simulator.ts';
import { RewardSettings, debateRewards } from './src/reward.ts';
import seedrandom from 'seedrandom';
const cache = loadCache('cache/default');
const env = makeEnvironment(cache, { miss: 'record' }, simulatorEndpoint(cache));
const rnd = seedrandom('x');
const stats = new Map<string, [number, number]>();
const k = Number(process.argv[2] ?? 0);
const rs = RewardSettings.parse({ k });
for (let rep = 0; rep < 3; rep++) for (const q of cache.questions.filter(q => q.split === 'train')) {
  const srcCorrect: boolean[][][] = [];
  const res = replay(env, q.index, (d, n) => { const row = Array.from({ length: n }, (_, i) => candidateOrder(n, i).map(c => d.current[c].ans === q.goldKey)); srcCorrect.push(row); return Array.from({ length: n }, () => Array.from({ length: n }, () => rnd() < 0.5)); }, rep);
  const rw = debateRewards(rs, res, 200, () => 0);
  let x = 0;
  for (let t = 2; t <= 3; t++) for (let i = 0; i < 3; i++) for (let j = 0; j < 3; j++, x++) {
    const kept = res.keeps[t - 2][i][j];
    const key = `t${t} r=${cache.agents[i].id} ${j === 0 ? 'own ' : 'peer'} src${srcCorrect[t - 2][i][j] ? 'C' : 'W'} rec${res.correct[t - 2][i] ? 'C' : 'W'} ${kept ? 'keep' : 'prune'}`;
    const s = stats.get(key) ?? [0, 0]; s[0] += rw[x]; s[1]++; stats.set(key, s);
  }
}
for (const [key, [sum, n]] of [...stats].sort()) if (key.endsWith('keep')) console.log(key, (sum / n).toFixed(2), n);
