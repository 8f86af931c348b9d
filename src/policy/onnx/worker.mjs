// Runs the FuseGLU ONNX graphs off the main thread (a session's run blocks the thread that calls
// it, so the trainer's progress display would freeze). Holds the flat parameters and Adam moments
// between steps. Plain JavaScript, so it starts the same under tsx, vitest and node. A thread
// outlives its engine (src/policy/onnxEngine.ts keeps it for the next one): a session whose graph
// and options are those of the last engine's is used again, not created anew (the sessions hold
// no state: parameters and moments are inputs), which saves a warm training process most of an
// engine's start. On a GPU (`device` webgpu or cuda) every node must run there (a session with a
// CPU node fails to start). On webgpu the parameters stay in GPU buffers in every use: the train
// graph's outputs are the next step's inputs, so a step moves its batch up and two numbers (loss,
// entropy) down, and an engine that has not stepped uploads its parameters once, at its first
// forward or gradient call. Every call says the bytes it moved each way.
import * as ort from 'onnxruntime-node';
import { parentPort } from 'node:worker_threads';

let sessions = {}; // name -> promise of its session
let options; // session options, kept for the sessions made on first use
let made = {}; // name -> { bytes, key, session }: the last session made of each graph, kept across engines
let layout; // { views, groups }: the stretches of the flat vector the graphs take as inputs, and Adam's groups
let state; // { params, m, v } as Float32Arrays; `next` buffers receive each step's outputs
let checkedOutputs = false; // whether the first step's outputs were found in the given buffers
let device; // 'cpu', 'cuda' or 'webgpu'
let onGpu; // webgpu: the inputs `param:`, `m:`, `v:` <group> as GPU-buffer tensors, once a step made them
let uploaded; // webgpu, before the first step: the inputs `param:<group>` as GPU-buffer tensors, uploaded at the first forward or gradient call
let uploadGraph; // webgpu: the graph that copies the parameters into GPU buffers (onnx/stateGraph.ts)

const PROVIDERS = { cpu: ['cpu'], cuda: ['cuda'], webgpu: ['webgpu'] };
/**
 * The session options of a graph: on a GPU no node may fall back to the CPU (a session with a CPU
 * node fails to start), and on webgpu the train graph's new state and the uploaded parameters stay on the GPU.
 */
function optionsOf(name) {
  if (device === 'cpu') return options;
  const onDevice = { train: ['params_out:', 'm_out:', 'v_out:'], upload: ['param_gpu:'] }[name];
  const gpuOutputs = device === 'webgpu' && onDevice && Object.fromEntries(layout.groups.flatMap((g) => onDevice.map((k) => [k + g.name, 'gpu-buffer'])));
  return { ...options, extra: { session: { disable_cpu_ep_fallback: '1' } }, ...(gpuOutputs && { preferredOutputLocation: gpuOutputs }) };
}
const viewed = new WeakSet(); // the tensors viewing the thread's flat vectors (viewsOf)
/**
 * Bytes of tensors a run moves between JavaScript's memory and the device: a GPU buffer moves
 * none; on the CPU provider neither does a view of the state (the kernels read it in place), so
 * there the count is the batch in and the results out.
 */
const bytesOf = (tensors) =>
  Object.values(tensors).reduce((a, t) => a + (t.location === 'gpu-buffer' || (device === 'cpu' && viewed.has(t)) ? 0 : t.data.byteLength), 0);
/**
 * The parameters a graph of `session` takes: views of the flat vector (per parameter on the CPU,
 * per Adam group on webgpu), or GPU buffers on webgpu: the last step's, or before any step the
 * parameters uploaded once (`bytes.up` counts that upload, and whatever else the parameters move).
 */
async function paramsFor(graphSession, bytes) {
  if (device === 'webgpu' && !onGpu && !uploaded) {
    const inputs = viewsOf(state.params, 'param:', layout.groups);
    bytes.up += bytesOf(inputs);
    const out = await (await session('upload', uploadGraph)).run(inputs);
    uploaded = Object.fromEntries(layout.groups.map((g) => [`param:${g.name}`, out[`param_gpu:${g.name}`]]));
  }
  const all = device !== 'webgpu' ? paramViews(state.params) : (onGpu ?? uploaded);
  const params = Object.fromEntries(graphSession.inputNames.filter((n) => n.startsWith('param:')).map((n) => [n, all[n]]));
  bytes.up += bytesOf(params); // none from GPU buffers or, on the CPU, views; all of them to CUDA
  return params;
}
/** A graph's run with its parameters, and the bytes it moved each way (the upload of the parameters included). */
async function runWithParams(graphSession, feeds) {
  const bytes = { up: bytesOf(feeds), down: 0 };
  const out = await graphSession.run({ ...feeds, ...(await paramsFor(graphSession, bytes)) });
  bytes.down = bytesOf(out);
  return { out, bytes };
}
function dropGpuState() {
  for (const t of [...Object.values(onGpu ?? {}), ...Object.values(uploaded ?? {})]) t.dispose();
  onGpu = uploaded = undefined;
}

const tensor = (f) => new ort.Tensor(f.type, f.data, f.dims);
const feedsOf = (feeds) => Object.fromEntries(Object.entries(feeds).map(([k, f]) => [k, tensor(f)]));
const viewCache = new WeakMap(); // buffer -> prefix -> tensors
/** Tensors `<prefix><name>` viewing each stretch of `data` (no copy); made once per buffer and prefix. */
function viewsOf(data, prefix, stretches) {
  if (!viewCache.has(data)) viewCache.set(data, new Map());
  const byPrefix = viewCache.get(data);
  if (!byPrefix.has(prefix))
    byPrefix.set(
      prefix,
      Object.fromEntries(
        stretches.map((s) => {
          const view = new ort.Tensor('float32', data.subarray(s.offset, s.offset + s.size), s.shape);
          viewed.add(view);
          return [`${prefix}${s.name}`, view];
        }),
      ),
    );
  return byPrefix.get(prefix);
}
/** One input per parameter (and span), each a view into the flat vector. */
const paramViews = (params) => viewsOf(params, 'param:', layout.views);

/**
 * The session of a graph that is made on first use (its bytes come with that first call), or the
 * one an earlier engine made of the same bytes under the same options.
 */
async function session(name, graph) {
  sessions[name] ??= sessionOf(name, graph); // set before any await: a second call waits on it
  return sessions[name];
}

async function sessionOf(name, graph) {
  const opts = optionsOf(name);
  const key = JSON.stringify(opts);
  const last = made[name];
  if (last && last.key === key && Buffer.compare(last.bytes, graph) === 0) return last.session;
  const session = ort.InferenceSession.create(graph, opts);
  made[name] = { bytes: graph, key, session };
  session.catch(() => made[name]?.session === session && delete made[name]); // a graph that failed is tried anew
  if (last)
    await last.session.then(
      (s) => s.release(),
      () => {},
    );
  return session;
}

const handlers = {
  async init({ forward, upload, threads, stretches, params, m, v, ...rest }) {
    layout = stretches;
    device = rest.device;
    uploadGraph = upload;
    options = {
      intraOpNumThreads: threads,
      interOpNumThreads: 1,
      executionMode: 'sequential',
      graphOptimizationLevel: 'all',
      executionProviders: PROVIDERS[device],
    };
    const before = made.forward;
    try {
      await session('forward', forward);
      state = { params, m, v, next: { params: new Float32Array(params.length), m: new Float32Array(params.length), v: new Float32Array(params.length) } };
      // Warm: the forward session an earlier engine of this thread made is this engine's (sessionOf keeps its entry).
      return { warm: before !== undefined && made.forward === before };
    } catch (e) {
      if (device === 'webgpu')
        throw Object.assign(new Error(`the WebGPU execution provider did not start (${e.message}); see docs/training.md, "The GPU engine"`), { user: true });
      if (device !== 'cuda') throw e;
      // The user's to act on (a setting this machine cannot run): onnxEngine.ts makes it a SettingsError.
      throw Object.assign(
        new Error(
          `the CUDA execution provider did not start (${e.message}); ` +
            'install its binaries with `node node_modules/onnxruntime-node/script/install --onnxruntime-node-install=cuda12` ' +
            '(docs/training.md, "Policy engines")',
        ),
        { user: true },
      );
    }
  },
  async forward({ feeds }) {
    const { out, bytes } = await runWithParams(await sessions.forward, feedsOf(feeds));
    return { logits: out.logits.data, bytes };
  },
  async gradient({ feeds, graph }) {
    const { out, bytes } = await runWithParams(await session('gradient', graph), feedsOf(feeds));
    return { loss: out.loss.data[0], entropy: out.entropy.data[0], grad: out.grad.data, bytes };
  },
  async train(args) {
    return device === 'webgpu' ? trainOnGpu(args) : trainOnCpu(args);
  },
  async state({ graph }) {
    if (graph) session('state', graph).catch(() => {}); // made now, for the reads once the state is on the GPU
    if (!onGpu) return { params: state.params.slice(), m: state.m.slice(), v: state.v.slice() };
    // The state graph copies each group out of its GPU buffer into a CPU output.
    const out = await (await session('state', graph)).run(onGpu);
    const flat = { param: new Float32Array(state.params.length), m: new Float32Array(state.params.length), v: new Float32Array(state.params.length) };
    for (const g of layout.groups) for (const kind of Object.keys(flat)) flat[kind].set(out[`${kind}_cpu:${g.name}`].data, g.offset);
    return { params: flat.param, m: flat.m, v: flat.v };
  },
  /** The engine is done: its state goes, its sessions stay for the next engine of this thread (or until `close`). */
  async release() {
    dropGpuState();
    sessions = {};
    state = undefined;
    return {};
  },
  async close() {
    for (const { session } of Object.values(made)) await (await session).release();
    made = {};
    return {};
  },
};

/**
 * A step on the GPU: the first takes the parameters and moments from the CPU; its outputs, GPU
 * buffers, are the next step's inputs (the last step's are freed once the step has run).
 */
async function trainOnGpu({ feeds, stepSize, epsHat, graph }) {
  const train = await session('train', graph);
  const { groups } = layout;
  const inputs = onGpu ?? {
    ...(uploaded ?? viewsOf(state.params, 'param:', groups)),
    ...viewsOf(state.m, 'm:', groups),
    ...viewsOf(state.v, 'v:', groups),
  };
  const batch = { ...feedsOf(feeds), step_size: new ort.Tensor('float32', [stepSize], []), eps_hat: new ort.Tensor('float32', [epsHat], []) };
  const up = bytesOf(batch) + bytesOf(inputs);
  const out = await train.run({ ...batch, ...inputs });
  dropGpuState();
  onGpu = Object.fromEntries(groups.flatMap((g) => ['param', 'm', 'v'].map((k) => [`${k}:${g.name}`, out[`${k === 'param' ? 'params' : k}_out:${g.name}`]])));
  // Every output counted where it is: the new state moves nothing while it stays in GPU buffers.
  return { loss: out.loss.data[0], entropy: out.entropy.data[0], bytes: { up, down: bytesOf(out) } };
}

async function trainOnCpu({ feeds, stepSize, epsHat, graph }) {
  // Outputs go into views of the spare buffers, which then become the state (no allocation per step).
  const { next } = state;
  const { groups } = layout;
  const train = await session('train', graph);
  const outputs = { params: viewsOf(next.params, 'params_out:', groups), m: viewsOf(next.m, 'm_out:', groups), v: viewsOf(next.v, 'v_out:', groups) };
  const batch = { ...feedsOf(feeds), step_size: new ort.Tensor('float32', [stepSize], []), eps_hat: new ort.Tensor('float32', [epsHat], []) };
  const held = { ...paramViews(state.params), ...viewsOf(state.m, 'm:', groups), ...viewsOf(state.v, 'v:', groups) };
  const out = await train.run({ ...batch, ...held }, { loss: null, entropy: null, ...outputs.params, ...outputs.m, ...outputs.v });
  // ONNX Runtime writes the outputs into the given buffers, and returns copies of them besides
  // (its cost, not ours: no second copy here). Checked once, so that a runtime that stopped
  // writing into given buffers fails loudly instead of training on stale state.
  if (!checkedOutputs) {
    for (const byName of Object.values(outputs))
      for (const [name, t] of Object.entries(byName))
        if (!out[name].data.every((x, i) => Object.is(x, t.data[i]))) throw new Error(`onnxruntime did not write ${name} into the given buffer`);
    checkedOutputs = true;
  }
  state = { params: next.params, m: next.m, v: next.v, next: { params: state.params, m: state.m, v: state.v } };
  // The new state is written into views of the spare buffers: only the loss and entropy come out.
  const bytes = { up: bytesOf(batch) + bytesOf(held), down: bytesOf({ loss: out.loss, entropy: out.entropy }) };
  return { loss: out.loss.data[0], entropy: out.entropy.data[0], bytes };
}

parentPort.on('message', async ({ id, type, ...args }) => {
  try {
    parentPort.postMessage({ id, ...(await handlers[type](args)) });
  } catch (e) {
    // A bug's stack goes with its message, for the command line to print; a user's error is its message alone.
    parentPort.postMessage({ id, error: e instanceof Error ? e.message : String(e), stack: e instanceof Error ? e.stack : undefined, user: e?.user === true });
  }
});
