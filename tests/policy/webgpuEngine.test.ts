// The GPU engine (--engine webgpu) against the CPU engine, on the WebGPU adapter the suite's setup
// makes sure of (tests/setup/vulkan.ts: Mesa's lavapipe where the machine has no GPU). Small shapes
// and batches: lavapipe runs the GPU's work on the CPU, many times slower than the CPU engine.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { randomBatch } from '../../bench/randomBatch.ts';
import { Worker } from 'node:worker_threads';
import { AUTO_GPU_DECISIONS, defaultCompute } from '../../src/policy/backends.ts';
import { createEngine, resolveCompute } from '../../src/policy/createEngine.ts';
import { zeroMoments, type EngineState } from '../../src/policy/engine.ts';
import { initWeights, type PolicyShape } from '../../src/policy/model.ts';
import { onnxEngine } from '../../src/policy/onnxEngine.ts';
import { batchFeeds, featuresOn, flatLayout, lookupWidths } from '../../src/policy/onnx/layout.ts';
import { graphBuilder } from '../../src/policy/onnx/graph.ts';
import { adapterName, noAdapterMessage, webgpuAdapter } from '../../src/policy/webgpu.ts';
import { expandGrid, GridFile, runGrid } from '../../train/grid.ts';
import { readLog, runFiles } from '../../train/runFolder.ts';
import { writeTinyCache } from '../fixtures/tinyWorld.ts';
import { OPT, TINY } from '../fixtures/gradientCheck.ts';

/** Float32 on two implementations of every kernel: the engines agree to this, relative, over 20 steps. */
const GPU_TOLERANCE = 1e-4;
const SHAPE: PolicyShape = { ...TINY, dim: 24, hidden: 12, behavior: 'mean' };
const fresh = (): EngineState => {
  const w = initWeights(SHAPE, 'gpu');
  return { weights: w, step: 0, m: zeroMoments(w), v: zeroMoments(w) };
};
const relative = (a: Float32Array, b: Float32Array) => {
  let d = 0,
    n = 0;
  a.forEach((x, i) => ((d += (x - b[i]) ** 2), (n += x ** 2)));
  return Math.sqrt(d / Math.max(n, 1e-30));
};
const gpu = (state: EngineState) => createEngine({ ...defaultCompute(), engine: 'webgpu' }, SHAPE, state, OPT);
/** Bytes of a forward call's batch (its feeds as the engine sends them), and of every parameter as float32. */
const feedBytes = (batch: Parameters<typeof batchFeeds>[1]) => Object.values(batchFeeds(SHAPE, batch)).reduce((a, f) => a + f.data.byteLength, 0);
const PARAM_BYTES = 4 * flatLayout(SHAPE).size;
function expectSameState(a: EngineState, b: EngineState) {
  expect(a.step).toBe(b.step);
  for (const part of ['weights', 'm', 'v'] as const)
    for (const name of Object.keys(b[part])) expect(relative(a[part][name].data, b[part][name].data), `${part} ${name}`).toBeLessThan(GPU_TOLERANCE);
}

describe('the GPU engine (webgpu)', () => {
  it('names its adapter, and says when it is software', async () => {
    const adapter = await webgpuAdapter();
    const engine = await gpu(fresh());
    expect(engine.ran).toMatchObject({ engine: 'webgpu', threads: null, adapter });
    expect(engine.name).toContain(adapter.device);
    expect(engine.name.includes('software adapter')).toBe(adapter.software);
    engine.dispose();
  });

  it('takes the CPU engine steps over 20 steps (loss, entropy, weights and moments within 1e-4), and keeps its state on the GPU', async () => {
    const [onGpu, onCpu] = [await gpu(fresh()), await onnxEngine(SHAPE, fresh(), OPT)];
    for (let k = 0; k < 20; k++) {
      const { batch, actions, advantages } = randomBatch(SHAPE, 64, `step ${k}`);
      const [a, b] = [await onGpu.trainStep(batch, actions, advantages), await onCpu.trainStep(batch, actions, advantages)];
      expect(Math.abs(a.loss - b.loss) / Math.abs(b.loss), `loss at step ${k}`).toBeLessThan(GPU_TOLERANCE);
      expect(Math.abs(a.entropy - b.entropy) / b.entropy).toBeLessThan(GPU_TOLERANCE);
    }
    // After the first step a step moves its batch up and the loss and entropy down, not the weights.
    const { batch, actions, advantages } = randomBatch(SHAPE, 64, 'bytes');
    await onGpu.trainStep(batch, actions, advantages);
    await onCpu.trainStep(batch, actions, advantages);
    // Per decision: query and candidate, the multi-hot row (the recipient and each candidate feature's table), action and advantage.
    const rows = featuresOn(SHAPE).reduce((a, [, , key]) => a + lookupWidths(SHAPE)[key], SHAPE.agents);
    const batchBytes = 64 * 4 * (2 * SHAPE.dim + rows + 2) + 8;
    // Counted over every output where it lies: new parameters or moments read back to the CPU would count here.
    expect(onGpu.lastBytes?.train).toEqual({ up: batchBytes, down: 8 });
    expectSameState(await onGpu.getState(), await onCpu.getState());
    const logits = randomBatch(SHAPE, 300, 'logits').batch;
    expect(relative(await onGpu.keepLogits(logits), await onCpu.keepLogits(logits))).toBeLessThan(GPU_TOLERANCE);
    expect(onGpu.lastBytes?.forward).toEqual({ up: feedBytes(logits), down: 300 * 4 }); // the trained parameters stay where the steps left them
    const g = randomBatch(SHAPE, 50, 'gradients');
    const [ga, gb] = [await onGpu.lossAndGradients(g.batch, g.actions, g.advantages), await onCpu.lossAndGradients(g.batch, g.actions, g.advantages)];
    for (const name of Object.keys(gb.gradients)) expect(relative(ga.gradients[name].data, gb.gradients[name].data), name).toBeLessThan(GPU_TOLERANCE);
    onGpu.dispose();
    onCpu.dispose();
  });

  it('takes a step of 16,384 decisions as the CPU engine does (a batch a GPU wants)', async () => {
    const { batch, actions, advantages } = randomBatch(SHAPE, 16384, 'large');
    const [onGpu, onCpu] = [await gpu(fresh()), await onnxEngine(SHAPE, fresh(), OPT)];
    const [a, b] = [await onGpu.trainStep(batch, actions, advantages), await onCpu.trainStep(batch, actions, advantages)];
    expect(Math.abs(a.loss - b.loss) / Math.abs(b.loss)).toBeLessThan(GPU_TOLERANCE);
    expectSameState(await onGpu.getState(), await onCpu.getState());
    onGpu.dispose();
    onCpu.dispose();
  });

  it('resumes a CPU engine state and the CPU engine resumes its state: the same next steps', async () => {
    const { batch, actions, advantages } = randomBatch(SHAPE, 64, 'resume');
    const cpu = await onnxEngine(SHAPE, fresh(), OPT);
    for (let k = 0; k < 3; k++) await cpu.trainStep(batch, actions, advantages);
    const fromCpu = await gpu(await cpu.getState());
    await fromCpu.trainStep(batch, actions, advantages);
    await cpu.trainStep(batch, actions, advantages);
    const onGpu = await fromCpu.getState();
    expectSameState(onGpu, await cpu.getState());
    const back = await onnxEngine(SHAPE, onGpu, OPT);
    await back.trainStep(batch, actions, advantages);
    await fromCpu.trainStep(batch, actions, advantages);
    expectSameState(await back.getState(), await fromCpu.getState());
    for (const e of [cpu, fromCpu, back]) e.dispose();
  });

  it('an engine that has not stepped (every inference engine) uploads its parameters at its first call and moves none after', async () => {
    const cpu = await onnxEngine(SHAPE, fresh(), OPT);
    const engine = await gpu(fresh());
    const [a, b] = [randomBatch(SHAPE, 40, 'first').batch, randomBatch(SHAPE, 70, 'second').batch];
    expect(relative(await engine.keepLogits(a), await cpu.keepLogits(a))).toBeLessThan(GPU_TOLERANCE);
    expect(engine.lastBytes?.forward).toEqual({ up: feedBytes(a) + PARAM_BYTES, down: 40 * 4 });
    expect(relative(await engine.keepLogits(b), await cpu.keepLogits(b))).toBeLessThan(GPU_TOLERANCE);
    expect(engine.lastBytes?.forward).toEqual({ up: feedBytes(b), down: 70 * 4 });
    // A gradient reads the same uploaded parameters (and brings its gradient down).
    const g = randomBatch(SHAPE, 30, 'gradient');
    await engine.lossAndGradients(g.batch, g.actions, g.advantages);
    const gradientFeeds = Object.values(batchFeeds(SHAPE, g.batch, 'float32', g.actions, g.advantages)).reduce((x, f) => x + f.data.byteLength, 0);
    expect(engine.lastBytes?.gradient).toEqual({ up: gradientFeeds, down: PARAM_BYTES + 8 });
    // A step takes the uploaded parameters as they are (the moments go up once), and a forward call after it reads the new ones.
    const t = randomBatch(SHAPE, 30, 'step');
    await engine.trainStep(t.batch, t.actions, t.advantages);
    await cpu.trainStep(t.batch, t.actions, t.advantages);
    expect(engine.lastBytes?.train?.up).toBe(gradientFeeds + 8 + 2 * PARAM_BYTES);
    expect(relative(await engine.keepLogits(b), await cpu.keepLogits(b))).toBeLessThan(GPU_TOLERANCE);
    expect(engine.lastBytes?.forward?.up).toBe(feedBytes(b));
    engine.dispose();
    cpu.dispose();
  });

  it('a WebGPU session with a node that has no WebGPU kernel does not start (no node falls back to the CPU)', async () => {
    // The worker's own protocol, with a forward graph whose int64 Shape and Cast have no WebGPU kernel.
    const g = graphBuilder('float32', 'cpu-only');
    g.output(g.op('Cast', [g.op('Shape', [g.input('query', ['n', 4])])], { to: 1 }), 'logits', [2]);
    const worker = new Worker(new URL('../../src/policy/onnx/worker.mjs', import.meta.url));
    const reply = await new Promise<{ error?: string }>((resolve) => {
      worker.once('message', resolve);
      const layout = flatLayout(SHAPE);
      const flat = new Float32Array(layout.size);
      worker.postMessage({ id: 0, type: 'init', forward: g.bytes(), threads: 1, device: 'webgpu', stretches: layout, params: flat, m: flat, v: flat });
    });
    await worker.terminate();
    expect(reply.error).toMatch(/^the WebGPU execution provider did not start/);
  });

  it('a warm thread serves the next engine: a second GPU engine in the process starts from its own state', async () => {
    const { batch, actions, advantages } = randomBatch(SHAPE, 64, 'warm');
    const first = await gpu(fresh());
    await first.trainStep(batch, actions, advantages);
    first.dispose();
    const second = await gpu(fresh());
    expect(second.warmStart).toBe(true); // the first engine's thread and forward session, not a fresh thread
    const cpu = await onnxEngine(SHAPE, fresh(), OPT);
    await second.trainStep(batch, actions, advantages);
    await cpu.trainStep(batch, actions, advantages);
    expectSameState(await second.getState(), await cpu.getState()); // not the first engine's GPU state
    second.dispose();
    cpu.dispose();
  });

  it('a warm training process trains grid cells on it run after run, step for step as the CPU engine does, and names its adapter', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cpp-gpu-warm-'));
    writeTinyCache(join(dir, 'tiny'));
    const grid = (engine: 'webgpu' | 'onnx') =>
      GridFile.parse({
        name: engine,
        base: { rounds: 2, k: -1, batchSize: 6, hidden: 8, epochs: 1, engine, threads: engine === 'onnx' ? 1 : undefined },
        seeds: 1,
        caches: [join(dir, 'tiny')],
        variants: [
          { name: 'full', settings: {} },
          { name: 'no conditioning', settings: { conditioning: false, lr: 0.01 } },
        ],
      });
    const runs = { webgpu: expandGrid(grid('webgpu'), join(dir, 'webgpu')), onnx: expandGrid(grid('onnx'), join(dir, 'onnx')) };
    for (const cells of Object.values(runs)) expect((await runGrid(cells, 1, () => {})).map((o) => o.status)).toEqual(['trained', 'trained']);
    const steps = (out: string) => readLog(out).filter((l) => l.loss !== undefined);
    for (const [i, cell] of runs.webgpu.entries()) {
      const [gpu, cpu] = [steps(cell.settings.out), steps(runs.onnx[i].settings.out)];
      expect(gpu.map((l) => l.keepRate)).toEqual(cpu.map((l) => l.keepRate)); // the same decisions sampled
      gpu.forEach((l, k) => expect(Math.abs(l.loss! - cpu[k].loss!), `loss at step ${k + 1}`).toBeLessThanOrEqual(2e-4)); // logged to 4 decimals
      const adapter = await webgpuAdapter();
      expect(readFileSync(join(cell.settings.out, 'train.log'), 'utf8')).toContain(`(webgpu on ${adapterName(adapter)}`);
      const provenance = JSON.parse(readFileSync(runFiles(cell.settings.out).provenance, 'utf8'));
      expect(provenance.sessions[0].compute).toEqual({ engine: 'webgpu', backend: null, threads: null, adapter });
    }
  });

  it(`auto keeps to the CPU engine below ${AUTO_GPU_DECISIONS} decisions a step, and on a software adapter at any size, and says why`, async () => {
    const auto = defaultCompute();
    const small = await resolveCompute(auto, 1152);
    expect(small).toEqual({
      ran: { engine: 'onnx', backend: null, threads: 1 },
      note: 'auto picked onnx: 1,152 decisions a step, under the 8,192 from which it takes a hardware GPU',
    });
    expect((await resolveCompute(auto, AUTO_GPU_DECISIONS - 1)).ran.engine).toBe('onnx');
    expect((await resolveCompute(auto)).note).toBe('auto picked onnx: it takes a hardware GPU for training steps of >= 8,192 decisions only');
    const adapter = await webgpuAdapter();
    const large = await resolveCompute(auto, 10 * AUTO_GPU_DECISIONS);
    expect(large.ran.engine).toBe(adapter.software ? 'onnx' : 'webgpu');
    expect(large.note).toBe(
      adapter.software
        ? `auto picked onnx: 81,920 decisions a step, but the WebGPU adapter is software (${adapter.device || adapter.description})`
        : 'auto picked webgpu: 81,920 decisions a step (>= 8,192) on a hardware adapter',
    );
    // The engine's name carries it, and so the trainer's first line ("training on ... (<name>)").
    const engine = await createEngine(auto, SHAPE, fresh(), OPT, 1152);
    expect(engine.name).toBe(`onnx-cpu (1 thread); ${small.note}`);
    engine.dispose();
    // An engine asked for by name needs no note.
    expect((await resolveCompute({ ...auto, engine: 'onnx' }, 1152)).note).toBeUndefined();
  });

  it('without an adapter (no Vulkan driver) is an error that names the missing driver, not a run on the CPU', () => {
    const script =
      "import { webgpuAdapter } from './src/policy/webgpu.ts'; webgpuAdapter().then((a) => console.log(JSON.stringify(a)), (e) => (console.log(e.message), process.exit(3)));";
    const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      encoding: 'utf8',
      env: { ...process.env, VK_DRIVER_FILES: '/nonexistent.json', VK_ICD_FILENAMES: '/nonexistent.json' },
    });
    expect(r.status, r.stderr).toBe(3);
    expect(r.stdout).toContain('engine webgpu: no WebGPU adapter here');
    expect(r.stdout).toContain('mesa-vulkan-drivers');
    expect(r.stdout).toContain("restricts Vulkan's loader to /nonexistent.json");
    expect(noAdapterMessage('linux', ['lvp_icd.x86_64.json'])).toContain('Vulkan drivers found: lvp_icd.x86_64.json, none gives an adapter');
    expect(noAdapterMessage('linux', [])).toContain('no Vulkan driver is installed');
  });
});
