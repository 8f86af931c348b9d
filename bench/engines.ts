// Training speed of the policy engines beside PyTorch and beside the machine's matmul bound, and
// of the whole training loop beside its engine. Every contender is warmed up and timed
// in interleaved rounds (trials.ts); each figure is printed as min / median / max.
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBatch } from './randomBatch.ts';
import { readConfigFile, resolveConfig } from '../train/config.ts';
import { readLog } from '../train/runFolder.ts';
import { initialWeights, setup, train } from '../train/trainer.ts';
import { splitQuestions } from '../src/env/environment.ts';
import { zeroMoments, type EngineState, type OptimizerSettings, type PolicyEngine } from '../src/policy/engine.ts';
import { initWeights, type PolicyShape, type Weights } from '../src/policy/model.ts';
import { graphBuilder } from '../src/policy/onnx/graph.ts';
import { onnxEngine, onnxLoadError } from '../src/policy/onnxEngine.ts';
import { torchReference } from './torch.ts';
import { beside } from './goals.ts';
import { interleaved, rateOf, type Contender, type Spread, type TrialSettings } from './trials.ts';

export const TRIALS: TrialSettings = { warmup: 2, seconds: 1.5, trials: 5 };
export const SHAPE: PolicyShape = {
  dim: 512,
  hidden: 256,
  agents: 3,
  rounds: 3,
  behavior: 'mean',
  initSamples: null,
  conditioning: true,
  ownFeature: true,
  sourceFeature: true,
  roundFeature: true,
  currentFeature: false,
  turnFeature: false,
  behaviorRows: 0,
  decisions: 'edges',
};
export const OPT: OptimizerSettings = { lr: 3e-4, beta1: 0.9, beta2: 0.999, epsilon: 1e-8, entropyBonus: 1 };
const BATCHES = [256, 1024];
const GEMM_SIZE = 1024;

/**
 * Matmul FLOPs of one REINFORCE step per decision, as PyTorch computes it: forward, per FuseGLU
 * block, the four D x H projections (gate and up of x and of y) and the H x D down projection, plus
 * the D-wide head; the backward pass is twice that (a product's gradient with respect to each of
 * its two operands); 2 FLOP per multiply-add. At D = 512, H = 256: 3 * 2,622,464 = 7.87 MFLOP.
 * (The ONNX engine does less: block 1 projects each agent's behavior embedding once per batch, not
 * once per decision, so its figure against this count can exceed what its own arithmetic reaches.)
 */
export const stepFlops = ({ dim: D, hidden: H }: PolicyShape) => 3 * (2 * (4 * 2 * D * H + 2 * H * D) + 2 * D);

/**
 * The machine's load average. Before the bench starts anything, one process's worth or more means
 * other work competes for the cores and the timings below are disturbed; afterwards it includes
 * the bench's own two threads.
 */
export function loadNote(before: boolean): string {
  const [one, five] = loadavg();
  const busy = before && one >= 1;
  return (
    `load average ${one.toFixed(1)} (1 min), ${five.toFixed(1)} (5 min) on ${cpus().length} ` +
    `cores${busy ? ': other work is competing for the cores, so the timings are disturbed' : ''}`
  );
}

const freshState = (weights: Weights): EngineState => ({ weights, step: 0, m: zeroMoments(weights), v: zeroMoments(weights) });
const int = (x: number) => Math.round(x).toLocaleString('en-US');
const cells = (s: Spread) => [s.min, s.median, s.max].map((x) => int(x).padStart(7)).join(' ');

function stepContender(name: string, engine: PolicyEngine, shape: PolicyShape, n: number): Contender {
  const { batch, actions, advantages } = randomBatch(shape, n, `bench-${n}`);
  return { name, run: (seconds) => rateOf(() => engine.trainStep(batch, actions, advantages), n, seconds) };
}

/** GFLOP/s of ONNX Runtime's float32 MatMul at size^3, outputs into a preallocated tensor. */
async function ortGemm(threads: number, size: number): Promise<Contender & { release(): Promise<void> }> {
  const ort = await import('onnxruntime-node');
  const g = graphBuilder('float32', 'gemm');
  g.output(g.op('MatMul', [g.input('a', [size, size]), g.input('b', [size, size])]), 'c', [size, size]);
  const session = await ort.InferenceSession.create(g.bytes(), {
    intraOpNumThreads: threads,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: 'all',
  });
  const matrix = () =>
    new ort.Tensor(
      'float32',
      Float32Array.from({ length: size * size }, () => Math.random() - 0.5),
      [size, size],
    );
  const feeds = { a: matrix(), b: matrix() };
  const out = { c: new ort.Tensor('float32', new Float32Array(size * size), [size, size]) };
  return {
    name: 'gemm onnxruntime',
    run: (seconds) => rateOf(() => session.run(feeds, out), (2 * size ** 3) / 1e9, seconds),
    release: () => session.release(),
  };
}

/** The engines beside PyTorch and the matmul bound, at 1 and 2 threads. */
export async function benchEngines(): Promise<void> {
  const flops = stepFlops(SHAPE);
  console.log(`\nPolicy engines: one REINFORCE step (forward, backward, Adam), FuseGLU width ${SHAPE.dim}, hidden ${SHAPE.hidden}, random decisions.`);
  console.log(
    `  Each figure: min / median / max of ${TRIALS.trials} trials of ${TRIALS.seconds} s, after ` +
      `${TRIALS.warmup} s of warm-up in the same process, trials interleaved in rotating order.`,
  );
  console.log(
    `  Matmul bound: the best float32 GEMM rate (${GEMM_SIZE}^3) measured in the same rounds / ` +
      `${(flops / 1e6).toFixed(2)} MFLOP per decision (the step's matmuls, as PyTorch computes them).`,
  );
  const onnxFailed = await onnxLoadError();
  if (onnxFailed !== undefined) return console.log(`  onnx: onnxruntime-node does not load here (npm ci installs it): ${onnxFailed}`);
  console.log(`  onnx: onnxruntime-node ${(await import('onnxruntime-node')).env.versions.node} (CPU execution provider)`);
  const { loadBackend, tfjsEngine } = await import('../src/policy/tfjsEngine.ts');
  const tfjsBackend = await loadBackend('auto');
  const weights = initWeights(SHAPE, 'bench');
  const goals: { vsTorch: number[]; bound1024: number[] } = { vsTorch: [], bound1024: [] };
  for (const threads of [1, 2]) {
    const torch = await torchReference(threads, SHAPE.dim, SHAPE.hidden);
    if ('missing' in torch)
      console.log(`  PyTorch: not available (${torch.missing}); install Debian's python3-torch (apt-get install python3-torch libopenblas0-openmp)`);
    const gemm = await ortGemm(threads, GEMM_SIZE);
    const contenders: Contender[] = [gemm];
    if (!('missing' in torch)) contenders.push({ name: 'gemm PyTorch', run: (s) => torch.gemm(GEMM_SIZE, s) });
    const engines: PolicyEngine[] = [];
    for (const n of BATCHES) {
      const onnx = await onnxEngine(SHAPE, freshState(weights), OPT, threads);
      engines.push(onnx);
      contenders.push(stepContender(`onnx ${n}`, onnx, SHAPE, n));
      if (!('missing' in torch)) contenders.push({ name: `PyTorch ${n}`, run: (s) => torch.step(n, s) });
      // TF.js runs one thread (its threaded wasm build does not start in Node).
      if (threads === 1) {
        const tfjs = tfjsEngine(SHAPE, freshState(weights), OPT);
        engines.push(tfjs);
        contenders.push(stepContender(`TF.js ${n}`, tfjs, SHAPE, n));
      }
    }
    const r = await interleaved(contenders, TRIALS);
    for (const e of engines) e.dispose();
    await gemm.release();
    if (!('missing' in torch)) torch.close();

    const gemms = [...r].filter(([name]) => name.startsWith('gemm'));
    const bound = Math.max(...gemms.map(([, s]) => s.median));
    console.log(
      `\n  ${threads} thread${threads > 1 ? 's' : ''}: GEMM ` +
        `${gemms.map(([name, s]) => `${name.slice(5)} ${s.min.toFixed(0)} / ${s.median.toFixed(0)} / ${s.max.toFixed(0)} GFLOP/s`).join(', ')}; ` +
        `bound ${int((bound * 1e9) / flops)} decisions/s`,
    );
    if (!('missing' in torch)) console.log(`  PyTorch ${torch.version} (${torch.python} bench/torch_step.py); TF.js on ${tfjsBackend}`);
    console.log('  batch  engine      min  median     max   of bound   vs PyTorch');
    for (const n of BATCHES)
      for (const name of ['onnx', 'PyTorch', 'TF.js']) {
        const s = r.get(`${name} ${n}`);
        if (!s) continue;
        const share = (s.median * flops) / (bound * 1e9);
        const torchMedian = r.get(`PyTorch ${n}`)?.median;
        const ratio = torchMedian ? s.median / torchMedian : undefined;
        if (name === 'onnx' && ratio !== undefined) goals.vsTorch.push(ratio);
        if (name === 'onnx' && n === 1024) goals.bound1024.push(share);
        console.log(
          `  ${String(n).padStart(5)}  ${name.padEnd(8)} ${cells(s)}   ` +
            `${`${(100 * share).toFixed(0)}%`.padStart(8)}   ${ratio === undefined ? '-' : `${ratio.toFixed(2)}x`}`,
        );
      }
  }
  console.log('');
  if (goals.vsTorch.length)
    console.log(
      `  goal: onnx >= PyTorch's steady state at equal threads and batch -> ` +
        `${goals.vsTorch.every((x) => x >= 1) ? 'met' : 'NOT met'} (lowest ${Math.min(...goals.vsTorch).toFixed(2)}x)`,
    );
  else console.log("  goal: onnx >= PyTorch's steady state -> not measured (no PyTorch here)");
  console.log(
    `  goal: onnx >= 60% of the matmul bound at batch 1024 -> ${goals.bound1024.every((x) => x >= 0.6) ? 'met' : 'NOT met'} ` +
      `(${goals.bound1024.map((x) => `${(100 * x).toFixed(0)}%`).join(', ')} at 1, 2 threads)`,
  );
}

/**
 * The whole training loop (train(): rollout with replay, returns, engine step, log line) beside
 * the raw engine step at the same shape and batch: the main job's settings on `cache`, ONNX engine,
 * one thread. A loop trial is one 3-epoch training run; its figure is the median of the
 * decisionsPerSecond its log gives for the steps of epochs 2-3 (the engine has warmed up by then).
 */
export async function benchLoop(cache: string): Promise<void> {
  const epochs = 3;
  const base = resolveConfig(readConfigFile('train/configs/main.json'), { cache, engine: 'onnx', threads: 1, epochs });
  const s = await setup(base);
  const A = s.shape.agents;
  const n = base.batchSize * (s.shape.rounds - 1) * A * A;
  const trainDecisions = splitQuestions(s.trainEnv, 'train').questions.length * (s.shape.rounds - 1) * A * A;
  const engine = await onnxEngine(s.shape, freshState(initialWeights(s)), base, 1);
  const dir = mkdtempSync(join(tmpdir(), 'bench-loop-'));
  const wall: number[] = [];
  let runs = 0;
  const loop: Contender = {
    name: 'loop',
    async run() {
      const out = join(dir, `run-${runs++}`);
      const start = performance.now();
      await train(resolveConfig({ ...base, out }), { log: () => {} });
      wall.push((epochs * trainDecisions) / ((performance.now() - start) / 1000));
      const steps = readLog(out).filter((l) => l.type === 'step' && l.epoch >= 2);
      const rates = steps.map((l) => Number(l.decisionsPerSecond)).sort((a, b) => a - b);
      return rates[rates.length >> 1];
    },
  };
  try {
    const r = await interleaved([stepContender('raw', engine, s.shape, n), loop], TRIALS);
    const [raw, perStep] = [r.get('raw')!, r.get('loop')!];
    const share = (100 * perStep.median) / raw.median;
    console.log(
      `\nTraining loop: train/configs/main.json on ${cache} (${base.batchSize} debates = ${int(n)} decisions a step, width ` +
        `${s.shape.dim}, hidden ${s.shape.hidden}), onnx, 1 thread; decisions/s, min / median / max of ${TRIALS.trials} interleaved trials:`,
    );
    console.log(`  engine step alone (random decisions, same shape and batch) ${cells(raw)}`);
    console.log(
      `  training loop, per step (train's decisionsPerSecond)     ${cells(perStep)}   ${share.toFixed(0)}% of the engine ` +
        `(${beside('training loop per step, share of its engine step', share, '%', { limit: 80, atMost: false }, `medians of ${TRIALS.trials}`)})`,
    );
    const whole = [...wall.slice(1)].sort((a, b) => a - b); // the first run was the warm-up
    console.log(
      `  whole train() run (setup, ${epochs} epochs, validation, checkpoints)    ${int(whole[0]).padStart(7)} ` +
        `${int(whole[whole.length >> 1]).padStart(7)} ${int(whole.at(-1)!).padStart(7)}`,
    );
  } finally {
    engine.dispose();
    rmSync(dir, { recursive: true, force: true });
  }
}
