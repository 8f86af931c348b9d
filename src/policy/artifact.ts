// Serialized policies. A checkpoint holds everything to resume training exactly; an exported
// policy artifact holds everything to run the policy (weights, architecture, team, encoder id,
// format version) and nothing of the trainer. Both are JSON with base64 float32 tensors, written
// atomically, and read back through a schema: the `format` field tells them apart, every tensor
// must have the name and shape the policy's dimensions give it and hold finite numbers only, and
// every problem names the file and the field.
import { z } from 'zod';
import { InputError } from '../io/errors.ts';
import { formatProblem, zodProblems } from '../io/problems.ts';
import { writeFileAtomic, writeFilesAtomic } from '../io/atomic.ts';
import { float32FromBase64 } from '../io/float32.ts';
import { readTextFile } from '../io/textFile.ts';
import type { EngineState } from './engine.ts';
import { isTrainable, parameterShapes, PolicyArchitecture, TRAINABLE, type PolicyShape, type Weights } from './model.ts';
import { ROW_WIDTH } from './behaviorRows.ts';

export const POLICY_FORMAT = 'cpp-policy';
export const CHECKPOINT_FORMAT = 'cpp-checkpoint';
export const FORMAT_VERSION = 1;

type Encoded = Record<string, { shape: number[]; data: string }>;

function encodeWeights(w: Weights): Encoded {
  return Object.fromEntries(
    Object.entries(w).map(([k, t]) => [k, { shape: t.shape, data: Buffer.from(t.data.buffer, t.data.byteOffset, t.data.byteLength).toString('base64') }]),
  );
}

const count = z.number().int().nonnegative();
// `data` is checked where it is decoded (decodeWeights, src/io/float32.ts).
const EncodedTensors = z.record(z.string(), z.strictObject({ shape: z.array(count), data: z.string() }));
const Shape = PolicyArchitecture.extend({
  dim: z.number().int().positive(),
  agents: z.number().int().positive(),
  rounds: z.number().int().min(2),
  trainable: z.enum(TRAINABLE).optional(),
});
const Best = z.strictObject({ epoch: z.number().int().positive(), accuracy: z.number().min(0).max(1), costPct: z.number().nonnegative() }).nullable();
/** The team's behavior rows (behaviorRows.ts), agent id -> its numbers: present when the shape has behaviorRows. */
const Rows = z.record(z.string(), z.array(z.number()).length(ROW_WIDTH)).optional();
const identityHash = z.string().regex(/^[0-9a-f]{64}$/, 'not a sha256 (64 hex digits)');

const CheckpointFile = z.strictObject({
  format: z.literal(CHECKPOINT_FORMAT),
  version: z.literal(FORMAT_VERSION),
  config: z.record(z.string(), z.unknown()),
  shape: Shape,
  team: z.array(z.string().min(1)).min(1),
  encoder: z.string().min(1),
  rows: Rows,
  /** sha256 of the cache content the run trained on (src/cache/hash.ts cacheHash); absent in runs saved before it. */
  cacheHash: identityHash.optional(),
  epoch: count,
  step: count,
  baseline: z.array(z.number()),
  costMultiplier: z.number().nonnegative().optional(),
  best: Best,
  engine: z.strictObject({ step: count, weights: EncodedTensors, m: EncodedTensors, v: EncodedTensors }),
});

const CheckpointHead = CheckpointFile.extend({ engine: z.unknown() });

const PolicyFile = z.strictObject({
  format: z.literal(POLICY_FORMAT),
  version: z.literal(FORMAT_VERSION),
  shape: Shape,
  team: z.array(z.string().min(1)).min(1),
  encoder: z.string().min(1),
  rows: Rows,
  trainedOn: z.strictObject({ cache: z.string(), seed: z.number().int(), epoch: count }),
  weights: EncodedTensors,
});

/** Tensors of a policy of `shape`: exactly its parameters, each of its shape, every value finite; else an error naming file and field. */
/**
 * Decode a checkpoint's tensors: every parameter of the shape; with `trainableOnly` (the optimizer's
 * moments) those the optimizer updates, a frozen one (a `none` behavior embedding) allowed and left out.
 */
function decodeWeights(e: Encoded, shape: PolicyShape, file: string, field: string, trainableOnly = false): Weights {
  const all = parameterShapes(shape);
  const expected = all.filter(([name]) => !trainableOnly || isTrainable(shape, name));
  const names = new Set(all.map(([name]) => name));
  const where = `dim ${shape.dim}, hidden ${shape.hidden}, ${shape.agents} agents, ${shape.rounds} rounds`;
  const extra = Object.keys(e).filter((k) => !names.has(k));
  if (extra.length) throw new InputError(`${file}: ${field}: tensors ${extra.join(', ')} are not parameters of this policy (${where})`);
  const out: Weights = {};
  for (const [name, dims] of expected) {
    const t = e[name];
    const at = `${file}: ${field}.${name}`;
    if (!t) throw new InputError(`${at}: missing`);
    if (JSON.stringify(t.shape) !== JSON.stringify(dims))
      throw new InputError(`${at}: shape [${t.shape.join(', ')}], but the policy's dimensions (${where}) give [${dims.join(', ')}]`);
    const size = dims.reduce((a, b) => a * b, 1);
    const data = float32FromBase64(t.data, size);
    if ('notBase64' in data) throw new InputError(`${at}.data: not base64`);
    if ('bytes' in data) throw new InputError(`${at}: holds ${data.bytes / 4} float32 values, its shape [${dims.join(', ')}] needs ${size}`);
    if ('index' in data) throw new InputError(`${at}: value ${data.index} is ${data.value}: a checkpoint holds finite numbers only`);
    out[name] = { shape: dims, data };
  }
  return out;
}

/** A JSON file as an object, with its `format` (the file named in every error). */
function readJson(path: string): Record<string, unknown> {
  const text = readTextFile(path);
  if (text.trim() === '') throw new InputError(`${path}: empty file (a write cut short?)`);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new InputError(`${path}: invalid JSON (cut short, or not a policy file?): ${(e as Error).message}`);
  }
  if (!json || typeof json !== 'object' || Array.isArray(json)) throw new InputError(`${path}: not a JSON object`);
  return json as Record<string, unknown>;
}

/** `json` as a file of `format` (`what` it is, for the error): parsed by `schema`, its team checked against its shape. */
function readAs<T extends typeof CheckpointFile | typeof CheckpointHead | typeof PolicyFile>(
  path: string,
  json: Record<string, unknown>,
  format: string,
  what: string,
  schema: T,
): z.infer<T> {
  if (json.format !== format) throw new InputError(`${path}: format: expected '${format}' (${what}), found ${JSON.stringify(json.format)}`);
  const r = schema.safeParse(json);
  if (!r.success) throw new InputError(zodProblems(r.error.issues, path, 0).slice(0, 10).map(formatProblem).join('\n'));
  const { shape, team, rows } = r.data;
  if (shape.behaviorRows && team.some((id) => !rows?.[id]))
    throw new InputError(`${path}: rows: the policy reads behavior rows (shape.behaviorRows ${shape.behaviorRows}), and a team member's row is missing`);
  if (team.length !== shape.agents) throw new InputError(`${path}: team: ${team.length} agents, but shape.agents is ${shape.agents}`);
  if (new Set(team).size !== team.length) throw new InputError(`${path}: team: an agent named twice (${team.join(', ')})`);
  return r.data as z.infer<T>;
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
  /** With behaviorRows: each team member's behavior row (what deployment feeds as source_row and recipient_row). */
  rows?: Record<string, number[]>;
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
  /** sha256 of the content of the cache the run trained on (absent in runs saved before it was recorded). */
  cacheHash?: string;
  shape: PolicyShape;
  team: string[];
  encoder: string;
  /** With behaviorRows: the team's behavior rows, from the cache it trained on. */
  rows?: Record<string, number[]>;
  engine: EngineState;
}

/**
 * Write the checkpoint to `path`, or to each of several paths (a run's checkpoint.json and, at its
 * best epoch, best.json): encoded once, and the files replaced together (a failure leaves them all as they were).
 */
export function saveCheckpoint(path: string | readonly string[], c: Checkpoint): void {
  const { engine, ...rest } = c;
  const out = { ...rest, engine: { step: engine.step, weights: encodeWeights(engine.weights), m: encodeWeights(engine.m), v: encodeWeights(engine.v) } };
  const text = JSON.stringify(out);
  writeFilesAtomic((typeof path === 'string' ? [path] : path).map((p): [string, string[]] => [p, [text]]));
}

/**
 * A check of the training settings a checkpoint saved (`config`), which throws an error naming the
 * file and field: the library knows the tensors, not the trainer's settings (train/checkpoint.ts
 * passes the check of a config file, and the jobs read checkpoints through it).
 */
export type SettingsCheck = (file: string, config: Record<string, unknown>) => void;

/** A training checkpoint, checked (see the header; its saved settings by `settings`); errors name the file and field. */
export function loadCheckpoint(path: string, settings?: SettingsCheck): Checkpoint {
  return checkpointOf(path, readJson(path), settings);
}

/** What a job asks of a run folder's checkpoint (its settings, cache content, epoch): the checkpoint, checked, but its tensors left undecoded. */
export function checkpointHead(path: string, settings?: SettingsCheck): Omit<Checkpoint, 'engine'> {
  const { engine: _, ...head } = readAs(path, readJson(path), CHECKPOINT_FORMAT, 'a training checkpoint', CheckpointHead);
  settings?.(path, head.config);
  return { ...head, shape: head.shape as PolicyShape };
}

function checkpointOf(path: string, json: Record<string, unknown>, settings?: SettingsCheck): Checkpoint {
  const c = readAs(path, json, CHECKPOINT_FORMAT, 'a training checkpoint', CheckpointFile);
  settings?.(path, c.config);
  const shape = c.shape as PolicyShape;
  if (c.best && c.best.epoch > c.epoch) throw new InputError(`${path}: best.epoch: ${c.best.epoch}, after the checkpoint's epoch ${c.epoch}`);
  const e = c.engine;
  const engine = {
    step: e.step,
    weights: decodeWeights(e.weights, shape, path, 'engine.weights'),
    m: decodeWeights(e.m, shape, path, 'engine.m', true),
    v: decodeWeights(e.v, shape, path, 'engine.v', true),
  };
  return { ...c, shape, engine };
}

export function artifactOf(c: Checkpoint): PolicyArtifact {
  return {
    format: POLICY_FORMAT,
    version: FORMAT_VERSION,
    shape: c.shape,
    team: c.team,
    encoder: c.encoder,
    ...(c.rows && { rows: c.rows }),
    trainedOn: { cache: String(c.config.cache), seed: Number(c.config.seed), epoch: c.epoch },
    weights: c.engine.weights,
  };
}

export function savePolicy(path: string, a: PolicyArtifact): void {
  writeFileAtomic(path, [JSON.stringify({ ...a, weights: encodeWeights(a.weights) })]);
}

/** An exported policy (policy.json), checked (see the header); errors name the file and field. */
export function loadPolicy(path: string): PolicyArtifact {
  return policyOf(path, readJson(path));
}

function policyOf(path: string, json: Record<string, unknown>): PolicyArtifact {
  const p = readAs(path, json, POLICY_FORMAT, 'an exported policy', PolicyFile);
  const shape = p.shape as PolicyShape;
  return { ...p, format: POLICY_FORMAT, shape, weights: decodeWeights(p.weights, shape, path, 'weights') };
}

/** A policy from either an exported artifact or a training checkpoint (its saved settings checked by `settings`), told apart by its parsed `format`. */
export function loadAnyPolicy(path: string, settings?: SettingsCheck): PolicyArtifact {
  const json = readJson(path);
  if (json.format === CHECKPOINT_FORMAT) return artifactOf(checkpointOf(path, json, settings));
  if (json.format === POLICY_FORMAT) return policyOf(path, json);
  throw new InputError(
    `${path}: format: expected '${CHECKPOINT_FORMAT}' (a training checkpoint) or '${POLICY_FORMAT}' (an exported policy), found ${JSON.stringify(json.format)}`,
  );
}
