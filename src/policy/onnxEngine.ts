// The FuseGLU policy on ONNX Runtime's native CPU kernels: the forward pass, the hand-derived
// backward pass and a fused Adam step as ONNX graphs (onnx/fuseGluGraph.ts), run in a worker
// thread (onnx/worker.mjs) that holds the flat parameters and moments between steps. Checkpoint
// state is the same per-parameter format as the TF.js engine's, so runs resume across engines.
// A disposed engine's thread is kept for the next engine of this process, with ONNX Runtime loaded
// and its last sessions made (a warm training process trains run after run).
import { Worker } from 'node:worker_threads';
import { firstLine, SettingsError } from '../io/errors.ts';
import type { EngineState, OptimizerSettings, PolicyEngine } from './engine.ts';
import { isTrainable, type PolicyShape, type Weights } from './model.ts';
import { trainingGraph } from './onnx/fuseGluGraph.ts';
import { stateGraph, uploadGraph } from './onnx/stateGraph.ts';
import { batchFeeds, flatLayout, flatten, unflatten } from './onnx/layout.ts';

/** Why onnxruntime-node does not load on this machine (its error's first line), or undefined when it loads. */
export async function onnxLoadError(): Promise<string | undefined> {
  try {
    await import('onnxruntime-node');
    return undefined;
  } catch (e) {
    return firstLine(e);
  }
}

export type OnnxDevice = 'cpu' | 'cuda' | 'webgpu';
/**
 * Bytes a call moved up to its device and back down (docs/bench.md): on a GPU, every tensor that
 * crossed (a GPU buffer kept on the device crosses nowhere); on the CPU, the batch in and the
 * results out, the parameters and moments being read in place.
 */
export interface CallBytes {
  up: number;
  down: number;
}
/** The bytes of each kind of call, as its last call moved them. */
export type LastBytes = Partial<Record<'forward' | 'gradient' | 'train', CallBytes>>;

/** A reply of the worker thread (onnx/worker.mjs): a failed call has its error's message and stack, and `user` when it is a user's to act on. */
type Reply = Record<string, unknown> & { id: number; error?: string; stack?: string; user?: boolean };

/** Threads of disposed engines, idle (they do not keep the process alive), for the next engines. */
const spare: Worker[] = [];
/** Threads kept at most: as many as engines a process runs at once (a job's evaluation, a trainer). */
const SPARE = 2;
/** Disposed engines' threads on their way back to the spares: a new engine waits for them, so that it starts warm when one is. */
const returning = new Set<Promise<unknown>>();

function newThread(): Worker {
  const worker = new Worker(new URL('./onnx/worker.mjs', import.meta.url));
  // A spare thread that fails or ends is no longer one (an engine's own calls hear of it through their listener).
  worker.on('error', () => {});
  worker.once('exit', () => spare.includes(worker) && spare.splice(spare.indexOf(worker), 1));
  return worker;
}

/**
 * `device` cuda runs the graphs on ONNX Runtime's CUDA execution provider, webgpu on its WebGPU
 * provider, every node on the GPU and the parameters and moments kept there between steps
 * (onnx/worker.mjs; docs/training.md). Ask webgpu through createEngine, which finds the adapter.
 */
export async function onnxEngine(
  shape: PolicyShape,
  state: EngineState,
  opt: OptimizerSettings,
  threads = 1,
  device: OnnxDevice = 'cpu',
): Promise<PolicyEngine & { lastBytes: LastBytes; warmStart: boolean }> {
  const frozen: Weights = Object.fromEntries(Object.entries(state.weights).filter(([name]) => !isTrainable(shape, name)));
  await Promise.all(returning);
  const worker = spare.pop() ?? newThread();
  worker.unref(); // an idle engine does not keep the process alive
  const pending = new Map<number, { resolve: (r: Reply) => void; reject: (e: Error) => void }>();
  let nextId = 0;
  const onMessage = (r: Reply) => {
    const p = pending.get(r.id)!;
    pending.delete(r.id);
    if (r.error === undefined) p.resolve(r);
    else if (r.user) p.reject(new SettingsError(`onnx engine: ${r.error}`));
    // A bug in the worker thread: its stack, as the cause of this thread's error.
    else p.reject(new Error(`onnx engine: ${r.error}`, { cause: Object.assign(new Error(r.error), { stack: r.stack }) }));
  };
  const onError = (e: Error) => {
    for (const p of pending.values()) p.reject(e);
    pending.clear();
  };
  worker.on('message', onMessage);
  worker.on('error', onError);
  const call = (type: string, args: Record<string, unknown>, transfer: ArrayBuffer[] = []) =>
    new Promise<Reply>((resolve, reject) => {
      const id = nextId++;
      pending.set(id, { resolve, reject });
      worker.ref(); // keep the process alive while a call is out
      worker.postMessage({ id, type, ...args }, transfer);
    }).finally(() => pending.size === 0 && worker.unref());

  // The batch arrays are fresh for each call: hand them over instead of copying.
  const send = (type: string, feeds: ReturnType<typeof batchFeeds>, args: Record<string, unknown> = {}) =>
    call(
      type,
      { feeds, ...args },
      Object.values(feeds).map((f) => f.data.buffer as ArrayBuffer),
    );
  // The gradient and train graphs are built and sent with their first call: an engine that only
  // evaluates never builds them.
  const sent = new Set<string>();
  // On the GPU the graphs take the parameters by Adam group: the train graph's outputs as they are.
  const inputs = device === 'webgpu' ? 'groups' : 'views';
  const graphOnce = (kind: 'gradient' | 'train' | 'state') =>
    sent.has(kind) ? undefined : (sent.add(kind), kind === 'state' ? stateGraph(shape) : trainingGraph(kind, shape, frozen, opt, { inputs }));
  const { warm } = await call('init', {
    forward: trainingGraph('forward', shape, frozen, opt, { inputs }),
    upload: device === 'webgpu' ? uploadGraph(shape) : undefined,
    threads,
    device,
    stretches: (({ views, groups }) => ({ views, groups }))(flatLayout(shape)),
    params: flatten(shape, state.weights),
    m: flatten(shape, state.m),
    v: flatten(shape, state.v),
  });
  let step = state.step;
  const lastBytes: LastBytes = {};

  return {
    name: device === 'cpu' ? `onnx-cpu (${threads} thread${threads === 1 ? '' : 's'})` : device === 'cuda' ? 'onnx-cuda' : 'webgpu',
    lastBytes,
    /** Whether this engine's thread and forward session are an earlier engine's (a warm start). */
    warmStart: warm === true,
    shape,
    async keepLogits(b) {
      const r = await send('forward', batchFeeds(shape, b));
      lastBytes.forward = r.bytes as CallBytes;
      return r.logits as Float32Array;
    },
    async lossAndGradients(b, actions, advantages) {
      const r = await send('gradient', batchFeeds(shape, b, 'float32', actions, advantages), { graph: graphOnce('gradient') });
      lastBytes.gradient = r.bytes as CallBytes;
      return { loss: r.loss as number, entropy: r.entropy as number, gradients: unflatten(shape, r.grad as Float32Array) };
    },
    async trainStep(b, actions, advantages) {
      step++;
      const c1 = 1 - opt.beta1 ** step,
        c2 = 1 - opt.beta2 ** step;
      const r = await send('train', batchFeeds(shape, b, 'float32', actions, advantages), {
        stepSize: (opt.lr * Math.sqrt(c2)) / c1,
        epsHat: opt.epsilon * Math.sqrt(c2),
        graph: graphOnce('train'),
      });
      lastBytes.train = r.bytes as CallBytes;
      return { loss: r.loss as number, entropy: r.entropy as number };
    },
    async getState() {
      const r = await call('state', { graph: device === 'webgpu' ? graphOnce('state') : undefined });
      return {
        weights: { ...unflatten(shape, r.params as Float32Array), ...frozen },
        step,
        m: unflatten(shape, r.m as Float32Array),
        v: unflatten(shape, r.v as Float32Array),
      };
    },
    dispose() {
      // The thread goes back to the spares once it has dropped this engine's state (or ends, when enough are kept or the call failed).
      const back = call('release', {})
        .then(async () => {
          if (spare.length < SPARE) {
            worker.off('message', onMessage);
            worker.off('error', onError);
            spare.push(worker);
          } else {
            await call('close', {});
            await worker.terminate();
          }
        })
        .catch(() => worker.terminate())
        .finally(() => returning.delete(back));
      returning.add(back);
    },
  };
}
