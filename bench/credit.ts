// Credit assignment (docs/results.md, "What training achieves"): plays every train question of a world
// K = 4 times with p_keep = 0.5 (the rollouts of a question share the environment's draws, as in
// training) and prints, for each (beta, gamma): the share of a return's absolute terms that is the
// action's own reward, the same recipient's transition again (gamma), the same recipient in later
// rounds, other recipients; the mean over (decision slot, context) of |E[G | keep] - E[G | prune]| /
// sd(G); and the mean squared advantage left by each baseline of train/advantage.ts (first batch: the
// running and context means are this batch's). Then every decision's one-sample estimate of
// Q(keep) - Q(prune), for each return and for counterfactual credit (train/counterfactual.ts: every
// decision flipped and replayed with its debate's draws), with the mean over (slot, context) of
// |mean| / sd of that estimate: the signal-to-noise of one decision's credit, on one scale for all.
//   npx tsx bench/credit.ts [cache/default]
import seedrandom from 'seedrandom';
import { loadCache } from '../src/cache/load.ts';
import { actionIndex, actionOf, actionsPerDebate, candidateOrder } from '../src/env/actions.ts';
import { edgesOnly, replay, type DebateResult } from '../src/env/debate.ts';
import { makeEnvironment, splitQuestions } from '../src/env/environment.ts';
import { addTiers, emptyTiers } from '../src/env/tiers.ts';
import { shownTokens } from '../src/env/tokenLimit.ts';
import { influenceWeights, meanResponseTokens, returns, RewardSettings } from '../src/reward.ts';
import { advantagesOf, baselineSize, batchRewards, BASELINES } from '../train/advantage.ts';
import { outcomes, playBranches } from '../train/counterfactual.ts';
import { tierShares } from '../train/runFolder.ts';

const K = 4;
const SEED = 'credit';
const cache = loadCache(process.argv[2] ?? 'cache/default');
const env = makeEnvironment(cache, {});
const A = env.team.length;
const N = actionsPerDebate(A, env.rounds);
const random = seedrandom(SEED);
const questions = splitQuestions(env, 'train').questions.flatMap((q) => new Array(K).fill(q.index) as number[]);
const tokens = new Float32Array(questions.length * N);
const results = questions.map((q, k) =>
  replay(
    env,
    q,
    edgesOnly((d, n) =>
      Array.from({ length: n }, (_, i) =>
        candidateOrder(n, i).map((c, j) => {
          tokens[k * N + actionIndex(n, d.round + 1, i, j)] = shownTokens(env, d.current[c]);
          return random() < 0.5;
        }),
      ),
    ),
    SEED,
  ),
);
const played = { results, tokens };
const reward = RewardSettings.parse({});
const rewards = batchRewards(played, { reward, meanTokens: meanResponseTokens(cache), agents: A });
const recipient = (x: number) => actionOf(A, x).i;
const round = (x: number) => actionOf(A, x).t - 2;
const kept = (d: DebateResult, x: number) => d.keeps[round(x)][recipient(x)][x % A];
const contextOf = (d: DebateResult, x: number) => `${x}|${d.correct[round(x)][recipient(x)]}|${d.correct[round(x)][candidateOrder(A, recipient(x))[x % A]]}`;

/** Mean over (slot, context) of |mean| / sd of a per-decision estimate, weighted by the decisions of each (at least 10, some spread). */
function perDecisionSnr(estimate: (k: number, x: number) => number): number {
  const groups = new Map<string, number[]>();
  results.forEach((d, k) => {
    for (let x = 0; x < N; x++) groups.set(contextOf(d, x), [...(groups.get(contextOf(d, x)) ?? []), estimate(k, x)]);
  });
  let snr = 0,
    weight = 0;
  for (const v of groups.values()) {
    const mean = v.reduce((a, b) => a + b, 0) / v.length;
    const sd = Math.sqrt(v.reduce((a, b) => a + (b - mean) ** 2, 0) / (v.length - 1));
    if (v.length < 10 || sd === 0) continue;
    snr += (v.length * Math.abs(mean)) / sd;
    weight += v.length;
  }
  return snr / weight;
}

for (const [beta, gamma] of [
  [0.5, 0.9],
  [0.5, 0],
  [0, 0],
]) {
  const W = influenceWeights(A, env.rounds, beta, gamma);
  const parts = [0, 0, 0, 0]; // own, same recipient and round, same recipient later, other recipients
  const byContext = new Map<string, { sum: number[]; n: number[]; squares: number }>();
  const G = new Float32Array(rewards.length);
  let varG = 0,
    meanG = 0;
  results.forEach((d, k) => {
    const r = rewards.subarray(k * N, (k + 1) * N);
    G.set(returns(W, r), k * N);
    for (let x = 0; x < N; x++) {
      const g = G[k * N + x];
      parts[0] += Math.abs(r[x]);
      for (let y = x + 1; y < N; y++) parts[recipient(y) !== recipient(x) ? 3 : round(y) === round(x) ? 1 : 2] += Math.abs(W[x * N + y] * r[y]);
      const key = contextOf(d, x);
      const c = byContext.get(key) ?? { sum: [0, 0], n: [0, 0], squares: 0 };
      const a = +kept(d, x);
      c.sum[a] += g;
      c.n[a]++;
      c.squares += g ** 2;
      byContext.set(key, c);
      meanG += g;
      varG += g ** 2;
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
  // REINFORCE's one-sample estimate of Q(keep) - Q(prune) at p = 0.5: (a - p) / (p (1 - p)) x (G - b) = ±2 (G - b), with the
  // best baseline there is here, the mean G of the decision's (slot, context).
  const contextMean = new Map([...byContext].map(([key, c]) => [key, (c.sum[0] + c.sum[1]) / (c.n[0] + c.n[1])]));
  const perDecision = perDecisionSnr((k, x) => (kept(results[k], x) ? 2 : -2) * (G[k * N + x] - contextMean.get(contextOf(results[k], x))!));
  console.log(
    `beta ${beta}, gamma ${gamma}: shares own / same transition / same recipient later ` +
      `/ other recipients ${parts.map((p) => (p / total).toFixed(2)).join(' / ')}; ` +
      `mean |E[G|keep] - E[G|prune]| / sd(G) ${(snr / weight).toFixed(2)}; var G ${varG.toFixed(2)}; mean squared advantage: ${residual.join(', ')}; ` +
      `one decision's estimate ±2 (G - context mean): |mean| / sd ${perDecision.toFixed(2)}`,
  );
}

// Counterfactual credit: every decision flipped, replayed with its debate's draws.
const branches = results.flatMap((_, k) => Array.from({ length: N }, (_, x) => ({ k, x })));
const started = performance.now();
const flipped = await playBranches(env, played, branches, SEED);
const seconds = (performance.now() - started) / 1000;
const tiers = emptyTiers();
flipped.results.forEach((d) => addTiers(tiers, d.tiers));
const shares = Object.entries(tierShares(tiers)).map(([k, v]) => `${k.slice(5)} ${Math.round(100 * Number(v))}%`);
console.log(`counterfactual branches: ${branches.length} (${N} a debate) in ${seconds.toFixed(1)} s; their lookups ${shares.join(', ')}`);
for (const outcome of ['reward', 'correct'] as const) {
  const s = { reward, meanTokens: meanResponseTokens(cache), agents: A };
  const factual = outcomes(played, s, outcome);
  const other = outcomes(flipped, s, outcome);
  const delta = (k: number, x: number) => factual[k] - other[k * N + x];
  const changed = branches.filter(({ k, x }) => delta(k, x) !== 0).length;
  // The estimate of Q(keep) - Q(prune) of one decision: its difference, signed by the action it took.
  const perDecision = perDecisionSnr((k, x) => (kept(results[k], x) ? 1 : -1) * delta(k, x));
  console.log(
    `counterfactual, outcome ${outcome}: ${((100 * changed) / branches.length).toFixed(1)}% of flips change the outcome; ` +
      `one decision's estimate ±(outcome - outcome flipped): |mean| / sd ${perDecision.toFixed(2)}`,
  );
}
