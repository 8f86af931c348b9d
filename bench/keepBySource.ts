// What a policy reads (docs/results.md, "Team-general policy"): its greedy keep rate of each source's
// candidates (the recipient's own response left out) on the test split of each cache, beside that
// source's behavior row, pooled over the policies given (one per seed), with the correlation over
// the (cache, source) pairs of the keep rate with each statistic of the row.
//   npx tsx bench/keepBySource.ts --policy P1 [P2 ...] --cache C1 [C2 ...]
import { ensureEmbeddings } from '../src/cache/embeddings.ts';
import { loadCache } from '../src/cache/load.ts';
import { actionIndex, actionsPerDebate, candidateOrder } from '../src/env/actions.ts';
import { makeEnvironment, splitQuestions } from '../src/env/environment.ts';
import { cacheRows, ROW_STATS } from '../src/policy/behaviorRows.ts';
import { inferenceEngine } from '../src/policy/createEngine.ts';
import { encoderFor } from '../src/policy/inference.ts';
import { rollout } from '../src/policy/rollout.ts';
import { readAnyPolicy } from '../train/checkpoint.ts';

const args = process.argv.slice(2);
const listAfter = (flag: string) => {
  const from = args.indexOf(flag) + 1;
  const end = args.findIndex((a, i) => i >= from && a.startsWith('--'));
  return args.slice(from, end < 0 ? undefined : end);
};
const policies = listAfter('--policy').map((p) => readAnyPolicy(p));
const points: { cache: string; agent: string; keep: number; row: Float32Array }[] = [];
for (const dir of listAfter('--cache')) {
  const cache = loadCache(dir, () => {});
  const env = makeEnvironment(cache, {});
  const A = env.team.length;
  const N = actionsPerDebate(A, env.rounds);
  const emb = await ensureEmbeddings(dir, cache, await encoderFor(policies[0].encoder));
  const questions = splitQuestions(env, 'test').questions.map((q) => q.index);
  const kept = new Float64Array(A);
  const seen = new Float64Array(A);
  for (const p of policies) {
    const engine = await inferenceEngine({ engine: 'onnx', threads: 1, backend: 'cpu' }, p.shape, p.weights);
    const r = await rollout(engine, env, emb, questions, { mode: 'greedy', debateSeed: String(p.trainedOn.seed), conditioning: p.shape.conditioning });
    engine.dispose();
    questions.forEach((_, b) => {
      for (let t = 2; t <= env.rounds; t++)
        for (let i = 0; i < A; i++)
          candidateOrder(A, i).forEach((source, j) => {
            if (j === 0) return; // its own response
            seen[source]++;
            kept[source] += r.actions[b * N + actionIndex(A, t, i, j)];
          });
    });
  }
  const rows = cacheRows(cache);
  env.team.forEach((a, k) => points.push({ cache: cache.header.name, agent: cache.agents[a].id, keep: kept[k] / seen[k], row: rows[a] }));
}
const shown = ['accuracy', 'changes', 'followed', 'followedWrong', 'logTokens'] as const;
console.log(`| cache | source | keep rate of its candidates % | ${shown.join(' | ')} |`);
console.log(`| --- | --- | ---: | ${shown.map(() => '---:').join(' | ')} |`);
for (const x of points)
  console.log(`| ${x.cache} | ${x.agent} | ${(100 * x.keep).toFixed(1)} | ${shown.map((s) => x.row[ROW_STATS.indexOf(s)].toFixed(2)).join(' | ')} |`);
const correlation = (xs: number[], ys: number[]) => {
  const mx = xs.reduce((a, b) => a + b, 0) / xs.length;
  const my = ys.reduce((a, b) => a + b, 0) / ys.length;
  let sxy = 0,
    sxx = 0,
    syy = 0;
  xs.forEach((x, i) => ((sxy += (x - mx) * (ys[i] - my)), (sxx += (x - mx) ** 2), (syy += (ys[i] - my) ** 2)));
  return sxy / Math.sqrt(sxx * syy);
};
console.log(
  `\nPearson r of the keep rate with each statistic over the ${points.length} (cache, source) pairs: ` +
    ROW_STATS.map(
      (s, k) =>
        `${s} ${correlation(
          points.map((p) => p.keep),
          points.map((p) => p.row[k]),
        ).toFixed(2)}`,
    ).join(', '),
);
