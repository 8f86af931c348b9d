// `npm run bench -- gpu`: the GPU engine (--engine webgpu) beside the CPU engine at 1 and 2
// threads, decisions/s of one REINFORCE step per batch size, at the engines bench's shape (width
// 512, hidden 256: 7.87 MFLOP of matmuls a decision, bench/engines.ts); the adapter, and the bytes
// a GPU step moves each way. One script that a GPU machine runs as it is. Goal: >= 25x
// the 2-thread CPU engine at batch 16,384 on a real GPU. On a software adapter (lavapipe) the
// batches stop at 4,096: a step of 16,384 takes minutes there on a loaded machine, and the figures
// say what lavapipe does, not what a GPU does.
import { createEngine } from '../src/policy/createEngine.ts';
import { zeroMoments, type PolicyEngine } from '../src/policy/engine.ts';
import { initWeights } from '../src/policy/model.ts';
import { onnxEngine, onnxLoadError, type StepBytes } from '../src/policy/onnxEngine.ts';
import { adapterName, webgpuAdapter } from '../src/policy/webgpu.ts';
import { defaultCompute } from '../src/policy/backends.ts';
import { OPT as BENCH_OPT, SHAPE as BENCH_SHAPE, stepFlops } from './engines.ts';
import { beside } from './goals.ts';
import { randomBatch } from './randomBatch.ts';
import { interleaved, rateOf, type Contender } from './trials.ts';

const BATCHES = [256, 1024, 4096, 16384, 65536];
const SOFTWARE_MAX = 4096;
const GOAL_BATCH = 16384;
/** Shorter than the engines bench: a large batch's step is seconds on a software adapter. */
const TRIALS = { warmup: 1, seconds: 1, trials: 3 };

const int = (x: number) => Math.round(x).toLocaleString('en-US');

export async function benchGpu(): Promise<void> {
  console.log(
    `\nGPU engine (webgpu) beside the CPU engine (onnx): one REINFORCE step, width ${BENCH_SHAPE.dim}, hidden ${BENCH_SHAPE.hidden}, random decisions.`,
  );
  const onnxFailed = await onnxLoadError();
  if (onnxFailed !== undefined) return console.log(`  onnxruntime-node does not load here: ${onnxFailed}`);
  const adapter = await webgpuAdapter().catch((e: Error) => e);
  if (adapter instanceof Error) return console.log(`  ${adapter.message}`);
  console.log(`  adapter: ${adapterName(adapter)} (${adapter.description})`);
  const batches = adapter.software ? BATCHES.filter((n) => n <= SOFTWARE_MAX) : BATCHES;
  if (adapter.software) console.log(`  a software adapter: batches above ${int(SOFTWARE_MAX)} left out (a step takes minutes); a GPU runs them all`);
  console.log(
    `  Each figure: min / median / max of ${TRIALS.trials} trials of >= ${TRIALS.seconds} s (>= 1 step), after >= ${TRIALS.warmup} s of warm-up, interleaved.`,
  );

  const weights = initWeights(BENCH_SHAPE, 'bench');
  const fresh = () => ({ weights, step: 0, m: zeroMoments(weights), v: zeroMoments(weights) });
  const engines: [string, PolicyEngine & { lastStepBytes?: StepBytes }][] = [
    ['webgpu', await createEngine({ ...defaultCompute(), engine: 'webgpu' }, BENCH_SHAPE, fresh(), BENCH_OPT)],
    ['onnx 1 thread', await onnxEngine(BENCH_SHAPE, fresh(), BENCH_OPT, 1)],
    ['onnx 2 threads', await onnxEngine(BENCH_SHAPE, fresh(), BENCH_OPT, 2)],
  ];
  const bytes = new Map<number, StepBytes>();
  const rows: string[] = [];
  const head = (s: string) => s.padStart(30);
  console.log(`   batch ${head('webgpu decisions/s')} ${head('onnx 1 thread')} ${head('onnx 2 threads')}  webgpu/2t  bytes a GPU step moves up / down`);
  for (const n of batches) {
    // One batch size at a time: a large batch's buffers are freed before the next.
    const { batch, actions, advantages } = randomBatch(BENCH_SHAPE, n, `gpu-bench-${n}`);
    const contenders: Contender[] = engines.map(([name, engine]) => ({
      name,
      run: (seconds) => rateOf(() => engine.trainStep(batch, actions, advantages), n, seconds),
    }));
    const r = await interleaved(contenders, TRIALS);
    const gpu = engines[0][1].lastStepBytes;
    if (gpu) bytes.set(n, gpu);
    const [g, c1, c2] = engines.map(([name]) => r.get(name)!);
    const cell = (s: typeof g) => `${int(s.min)} / ${int(s.median)} / ${int(s.max)}`.padStart(30);
    rows.push(
      `  ${String(n).padStart(6)} ${cell(g)} ${cell(c1)} ${cell(c2)} ${`${(g.median / c2.median).toFixed(2)}x`.padStart(9)}  ${int(bytes.get(n)?.up ?? 0)} / ${bytes.get(n)?.down ?? 0}`,
    );
    console.log(rows.at(-1));
    if (n === GOAL_BATCH)
      console.log(
        `  ${beside(`webgpu beside onnx at 2 threads, batch ${int(n)}${adapter.software ? ' (software adapter)' : ''}`, g.median / c2.median, 'x', { limit: 25, atMost: false }, adapterName(adapter))}` +
          `; ${int(g.median)} decisions/s is ${((100 * g.median * stepFlops(BENCH_SHAPE)) / 67e12).toFixed(2)}% of an H200's 67 TFLOPS`,
      );
  }
  if (!batches.includes(GOAL_BATCH))
    console.log(`  goal: webgpu >= 25x onnx at 2 threads at batch ${int(GOAL_BATCH)} -> not measured here (a software adapter)`);
  for (const [, e] of engines) e.dispose();
  console.log('  A GPU step moves its batch up and its loss and entropy down; the parameters and Adam moments stay in GPU buffers.');
}
