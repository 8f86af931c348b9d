// Credit assignment of the return (docs/results.md, "What training achieves"): plays every train question of
// the default world K = 4 times with p_keep = 0.5 and prints, for each (beta, gamma): the share of a
// return's absolute terms that is the action's own reward, the same recipient's transition again
// (gamma), the same recipient in later rounds, other recipients; the mean over (decision slot,
// context) of |E[G | keep] - E[G | prune]| / sd(G); and the mean squared advantage left by each
// baseline of train/advantage.ts (first batch: the running and context means are this batch's).
//   npx tsx bench/credit.ts [cache/default]
import seedrandom from 'seedrandom';
import { loadCache } from '../src/cache/load.ts';
import { actionIndex, actionOf, actionsPerDebate, candidateOrder } from '../src/env/actions.ts';
import { replay } from '../src/env/debate.ts';
import { makeEnvironment, splitQuestions } from '../src/env/environment.ts';
import { shownTokens } from '../src/env/tokenLimit.ts';
import { influenceWeights, meanResponseTokens, returns, RewardSettings } from '../src/reward.ts';
import { advantagesOf, baselineSize, batchRewards, BASELINES } from '../train/advantage.ts';

const K = 4;
const cache = loadCache(process.argv[2] ?? 'cache/default');
const env = makeEnvironment(cache, {});
const A = env.team.length;
const N = actionsPerDebate(A, env.rounds);
const random = seedrandom('credit');
const questions = splitQuestions(env, 'train').questions.flatMap((q) => new Array(K).fill(q.index) as number[]);
const tokens = new Float32Array(questions.length * N);
const results = questions.map((q, k) =>
  replay(
    env,
    q,
    (d, n) =>
      Array.from({ length: n }, (_, i) =>
        candidateOrder(n, i).map((c, j) => {
          tokens[k * N + actionIndex(n, d.round + 1, i, j)] = shownTokens(env, d.current[c]);
          return random() < 0.5;
        }),
      ),
    `rollout ${k % K}`,
  ),
);
const played = { results, tokens };
const reward = RewardSettings.parse({});
const rewards = batchRewards(played, { reward, meanTokens: meanResponseTokens(cache), agents: A });
const recipient = (x: number) => actionOf(A, x).i;
const round = (x: number) => actionOf(A, x).t - 2;

for (const [beta, gamma] of [
  [0.5, 0.9],
  [0.5, 0],
  [0, 0],
]) {
  const W = influenceWeights(A, env.rounds, beta, gamma);
  const parts = [0, 0, 0, 0]; // own, same recipient and round, same recipient later, other recipients
  const byContext = new Map<string, { sum: number[]; n: number[]; squares: number }>();
  let varG = 0,
    meanG = 0;
  results.forEach((d, k) => {
    const r = rewards.subarray(k * N, (k + 1) * N);
    const G = returns(W, r);
    for (let x = 0; x < N; x++) {
      parts[0] += Math.abs(r[x]);
      for (let y = x + 1; y < N; y++) parts[recipient(y) !== recipient(x) ? 3 : round(y) === round(x) ? 1 : 2] += Math.abs(W[x * N + y] * r[y]);
      const t = round(x),
        i = recipient(x),
        j = x % A;
      const key = `${x}|${d.correct[t][i]}|${d.correct[t][candidateOrder(A, i)[j]]}`;
      const c = byContext.get(key) ?? { sum: [0, 0], n: [0, 0], squares: 0 };
      const a = +d.keeps[t][i][j];
      c.sum[a] += G[x];
      c.n[a]++;
      c.squares += G[x] ** 2;
      byContext.set(key, c);
      meanG += G[x];
      varG += G[x] ** 2;
    }
  });
  meanG /= rewards.length;
  varG = varG / rewards.length - meanG ** 2;
  let snr = 0,
    weight = 0;
  for (const c of byContext.values()) {
    const n = c.n[0] + c.n[1];
    const sd = Math.sqrt(c.squares / n - ((c.sum[0] + c.sum[1]) / n) ** 2);
    if (c.n[0] < 5 || c.n[1] < 5 || sd === 0) continue;
    snr += (n * Math.abs(c.sum[1] / c.n[1] - c.sum[0] / c.n[0])) / sd;
    weight += n;
  }
  const total = parts.reduce((a, b) => a + b, 0);
  const residual = BASELINES.map((baseline) => {
    const adv = advantagesOf(played, {
      reward,
      W,
      meanTokens: meanResponseTokens(cache),
      agents: A,
      baseline,
      rollouts: K,
      normalize: false,
      state: new Array(baselineSize(baseline, A, env.rounds)).fill(0),
      momentum: 0.9,
      step: 0,
    }).advantages;
    return `${baseline} ${(adv.reduce((s, a) => s + a * a, 0) / adv.length).toFixed(2)}`;
  });
  console.log(
    `beta ${beta}, gamma ${gamma}: shares own / same transition / same recipient later ` +
      `/ other recipients ${parts.map((p) => (p / total).toFixed(2)).join(' / ')}; ` +
      `mean |E[G|keep] - E[G|prune]| / sd(G) ${(snr / weight).toFixed(2)}; var G ${varG.toFixed(2)}; mean squared advantage: ${residual.join(', ')}`,
  );
}
