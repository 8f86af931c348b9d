// Export a checkpoint for deployment: `policy.json` (the self-contained artifact the inference API
// loads) and `tfjs/model.json` + `tfjs/weights.bin`, the weights in TF.js's own format
// (load them with tf.io.loadWeights / tf.io.decodeWeights).
import * as tf from '@tensorflow/tfjs';
import { join } from 'node:path';
import { writeFileSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { artifactOf, savePolicy, type Checkpoint } from './artifact.ts';

export async function exportPolicy(checkpoint: Checkpoint, dir: string): Promise<{ policy: string; tfjs: string }> {
  const artifact = artifactOf(checkpoint);
  const policy = join(dir, 'policy.json');
  savePolicy(policy, artifact);
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
  return { policy, tfjs };
}
