// Serialized policies. A checkpoint holds everything to resume training exactly; an exported
// policy artifact holds everything to run the policy (weights, architecture, team, encoder id,
// format version) and nothing of the trainer. Both are JSON with base64 float32 tensors, written
// atomically.
import { readFileSync, existsSync } from 'node:fs';
import { writeFileAtomic } from '../cache/write.ts';
import type { EngineState } from './engine.ts';
import type { PolicyShape, Weights } from './model.ts';

export const POLICY_FORMAT = 'cpp-policy';
export const CHECKPOINT_FORMAT = 'cpp-checkpoint';
export const FORMAT_VERSION = 1;

type Encoded = Record<string, { shape: number[]; data: string }>;

function encodeWeights(w: Weights): Encoded {
  return Object.fromEntries(Object.entries(w).map(([k, t]) => [k, { shape: t.shape, data: Buffer.from(t.data.buffer, t.data.byteOffset, t.data.byteLength).toString('base64') }]));
}

function decodeWeights(e: Encoded): Weights {
  return Object.fromEntries(
    Object.entries(e).map(([k, t]) => {
      const bytes = Buffer.from(t.data, 'base64');
      const data = new Float32Array(bytes.length / 4);
      new Uint8Array(data.buffer).set(bytes);
      return [k, { shape: t.shape, data }];
    }),
  );
}

/** What an exported policy holds. */
export interface PolicyArtifact {
  format: typeof POLICY_FORMAT;
  version: number;
  shape: PolicyShape;
  /** Team agent ids; row i of the behavior embedding and source feature is team[i]. */
  team: string[];
  /** Encoder id the candidate and question embeddings must come from (e.g. bof-256). */
  encoder: string;
  trainedOn: { cache: string; seed: number; epoch: number };
  weights: Weights;
}

export interface TrainingState {
  epoch: number;
  step: number;
  /** State of the return baseline (train/advantage.ts baselineSize). */
  baseline: number[];
  /** Multiplier of the budget cost term (dual variable of a target budget); absent in runs saved before it. */
  costMultiplier?: number;
  best: { epoch: number; accuracy: number; costPct: number } | null;
}

export interface Checkpoint extends TrainingState {
  format: typeof CHECKPOINT_FORMAT;
  version: number;
  config: Record<string, unknown>;
  shape: PolicyShape;
  team: string[];
  encoder: string;
  engine: EngineState;
}

export function saveCheckpoint(path: string, c: Checkpoint): void {
  const { engine, ...rest } = c;
  const out = { ...rest, engine: { step: engine.step, weights: encodeWeights(engine.weights), m: encodeWeights(engine.m), v: encodeWeights(engine.v) } };
  writeFileAtomic(path, [JSON.stringify(out)]);
}

function readJson(path: string, format: string): Record<string, unknown> {
  if (!existsSync(path)) throw new Error(`${path}: file not found`);
  const json = JSON.parse(readFileSync(path, 'utf8'));
  if (json.format !== format) throw new Error(`${path}: format: expected '${format}', found '${json.format}'`);
  if (json.version !== FORMAT_VERSION) throw new Error(`${path}: version: expected ${FORMAT_VERSION}, found ${json.version}`);
  return json;
}

export function loadCheckpoint(path: string): Checkpoint {
  const json = readJson(path, CHECKPOINT_FORMAT) as unknown as Checkpoint & { engine: { step: number; weights: Encoded; m: Encoded; v: Encoded } };
  const e = json.engine;
  return { ...json, engine: { step: e.step, weights: decodeWeights(e.weights), m: decodeWeights(e.m), v: decodeWeights(e.v) } };
}

export function artifactOf(c: Checkpoint): PolicyArtifact {
  return {
    format: POLICY_FORMAT,
    version: FORMAT_VERSION,
    shape: c.shape,
    team: c.team,
    encoder: c.encoder,
    trainedOn: { cache: String(c.config.cache), seed: Number(c.config.seed), epoch: c.epoch },
    weights: c.engine.weights,
  };
}

export function savePolicy(path: string, a: PolicyArtifact): void {
  writeFileAtomic(path, [JSON.stringify({ ...a, weights: encodeWeights(a.weights) })]);
}

export function loadPolicy(path: string): PolicyArtifact {
  const json = readJson(path, POLICY_FORMAT) as unknown as PolicyArtifact & { weights: Encoded };
  return { ...json, weights: decodeWeights(json.weights) };
}

/** A policy from either an exported artifact or a training checkpoint. */
export function loadAnyPolicy(path: string): PolicyArtifact {
  if (!existsSync(path)) throw new Error(`${path}: file not found`);
  const head = readFileSync(path, 'utf8').slice(0, 200);
  return head.includes(`"format":"${CHECKPOINT_FORMAT}"`) ? artifactOf(loadCheckpoint(path)) : loadPolicy(path);
}
