// `npm run bench`: speed figures (goals from the issues, printed beside each figure).
//   - replayed Full-Debate debates per second, one thread (goal >= 20,000/s)
//   - load time of a 10,000-question cache (goal <= 5 s)
//   - policy-engine train steps per engine, batch and thread count, beside PyTorch (goal >= 1.0x)
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cacheFilePath, loadCache } from '../src/cache/load.ts';
import { keepAll, keepOwn, replay, type KeepRule } from '../src/env/debate.ts';
import { makeEnvironment } from '../src/env/environment.ts';
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

// Training throughput of the policy engines: one REINFORCE step (forward, backward, Adam) on
// random decisions, FuseGLU width 512, hidden 256, at batch 256 and 1024 with 1 and 2 threads; the
// same step in PyTorch (Debian's python3-torch with OpenBLAS) run side by side when installed.
const { loadBackend, tfjsEngine } = await import('../src/policy/tfjsEngine.ts');
const { onnxAvailable, onnxEngine } = await import('../src/policy/onnxEngine.ts');
const { initWeights } = await import('../src/policy/model.ts');
const { zeroMoments } = await import('../src/policy/engine.ts');
type PolicyEngine = import('../src/policy/engine.ts').PolicyEngine;
const { randomBatch } = await import('../tests/policy/randomBatch.ts');
const shape = { dim: 512, hidden: 256, agents: 3, rounds: 3, behavior: 'mean' as const, initSamples: null, conditioning: true, ownFeature: true, sourceFeature: true, roundFeature: true };
const opt = { lr: 3e-4, beta1: 0.9, beta2: 0.999, epsilon: 1e-8, entropyBonus: 1 };
const weights = initWeights(shape, 'bench');
const state = () => ({ weights, step: 0, m: zeroMoments(weights), v: zeroMoments(weights) });
const fmt = (x: number) => Math.round(x).toLocaleString('en-US').padStart(7);

/** Decisions per second of train steps, after one warm-up step, for about `seconds` (at least 2 steps). */
async function stepRate(engine: PolicyEngine, n: number, seconds: number): Promise<number> {
  const { batch, actions, advantages } = randomBatch(shape, n, `bench-${n}`);
  const step = () => engine.trainStep(batch, actions, advantages);
  await step();
  let steps = 0;
  const start = performance.now();
  while (steps < 2 || performance.now() - start < seconds * 1000) {
    await step();
    steps++;
  }
  return (steps * n) / ((performance.now() - start) / 1000);
}

const python = '/usr/bin/python3';
const torch = existsSync(python) && (() => {
  try {
    return execFileSync(python, ['-c', 'import torch; print(torch.__version__)'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return null;
  }
})();
// Timing on a shared machine drifts by 10-20% from one second to the next: the two engines are
// timed in alternating stretches (PyTorch, ONNX, PyTorch, ...) and each one's median reported.
const TRIALS = 3;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const torchTrial = (threads: number, n: number) =>
  (JSON.parse(execFileSync(python, ['bench/torch_step.py', String(threads), String(n), String(shape.dim), String(shape.hidden), '1.5', '1'], { encoding: 'utf8' })).decisions_per_s as number[])[0];
console.log(`\nPolicy engines: one REINFORCE step (forward, backward, Adam), FuseGLU width ${shape.dim}, hidden ${shape.hidden}, decisions/s (median of ${TRIALS}):`);
console.log(`  PyTorch reference: ${torch ? `torch ${torch} (${python} bench/torch_step.py)` : 'not installed (apt install python3-torch libopenblas0-openmp)'}`);
console.log('  threads  batch |    onnx |  PyTorch | onnx / PyTorch');
const ratios: number[] = [];
if (await onnxAvailable())
  for (const threads of [1, 2])
    for (const n of [256, 1024]) {
      const engine = await onnxEngine(shape, state(), opt, threads);
      const [onnxTrials, torchTrials] = [[] as number[], [] as number[]];
      for (let k = 0; k < TRIALS; k++) {
        if (torch) torchTrials.push(torchTrial(threads, n));
        onnxTrials.push(await stepRate(engine, n, 1.5));
      }
      engine.dispose();
      const onnx = median(onnxTrials);
      const ref = torch ? median(torchTrials) : null;
      if (ref) ratios.push(onnx / ref);
      console.log(`  ${String(threads).padStart(7)} ${String(n).padStart(6)} | ${fmt(onnx)} | ${ref ? ` ${fmt(ref)}` : '        -'} | ${ref ? `${(onnx / ref).toFixed(2)}x` : '-'}`);
    }
else console.log('  onnx: onnxruntime-node does not load here');
if (ratios.length) console.log(`  goal: onnx >= 1.0x PyTorch at equal threads and batch -> ${ratios.every((r) => r >= 1) ? 'met' : 'NOT met'} (lowest ${Math.min(...ratios).toFixed(2)}x)`);

console.log('  TF.js (one thread; its threaded wasm build does not start in Node):');
for (const backend of ['tensorflow-gpu', 'tensorflow', 'wasm', 'cpu'] as const) {
  let name: string;
  try {
    name = await loadBackend(backend);
  } catch {
    console.log(`    ${backend.padEnd(15)} not available`);
    continue;
  }
  const engine = tfjsEngine(shape, state(), opt);
  const rates = [];
  for (const n of [256, 1024]) rates.push(`batch ${n}: ${fmt(await stepRate(engine, n, backend === 'cpu' ? 2 : 4))}`);
  console.log(`    ${name.padEnd(15)} ${rates.join(', ')}`);
  engine.dispose();
}
