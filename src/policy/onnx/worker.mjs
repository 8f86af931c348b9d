// Runs the FuseGLU ONNX graphs off the main thread (a session's run blocks the thread that calls
// it, so the trainer's progress display would freeze). Holds the flat parameters and Adam moments
// between steps. Plain JavaScript, so it starts the same under tsx, vitest and node. A thread
// outlives its engine (src/policy/onnxEngine.ts keeps it for the next one): a session whose graph
// and options are those of the last engine's is used again, not created anew (the sessions hold
// no state: parameters and moments are inputs), which saves a warm training process most of an
// engine's start. On the WebGPU execution provider (`device` webgpu) every node must run on the
// GPU (a session with a CPU node fails to start), and the parameters and moments stay in GPU
// buffers between steps: the train graph's outputs are the next step's inputs, so a step moves its
// batch up and two numbers (loss, entropy) down.
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

const PROVIDERS = { cpu: ['cpu'], cuda: ['cuda', 'cpu'], webgpu: ['webgpu'] };
/** The session options of a graph: on webgpu, no node may fall back to the CPU, and the train graph's new state stays on the GPU. */
function optionsOf(name) {
  if (device !== 'webgpu') return options;
  const gpuOutputs =
    name === 'train' && Object.fromEntries(layout.groups.flatMap((g) => ['params_out:', 'm_out:', 'v_out:'].map((k) => [k + g.name, 'gpu-buffer'])));
  return { ...options, extra: { session: { disable_cpu_ep_fallback: '1' } }, ...(gpuOutputs && { preferredOutputLocation: gpuOutputs }) };
}
/** Bytes of the tensors that go from the CPU to the device in a run. */
const bytesOf = (tensors) => Object.values(tensors).reduce((a, t) => a + (t.location === 'gpu-buffer' ? 0 : t.data.byteLength), 0);
/** The parameters a graph of `session` takes: views of the flat vector (per parameter on the CPU, per Adam group on webgpu), or the GPU buffers. */
function paramsFor(session) {
  const all = device !== 'webgpu' ? paramViews(state.params) : (onGpu ?? viewsOf(state.params, 'param:', layout.groups));
  return Object.fromEntries(session.inputNames.filter((n) => n.startsWith('param:')).map((n) => [n, all[n]]));
}
function dropGpuState() {
  for (const t of Object.values(onGpu ?? {})) t.dispose();
  onGpu = undefined;
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
      Object.fromEntries(stretches.map((s) => [`${prefix}${s.name}`, new ort.Tensor('float32', data.subarray(s.offset, s.offset + s.size), s.shape)])),
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
  async init({ forward, threads, stretches, params, m, v, ...rest }) {
    layout = stretches;
    device = rest.device;
    options = {
      intraOpNumThreads: threads,
      interOpNumThreads: 1,
      executionMode: 'sequential',
      graphOptimizationLevel: 'all',
      executionProviders: PROVIDERS[device],
    };
    try {
      await session('forward', forward);
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
    state = { params, m, v, next: { params: new Float32Array(params.length), m: new Float32Array(params.length), v: new Float32Array(params.length) } };
    return {};
  },
  async forward({ feeds }) {
    const forward = await sessions.forward;
    const out = await forward.run({ ...feedsOf(feeds), ...paramsFor(forward) });
    return { logits: out.logits.data };
  },
  async gradient({ feeds, graph }) {
    const gradient = await session('gradient', graph);
    const out = await gradient.run({ ...feedsOf(feeds), ...paramsFor(gradient) });
    return { loss: out.loss.data[0], entropy: out.entropy.data[0], grad: out.grad.data };
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
  const inputs = onGpu ?? { ...viewsOf(state.params, 'param:', groups), ...viewsOf(state.m, 'm:', groups), ...viewsOf(state.v, 'v:', groups) };
  const batch = { ...feedsOf(feeds), step_size: new ort.Tensor('float32', [stepSize], []), eps_hat: new ort.Tensor('float32', [epsHat], []) };
  const up = bytesOf(batch) + bytesOf(inputs);
  const out = await train.run({ ...batch, ...inputs });
  dropGpuState();
  onGpu = Object.fromEntries(groups.flatMap((g) => ['param', 'm', 'v'].map((k) => [`${k}:${g.name}`, out[`${k === 'param' ? 'params' : k}_out:${g.name}`]])));
  return { loss: out.loss.data[0], entropy: out.entropy.data[0], bytes: { up, down: out.loss.data.byteLength + out.entropy.data.byteLength } };
}

async function trainOnCpu({ feeds, stepSize, epsHat, graph }) {
  // Outputs go into views of the spare buffers, which then become the state (no allocation per step).
  const { next } = state;
  const { groups } = layout;
  const train = await session('train', graph);
  const outputs = { params: viewsOf(next.params, 'params_out:', groups), m: viewsOf(next.m, 'm_out:', groups), v: viewsOf(next.v, 'v_out:', groups) };
  const out = await train.run(
    {
      ...feedsOf(feeds),
      ...paramViews(state.params),
      ...viewsOf(state.m, 'm:', groups),
      ...viewsOf(state.v, 'v:', groups),
      step_size: new ort.Tensor('float32', [stepSize], []),
      eps_hat: new ort.Tensor('float32', [epsHat], []),
    },
    { loss: null, entropy: null, ...outputs.params, ...outputs.m, ...outputs.v },
  );
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
  return { loss: out.loss.data[0], entropy: out.entropy.data[0] };
}

parentPort.on('message', async ({ id, type, ...args }) => {
  try {
    parentPort.postMessage({ id, ...(await handlers[type](args)) });
  } catch (e) {
    // A bug's stack goes with its message, for the command line to print; a user's error is its message alone.
    parentPort.postMessage({ id, error: e instanceof Error ? e.message : String(e), stack: e instanceof Error ? e.stack : undefined, user: e?.user === true });
  }
});
