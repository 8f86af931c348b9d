// `npm run bench -- gpu`: the GPU engine (--engine webgpu) beside the CPU engine at 1 and 2
// threads and beside the same step in PyTorch on CUDA where there is one, decisions/s of one
// REINFORCE step per batch size, at the engines bench's shape (width 512, hidden 256: 7.87 MFLOP of
// matmuls a decision, bench/engines.ts); the adapter, and the bytes a GPU step and a GPU forward
// call move each way. Goals: >= 25x the 2-thread CPU engine at batch 16,384 on a real GPU, and at
// least PyTorch CUDA's steady state there. On a software adapter (lavapipe) the batches stop at
// 4,096 unless named: a step of 16,384 takes minutes there, and the figures say what lavapipe
// does, not what a GPU does. The device check (bench/device/check.ts) runs it with `--json`.
import { writeFileSync } from 'node:fs';
import { createEngine } from '../src/policy/createEngine.ts';
import { type PolicyEngine, zeroMoments } from '../src/policy/engine.ts';
import { initWeights } from '../src/policy/model.ts';
import { type CallBytes, type LastBytes, onnxEngine, onnxLoadError } from '../src/policy/onnxEngine.ts';
import { adapterName, webgpuAdapter } from '../src/policy/webgpu.ts';
import { defaultCompute } from '../src/policy/backends.ts';
import { OPT as BENCH_OPT, SHAPE as BENCH_SHAPE, stepFlops } from './engines.ts';
import { beside } from './goals.ts';
import { randomBatch } from './randomBatch.ts';
import { torchReference } from './torch.ts';
import { interleaved, rateOf, type Contender, type Spread, type TrialSettings } from './trials.ts';

export const GPU_BATCHES = [256, 1024, 4096, 16384, 65536];
const SOFTWARE_MAX = 4096;
/** Decisions of one forward pass of an evaluation on the GPU engine: 4,096 debates (its evalBatch) of 3 agents, one round. */
const EVAL_DECISIONS = 4096 * 9;
const GOAL_BATCH = 16384;
/** Shorter than the engines bench: a large batch's step is seconds on a software adapter. */
const TRIALS = { warmup: 1, seconds: 1, trials: 3 };

/** One batch size's figures: decisions/s per contender, and the bytes the GPU engine's calls moved. */
export interface GpuRow {
  batch: number;
  rates: Record<string, Spread>;
  /** The GPU engine's median over the 2-thread CPU engine's. */
  overCpu2: number;
  /** Over PyTorch on CUDA, where it ran. */
  overTorch?: number;
  bytes: { train?: CallBytes; forward?: CallBytes };
}

/** An evaluation's forward pass (keepLogits) of `decisions` rows: decisions/s per engine, and the bytes the GPU engine's call moved. */
export interface ForwardRow {
  decisions: number;
  rates: Record<string, Spread>;
  bytes?: CallBytes;
}

export interface GpuBench {
  adapter?: string;
  software?: boolean;
  /** PyTorch CUDA: its version and device, or why it did not run. */
  torch: { version: string; device: string } | { missing: string };
  rows: GpuRow[];
  forward?: ForwardRow;
  /** Why nothing was measured (no onnxruntime-node, no adapter). */
  missing?: string;
}

const int = (x: number) => Math.round(x).toLocaleString('en-US');

/**
 * The bench; `batches` (default: all, up to 4,096 on a software adapter), and a JSON copy of its
 * figures in `json`; `trialSeconds` in place of TRIALS' warm-up and trial lengths (0: one step each).
 */
export async function benchGpu(o: { batches?: number[]; json?: string; trialSeconds?: number } = {}): Promise<GpuBench> {
  const trials = o.trialSeconds === undefined ? TRIALS : { ...TRIALS, warmup: o.trialSeconds, seconds: o.trialSeconds };
  const result = await measure(trials, o.batches);
  if (o.json) writeFileSync(o.json, `${JSON.stringify(result, null, 2)}\n`);
  return result;
}

async function measure(trials: TrialSettings, asked?: number[]): Promise<GpuBench> {
  console.log(
    `\nGPU engine (webgpu) beside the CPU engine (onnx) and PyTorch on CUDA: one REINFORCE step, width ${BENCH_SHAPE.dim}, hidden ${BENCH_SHAPE.hidden}, random decisions.`,
  );
  const onnxFailed = await onnxLoadError();
  const none = (missing: string): GpuBench => (console.log(`  ${missing}`), { torch: { missing }, rows: [], missing });
  if (onnxFailed !== undefined) return none(`onnxruntime-node does not load here: ${onnxFailed}`);
  const adapter = await webgpuAdapter().catch((e: Error) => e);
  if (adapter instanceof Error) return none(adapter.message);
  console.log(`  adapter: ${adapterName(adapter)} (${adapter.description})`);
  const batches = asked ?? (adapter.software ? GPU_BATCHES.filter((n) => n <= SOFTWARE_MAX) : GPU_BATCHES);
  if (adapter.software && !asked) console.log(`  a software adapter: batches above ${int(SOFTWARE_MAX)} left out (a step takes minutes); a GPU runs them all`);
  const torch = await torchReference(1, BENCH_SHAPE.dim, BENCH_SHAPE.hidden, undefined, 'cuda');
  console.log(
    'missing' in torch
      ? `  PyTorch on CUDA: not run (${torch.missing})`
      : `  PyTorch ${torch.version} on CUDA (${torch.device}), ${torch.python} bench/torch_step.py`,
  );
  console.log(
    `  Each figure: min / median / max of ${trials.trials} trials of >= ${trials.seconds} s (>= 1 step), after >= ${trials.warmup} s of warm-up, interleaved.`,
  );

  const weights = initWeights(BENCH_SHAPE, 'bench');
  const fresh = () => ({ weights, step: 0, m: zeroMoments(weights), v: zeroMoments(weights) });
  const gpu = await createEngine({ ...defaultCompute(), engine: 'webgpu' }, BENCH_SHAPE, fresh(), BENCH_OPT);
  const engines = [
    { name: 'webgpu', engine: gpu },
    { name: 'onnx 1 thread', engine: await onnxEngine(BENCH_SHAPE, fresh(), BENCH_OPT, 1) },
    { name: 'onnx 2 threads', engine: await onnxEngine(BENCH_SHAPE, fresh(), BENCH_OPT, 2) },
  ];
  const names = [...engines.map((e) => e.name), ...('missing' in torch ? [] : ['PyTorch CUDA'])];
  const rows: GpuRow[] = [];
  console.log(
    `   batch ${names.map((n) => `${n} decisions/s`.padStart(30)).join(' ')}  webgpu/2t${'missing' in torch ? '' : ' webgpu/torch'}  bytes a GPU step, a forward call moves up / down`,
  );
  for (const n of batches) {
    // One batch size at a time: a large batch's buffers are freed before the next.
    const { batch, actions, advantages } = randomBatch(BENCH_SHAPE, n, `gpu-bench-${n}`);
    const contenders: Contender[] = engines.map(({ name, engine }) => ({
      name,
      run: (seconds) => rateOf(() => engine.trainStep(batch, actions, advantages), n, seconds),
    }));
    if (!('missing' in torch)) contenders.push({ name: 'PyTorch CUDA', run: (seconds) => torch.step(n, seconds) });
    const r = await interleaved(contenders, trials);
    await gpu.keepLogits(batch); // a forward call of the trained engine: its batch up, its logits down
    const rates = Object.fromEntries(names.map((name) => [name, r.get(name)!]));
    const [g, c2, t] = [rates.webgpu, rates['onnx 2 threads'], rates['PyTorch CUDA']];
    const row: GpuRow = {
      batch: n,
      rates,
      overCpu2: g.median / c2.median,
      ...(t && { overTorch: g.median / t.median }),
      bytes: { train: gpu.lastBytes?.train, forward: gpu.lastBytes?.forward },
    };
    rows.push(row);
    const cell = (s: Spread) => `${int(s.min)} / ${int(s.median)} / ${int(s.max)}`.padStart(30);
    const moved = (b?: CallBytes) => (b ? `${int(b.up)} / ${int(b.down)}` : '-');
    console.log(
      `  ${String(n).padStart(6)} ${names.map((name) => cell(rates[name])).join(' ')} ${`${row.overCpu2.toFixed(2)}x`.padStart(9)}` +
        `${row.overTorch === undefined ? '' : `${row.overTorch.toFixed(2)}x`.padStart(13)}  ${moved(row.bytes.train)}; ${moved(row.bytes.forward)}`,
    );
    if (n === GOAL_BATCH) {
      const on = adapter.software ? ' (software adapter)' : '';
      console.log(
        `  ${beside(`webgpu beside onnx at 2 threads, batch ${int(n)}${on}`, row.overCpu2, 'x', { limit: 25, atMost: false }, adapterName(adapter))}` +
          `; ${int(g.median)} decisions/s is ${((100 * g.median * stepFlops(BENCH_SHAPE)) / 67e12).toFixed(2)}% of an H200's 67 TFLOPS`,
      );
      if (row.overTorch !== undefined)
        console.log(`  ${beside(`webgpu beside PyTorch CUDA, batch ${int(n)}`, row.overTorch, 'x', { limit: 1, atMost: false }, adapterName(adapter))}`);
    }
  }
  if (!batches.includes(GOAL_BATCH)) console.log(`  goal: webgpu >= 25x onnx at 2 threads at batch ${int(GOAL_BATCH)} -> not measured here`);
  const crossover = rows.find((row) => row.overCpu2 >= 1)?.batch;
  console.log(
    `  crossover: the GPU engine ${crossover ? `passes the 2-thread CPU engine from batch ${int(crossover)}` : 'passes the 2-thread CPU engine at no batch measured'}`,
  );
  if (!('missing' in torch)) torch.close();
  const forward = await forwardPass(engines, Math.min(EVAL_DECISIONS, Math.max(...batches)), trials);
  for (const { engine } of engines) engine.dispose();
  console.log('  A GPU step moves its batch up and its loss and entropy down; the parameters and Adam moments stay in GPU buffers.');
  return {
    adapter: adapterName(adapter),
    software: adapter.software,
    torch: 'missing' in torch ? { missing: torch.missing } : { version: torch.version, device: torch.device },
    rows,
    forward,
  };
}

/** An evaluation's forward pass on each engine as the steps left it (the GPU engine's parameters in GPU buffers: a call moves its batch and logits). */
async function forwardPass(
  engines: { name: string; engine: PolicyEngine & { lastBytes?: LastBytes } }[],
  n: number,
  trials: TrialSettings,
): Promise<ForwardRow> {
  const { batch } = randomBatch(BENCH_SHAPE, n, `gpu-bench-forward-${n}`);
  const r = await interleaved(
    engines.map(({ name, engine }) => ({ name, run: (seconds) => rateOf(() => engine.keepLogits(batch), n, seconds) })),
    trials,
  );
  const rates = Object.fromEntries(engines.map(({ name }) => [name, r.get(name)!]));
  const bytes = engines[0].engine.lastBytes?.forward;
  console.log(
    `  an evaluation's forward pass, ${int(n)} decisions (decisions/s): ${engines.map(({ name }) => `${name} ${int(rates[name].median)}`).join(', ')}` +
      `; a GPU call moves ${bytes ? `${int(bytes.up)} / ${int(bytes.down)}` : '-'} bytes up / down`,
  );
  return { decisions: n, rates, bytes };
}
