// Export a checkpoint for deployment: `policy.json` (the self-contained artifact the inference API
// loads), `policy.onnx` (a standard ONNX inference model any ONNX Runtime loads: Python, C#, web),
// `policy.spec.md` (the contract, contract.ts: how to build every input, what the output means; also
// in the ONNX metadata), `golden.json` (golden.ts: texts, their vectors, and decisions with every
// input and keep probability, to check a reimplementation against), and `tfjs/model.json` +
// `tfjs/weights.bin`, the weights in TF.js's own format (load them with tf.io.loadWeights /
// tf.io.decodeWeights). TF.js is loaded only to write the latter, so the inference API
// (inference.ts) never loads it.
import { dirname, join, resolve } from 'node:path';
import { existsSync, renameSync, rmSync } from 'node:fs';
import { removeOnExit, syncFolder, writeFileAtomic } from '../io/atomic.ts';
import { artifactOf, savePolicy, type Checkpoint } from './artifact.ts';
import { onnxModel, policySpec } from './contract.ts';
import { goldenVectors } from './golden.ts';
import { deployPolicy, encoderFor } from './inference.ts';

/**
 * Write the export into `dir`. Every file goes into a temporary folder beside it first, which
 * replaces `dir` only when complete: a failed or interrupted export leaves no half folder (a
 * leftover temporary folder is removed by the next writer of the run folder, src/io/lock.ts).
 */
export async function exportPolicy(checkpoint: Checkpoint, dir: string): Promise<{ policy: string; onnx: string; spec: string; golden: string; tfjs: string }> {
  const tmp = `${dir.replace(/\/+$/, '')}.${process.pid}.tmp`;
  rmSync(tmp, { recursive: true, force: true });
  const forget = removeOnExit(tmp); // an interrupt meanwhile leaves no half folder either
  try {
    await writeExport(checkpoint, tmp);
    syncFolder(tmp);
  } catch (e) {
    rmSync(tmp, { recursive: true, force: true });
    throw e;
  } finally {
    forget();
  }
  // The previous export goes aside before the new one is renamed into place, and only then is removed.
  const old = `${dir.replace(/\/+$/, '')}.${process.pid}.old.tmp`;
  if (existsSync(dir)) renameSync(dir, old);
  renameSync(tmp, dir);
  syncFolder(dirname(resolve(dir)));
  rmSync(old, { recursive: true, force: true });
  return {
    policy: join(dir, 'policy.json'),
    onnx: join(dir, 'policy.onnx'),
    spec: join(dir, 'policy.spec.md'),
    golden: join(dir, 'golden.json'),
    tfjs: join(dir, 'tfjs'),
  };
}

async function writeExport(checkpoint: Checkpoint, dir: string): Promise<void> {
  const tf = await import('./tfjs.ts');
  const artifact = artifactOf(checkpoint);
  savePolicy(join(dir, 'policy.json'), artifact);
  const model = onnxModel(artifact);
  writeFileAtomic(join(dir, 'policy.onnx'), [model]);
  writeFileAtomic(join(dir, 'policy.spec.md'), [policySpec(artifact)]);
  const encoder = await encoderFor(artifact.encoder);
  const golden = await goldenVectors(await deployPolicy(artifact, encoder, model), encoder);
  writeFileAtomic(join(dir, 'golden.json'), [JSON.stringify(golden, null, 1) + '\n']);
  const named = Object.fromEntries(Object.entries(artifact.weights).map(([k, t]) => [k, tf.tensor(t.data, t.shape)]));
  const { data, specs } = await tf.io.encodeWeights(named);
  tf.dispose(Object.values(named));
  const weights = {
    format: 'cpp-fuseglu-weights',
    generatedBy: `TensorFlow.js tfjs-core v${tf.version_core}`,
    weightsManifest: [{ paths: ['weights.bin'], weights: specs }],
    userDefinedMetadata: { policyFormat: artifact.format, version: artifact.version, shape: artifact.shape, team: artifact.team, encoder: artifact.encoder },
  };
  writeFileAtomic(join(dir, 'tfjs', 'weights.bin'), [Buffer.from(data)]);
  writeFileAtomic(join(dir, 'tfjs', 'model.json'), [JSON.stringify(weights, null, 2)]);
}
