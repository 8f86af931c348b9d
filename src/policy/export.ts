// Export a checkpoint for deployment: `policy.json` (the self-contained artifact the inference API
// loads), `policy.onnx` (a standard ONNX inference model any ONNX Runtime loads: Python, C#, web),
// and `tfjs/model.json` + `tfjs/weights.bin`, the weights in TF.js's own format (load them with
// tf.io.loadWeights / tf.io.decodeWeights).
import * as tf from '@tensorflow/tfjs';
import { join } from 'node:path';
import { writeFileSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { writeFileAtomic } from '../cache/write.ts';
import { artifactOf, savePolicy, type Checkpoint, type PolicyArtifact } from './artifact.ts';
import { inferenceGraph } from './onnx/fuseGluGraph.ts';

/**
 * The ONNX inference model of a policy. Its metadata carries what a caller needs besides the
 * graph: team, encoder id, shape, and each team member's behavior embedding (the `behavior` input).
 */
export function onnxModel(a: PolicyArtifact): Uint8Array {
  const D = a.shape.dim;
  const behavior = Object.fromEntries(a.team.map((id, i) => [id, Array.from(a.weights.behavior.data.subarray(i * D, (i + 1) * D))]));
  return inferenceGraph(a.shape, a.weights, {
    policyFormat: a.format,
    version: String(a.version),
    team: JSON.stringify(a.team),
    encoder: a.encoder,
    shape: JSON.stringify(a.shape),
    behavior: JSON.stringify(behavior),
    inputs: 'query, behavior, candidate: float32 [N, dim] (query and candidate unit-norm embeddings); own (0/1), source (team position), round (round - 2): int64 [N]',
  });
}

export async function exportPolicy(checkpoint: Checkpoint, dir: string): Promise<{ policy: string; onnx: string; tfjs: string }> {
  const artifact = artifactOf(checkpoint);
  const policy = join(dir, 'policy.json');
  savePolicy(policy, artifact);
  const onnx = join(dir, 'policy.onnx');
  writeFileAtomic(onnx, [onnxModel(artifact)]);
  const named = Object.fromEntries(Object.entries(artifact.weights).map(([k, t]) => [k, tf.tensor(t.data, t.shape)]));
  const { data, specs } = await tf.io.encodeWeights(named);
  tf.dispose(Object.values(named));
  // Both files of the TF.js model go in together: written to a temporary folder, then renamed.
  const tfjs = join(dir, 'tfjs');
  const tmp = `${tfjs}.${process.pid}.tmp`;
  mkdirSync(tmp, { recursive: true });
  writeFileSync(join(tmp, 'weights.bin'), Buffer.from(data));
  const model = {
    format: 'cpp-fuseglu-weights',
    generatedBy: `TensorFlow.js tfjs-core v${tf.version_core}`,
    weightsManifest: [{ paths: ['weights.bin'], weights: specs }],
    userDefinedMetadata: { policyFormat: artifact.format, version: artifact.version, shape: artifact.shape, team: artifact.team, encoder: artifact.encoder },
  };
  writeFileSync(join(tmp, 'model.json'), JSON.stringify(model, null, 2));
  rmSync(tfjs, { recursive: true, force: true });
  renameSync(tmp, tfjs);
  return { policy, onnx, tfjs };
}
