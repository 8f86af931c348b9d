// `npm run bench`: speed figures (goals from the issues, printed beside each figure).
//   - replayed Full-Debate debates per second, one thread (goal >= 20,000/s)
//   - load time of a 10,000-question cache (goal <= 5 s)
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cacheFilePath, loadCache } from '../src/cache/load.ts';
import { keepAll, keepOwn, makeEnvironment, replay, type KeepRule } from '../src/env/environment.ts';
import { generateCache } from '../src/sim/generate.ts';

const DEFAULT = 'cache/default';
const BIG = 'cache/bench-10k';

function ensure(dir: string, questions: number) {
  if (existsSync(cacheFilePath(dir))) return;
  console.error(`generating ${dir} (${questions} questions), once`);
  generateCache(dir, { questions }, `bench-${questions}`);
}

function rate(label: string, run: () => number, seconds = 3) {
  run(); // warm up
  let debates = 0;
  const start = performance.now();
  while (performance.now() - start < seconds * 1000) debates += run();
  const perSecond = debates / ((performance.now() - start) / 1000);
  return { label, perSecond };
}

ensure(DEFAULT, 1200);
const cache = loadCache(DEFAULT);
const env = makeEnvironment(cache, { miss: 'model' });
const questions = cache.questions.map((q) => q.index);
const replayAll = (rule: KeepRule) => () => {
  for (const q of questions) replay(env, q, rule);
  return questions.length;
};
const keepHalf: KeepRule = (d, n) => Array.from({ length: n }, (_, i) => Array.from({ length: n }, (_, j) => ((d.q + i + j + d.round) & 1) === 0));
const rows = [
  rate('Full-Debate (exact tier)', replayAll(keepAll)),
  rate('No-communication (exact tier)', replayAll(keepOwn)),
  rate('half the edges (mostly tier 3)', replayAll(keepHalf)),
];
console.log(`Replay, one thread, ${cache.questions.length}-question default cache, ${env.team.length} agents x ${env.rounds} rounds:`);
for (const r of rows) console.log(`  ${r.label.padEnd(34)} ${Math.round(r.perSecond).toLocaleString('en-US').padStart(9)} debates/s`);
console.log(`  goal: Full-Debate >= 20,000 debates/s -> ${rows[0].perSecond >= 20000 ? 'met' : 'NOT met'}`);

ensure(BIG, 10000);
// Load in a fresh process, as a user's run would.
const out = execFileSync(process.execPath, ['--import', 'tsx', '-e', `
  const { loadCache } = await import('./src/cache/load.ts');
  const t = performance.now(); const c = loadCache('${BIG}');
  console.log(JSON.stringify({ ms: performance.now() - t, questions: c.questions.length, responses: c.responses.length }));
`], { encoding: 'utf8' });
const load = JSON.parse(out.trim().split('\n').at(-1)!);
console.log(`\nLoad ${BIG}: ${load.questions} questions, ${load.responses.toLocaleString('en-US')} responses in ${(load.ms / 1000).toFixed(2)} s (goal <= 5 s -> ${load.ms <= 5000 ? 'met' : 'NOT met'})`);

// Training throughput of the policy engine: one REINFORCE step (forward, backward, Adam) and a
// forward pass alone, per backend that loads, on random decisions.
const { loadBackend, tfjsEngine } = await import('../src/policy/tfjsEngine.ts');
const { BACKENDS } = await import('../src/policy/backends.ts');
const { initWeights } = await import('../src/policy/model.ts');
const { zeroMoments } = await import('../src/policy/engine.ts');
const { emptyBatch } = await import('../src/policy/rollout.ts');
const seedrandom = (await import('seedrandom')).default;
const shape = { dim: 256, hidden: 128, agents: 3, rounds: 3, behavior: 'mean' as const, initSamples: null, conditioning: true, ownFeature: true, sourceFeature: true, roundFeature: true };
const batchSize = 256;
const random = seedrandom('bench');
const batch = emptyBatch(batchSize, shape.dim);
batch.query.forEach((_, i) => (batch.query[i] = random() - 0.5));
batch.candidate.forEach((_, i) => (batch.candidate[i] = random() - 0.5));
batch.recipient.forEach((_, i) => (batch.recipient[i] = i % 3));
batch.source.forEach((_, i) => (batch.source[i] = (i + 1) % 3));
batch.round.forEach((_, i) => (batch.round[i] = i % 2));
const actions = Uint8Array.from({ length: batchSize }, () => (random() < 0.5 ? 1 : 0));
const advantages = Float32Array.from({ length: batchSize }, () => random() - 0.5);
console.log(`\nPolicy engine, batch ${batchSize} decisions, embedding width ${shape.dim}, FuseGLU hidden ${shape.hidden}:`);
for (const backend of BACKENDS.filter((b) => b !== 'auto')) {
  let name: string;
  try {
    name = await loadBackend(backend);
  } catch {
    console.log(`  ${backend.padEnd(15)} not available`);
    continue;
  }
  const weights = initWeights(shape, 'bench');
  const engine = tfjsEngine(shape, { weights, step: 0, m: zeroMoments(weights), v: zeroMoments(weights) }, { lr: 1e-3, beta1: 0.9, beta2: 0.999, epsilon: 1e-8, entropyBonus: 0.01 });
  const time = async (fn: () => Promise<unknown>, seconds: number) => {
    await fn();
    let n = 0;
    const start = performance.now();
    while (performance.now() - start < seconds * 1000) {
      await fn();
      n++;
    }
    return (n * batchSize) / ((performance.now() - start) / 1000);
  };
  const step = await time(() => engine.trainStep(batch, actions, advantages), 4);
  const forward = await time(() => engine.keepLogits(batch), 2);
  console.log(`  ${name.padEnd(15)} train step ${Math.round(step).toLocaleString('en-US').padStart(7)} decisions/s, forward ${Math.round(forward).toLocaleString('en-US').padStart(7)} decisions/s`);
  engine.dispose();
}
