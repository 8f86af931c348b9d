// Deploying a trained policy: load an exported artifact and ask which responses a recipient
// should read this round. Plain JavaScript (src/policy/forward.ts): no trainer, no TF.js.
//
//   const policy = await loadDeployedPolicy('checkpoints/run/export/policy.json');
//   const decisions = await policy.decide({
//     question: { text, tokens }, round: 2, recipient: 'atlas',
//     responses: { atlas: { text, tokens }, sage: { text, tokens }, brisk: { text, tokens } },
//   });   // -> [{ agent: 'atlas', keep: true, p: 0.91 }, { agent: 'sage', ... }, ...]
import { bofEncoder } from '../encoders/bof.ts';
import type { Encoder } from '../encoders/index.ts';
import { useEncoder } from '../encoders/use.ts';
import { candidateOrder } from '../env/environment.ts';
import { loadPolicy, type PolicyArtifact } from './artifact.ts';
import { forwardLogits, sigmoid } from './forward.ts';
import { emptyBatch, normalizeInto } from './rollout.ts';

export interface Text {
  text: string;
  /** Token count (prompt tokens for the question, output tokens for a response). */
  tokens: number;
}

export interface DecideRequest {
  question: Text;
  round: number;
  recipient: string;
  /** This round's candidates: every team member's previous-round response, by agent id. */
  responses: Record<string, Text>;
  /** Responses the recipient kept in earlier rounds (the progressive query state carries them). */
  accepted?: Text[];
}

export interface Decision {
  agent: string;
  keep: boolean;
  p: number;
}

/** The encoder an artifact was trained with, from its id. */
export async function encoderFor(id: string): Promise<Encoder> {
  const bof = id.match(/^bof-(\d+)$/);
  if (bof) return bofEncoder(Number(bof[1]));
  if (id === 'use-lite-512') return useEncoder();
  throw new Error(`unknown encoder id '${id}': pass an encoder to deployPolicy`);
}

export function deployPolicy(artifact: PolicyArtifact, encoder: Encoder) {
  const { shape, team } = artifact;
  if (encoder.id !== artifact.encoder) throw new Error(`policy was trained with encoder ${artifact.encoder}, got ${encoder.id}`);
  return {
    artifact,
    async decide(req: DecideRequest): Promise<Decision[]> {
      const i = team.indexOf(req.recipient);
      if (i < 0) throw new Error(`recipient '${req.recipient}' is not in the policy's team (${team.join(', ')})`);
      if (req.round < 2 || req.round > shape.rounds) throw new Error(`round ${req.round} is outside 2..${shape.rounds}`);
      const order = candidateOrder(team.length, i);
      const missing = order.map((c) => team[c]).filter((a) => !req.responses[a]);
      if (missing.length) throw new Error(`no response given for ${missing.join(', ')}`);
      const candidates = order.map((c) => req.responses[team[c]]);
      const accepted = req.accepted ?? [];
      const [question, ...vectors] = await encoder.encode([req.question.text, ...accepted.map((a) => a.text), ...candidates.map((c) => c.text)]);
      const D = shape.dim;
      const S = new Float32Array(D);
      const add = (v: Float32Array, w: number) => v.forEach((x, k) => (S[k] += x * w));
      add(question, req.question.tokens);
      if (shape.conditioning) accepted.forEach((a, k) => add(vectors[k], a.tokens));
      const batch = emptyBatch(1, D);
      return order.map((c, j) => {
        normalizeInto(shape.conditioning ? S : question, 0, D, batch.query, 0);
        batch.candidate.set(vectors[accepted.length + j]);
        batch.recipient[0] = i;
        batch.own[0] = j === 0 ? 1 : 0;
        batch.source[0] = c;
        batch.round[0] = req.round - 2;
        const p = sigmoid(forwardLogits(shape, artifact.weights, batch)[0]);
        const keep = p >= 0.5;
        if (keep && shape.conditioning) add(vectors[accepted.length + j], candidates[j].tokens);
        return { agent: team[c], keep, p };
      });
    },
  };
}

export async function loadDeployedPolicy(path: string, encoder?: Encoder) {
  const artifact = loadPolicy(path);
  return deployPolicy(artifact, encoder ?? (await encoderFor(artifact.encoder)));
}
