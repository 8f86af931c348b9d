// Deploying a trained policy (`cpp-workbench/inference`): load an exported artifact and ask which
// responses a recipient should read this round. The keep probability comes from the exported ONNX
// model (policy.onnx, beside policy.json) on ONNX Runtime, its inputs built as policy.spec.md
// states (contract.ts): no trainer, no TF.js (tests/policy/deploy.test.ts makes loading it fail).
//
//   const policy = await loadDeployedPolicy('checkpoints/run/export/policy.json');
//   const decisions = await policy.decide({
//     question: { text, tokens }, round: 2, recipient: 'atlas',
//     responses: { atlas: { text, tokens }, sage: { text, tokens }, brisk: { text, tokens } },
//   });   // -> [{ agent: 'atlas', keep: true, p: 0.91 }, { agent: 'sage', ... }, ...]
// A policy that decides more than edges also answers `policy.stop(request)` (before a round) and
// `policy.revise(request)` (per recipient), the request carrying the team's current `answers`.
import { bofEncoder } from '../encoders/bof.ts';
import type { Encoder } from '../encoders/index.ts';
import { useEncoder } from '../encoders/use.ts';
import { candidateOrder } from '../env/actions.ts';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { loadPolicy, type PolicyArtifact } from './artifact.ts';
import { onnxModel } from './contract.ts';
import { normalizeInto } from './decisionBatch.ts';
import { KIND, kindsOf } from './model.ts';
import { InputError } from '../io/errors.ts';
import { WEBGPU_SESSION, webgpuAdapterWarned } from './webgpu.ts';

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
  /**
   * Each member's current answer as parsed (null: none), by agent id: the agreement a policy that
   * decides more than edges reads (policy.spec.md); needed by such a policy, ignored by another.
   */
  answers?: Record<string, string | null>;
}

export interface Decision {
  agent: string;
  keep: boolean;
  p: number;
}

/** Every input of policy.onnx for one decision, as policy.spec.md builds it. */
export interface DecisionInputs {
  query: Float32Array;
  behavior: Float32Array;
  candidate: Float32Array;
  own: number;
  source: number;
  round: number;
  current: number;
  turn: number;
  /** With behaviorRows: the candidate's source's behavior row and the recipient's (policy.spec.md). */
  source_row?: Float32Array;
  recipient_row?: Float32Array;
  /** With decisions beyond edges: the decision's kind (model.ts KIND) and its candidate's agreement. */
  kind?: number;
  agree?: number;
}

/** A decision with the inputs it was made from (golden.ts writes them for deployers to check against). */
export type DecisionRow = Decision & { inputs: DecisionInputs };

/** The encoder an artifact was trained with, from its id. */
export async function encoderFor(id: string): Promise<Encoder> {
  const bof = id.match(/^bof-(\d+)$/);
  if (bof) return bofEncoder(Number(bof[1]));
  if (id === 'use-lite-512') return useEncoder();
  throw new InputError(`unknown encoder id '${id}': pass an encoder to deployPolicy`);
}

export interface ServeOptions {
  /**
   * ONNX Runtime's execution provider: `cpu` (the default), or `webgpu` (a GPU through WebGPU,
   * every node on it; no adapter is an error, a software one is warned about: src/policy/webgpu.ts).
   */
  provider?: 'cpu' | 'webgpu';
}

/** Serve an artifact; `model` is its exported ONNX model (built from the artifact when not given). */
export async function deployPolicy(artifact: PolicyArtifact, encoder: Encoder, model: Uint8Array = onnxModel(artifact), options: ServeOptions = {}) {
  const { shape, team } = artifact;
  if (encoder.id !== artifact.encoder) throw new InputError(`policy was trained with encoder ${artifact.encoder}, got ${encoder.id}`);
  const adapter = options.provider === 'webgpu' ? await webgpuAdapterWarned() : undefined;
  // ONNX Runtime loads here, not with the module: the jobs that import encoderFor never start it.
  const ort = await import('onnxruntime-node');
  const session = await ort.InferenceSession.create(model, adapter ? WEBGPU_SESSION : {});
  const D = shape.dim;
  const behavior = artifact.weights.behavior.data;
  const row = (agent: string) => Float32Array.from(artifact.rows![agent]);
  const int = (x: number) => new ort.Tensor('int64', BigInt64Array.of(BigInt(x)), [1]);
  const keepProbability = async (x: DecisionInputs) => {
    const out = await session.run({
      query: new ort.Tensor('float32', x.query, [1, D]),
      behavior: new ort.Tensor('float32', x.behavior, [1, D]),
      candidate: new ort.Tensor('float32', x.candidate, [1, D]),
      own: int(x.own),
      source: int(x.source),
      round: int(x.round),
      current: int(x.current),
      turn: int(x.turn),
      ...(x.source_row && { source_row: new ort.Tensor('float32', x.source_row, [1, x.source_row.length]) }),
      ...(x.recipient_row && { recipient_row: new ort.Tensor('float32', x.recipient_row, [1, x.recipient_row.length]) }),
      ...(x.kind !== undefined && { kind: int(x.kind), agree: new ort.Tensor('float32', Float32Array.of(x.agree!), [1]) }),
    });
    return (out.keep_probability.data as Float32Array)[0];
  };
  const kinds = kindsOf(shape) > 1;
  /** The share of the team whose current answer is `agent`'s (a policy of edges alone: none). */
  const agreement = (req: DecideRequest, agent: string): { agree?: number } => {
    if (!kinds) return {};
    const answers = req.answers;
    if (!answers || team.some((a) => !(a in answers)))
      throw new InputError(
        `a policy deciding ${shape.decisions} reads the team's agreement: give answers (each member's current answer, null for none) for ${team.join(', ')}`,
      );
    const mine = answers[agent];
    return { agree: mine === null ? 0 : team.filter((a) => answers[a] === mine).length / team.length };
  };
  /** The request checked, its texts encoded, the recipient's query state S. */
  const prepare = async (req: DecideRequest) => {
    const i = team.indexOf(req.recipient);
    if (i < 0) throw new InputError(`recipient '${req.recipient}' is not in the policy's team (${team.join(', ')})`);
    if (req.round < 2 || req.round > shape.rounds) throw new InputError(`round ${req.round} is outside 2..${shape.rounds}`);
    const order = candidateOrder(team.length, i);
    const missing = order.map((c) => team[c]).filter((a) => !req.responses[a]);
    if (missing.length) throw new InputError(`no response given for ${missing.join(', ')}`);
    const candidates = order.map((c) => req.responses[team[c]]);
    const accepted = req.accepted ?? [];
    const [question, ...vectors] = await encoder.encode([req.question.text, ...accepted.map((a) => a.text), ...candidates.map((c) => c.text)]);
    const S = new Float32Array(D);
    const add = (v: Float32Array, w: number) => v.forEach((x, k) => (S[k] += x * w));
    add(question, req.question.tokens);
    if (shape.conditioning) accepted.forEach((a, k) => add(vectors[k], a.tokens));
    const inputs = (j: number, kind: number, query: Float32Array): DecisionInputs => ({
      query,
      behavior: behavior.slice(i * D, (i + 1) * D),
      candidate: vectors[accepted.length + j],
      own: j === 0 ? 1 : 0,
      source: order[j],
      round: req.round - 2,
      current: 0, // deployed debates run synchronous rounds (the contract's `current` and `turn`)
      turn: i,
      ...(shape.behaviorRows && { source_row: row(team[order[j]]), recipient_row: row(req.recipient) }),
      ...(kinds && { kind, ...agreement(req, team[order[j]]) }),
    });
    const unit = (v: Float32Array) => {
      const query = new Float32Array(D);
      normalizeInto(v, 0, D, query, 0);
      return query;
    };
    return { order, candidates, accepted, vectors, S, add, inputs, unit, question };
  };
  /** The recipient's decisions on this round's candidates, in order, each with its inputs. */
  const explain = async (req: DecideRequest): Promise<DecisionRow[]> => {
    const { order, candidates, accepted, vectors, S, add, inputs, unit, question } = await prepare(req);
    const rows: DecisionRow[] = [];
    for (const j of order.keys()) {
      const x = inputs(j, KIND.edge, unit(shape.conditioning ? S : question));
      const p = await keepProbability(x);
      const keep = p >= 0.5;
      if (keep && shape.conditioning) add(vectors[accepted.length + j], candidates[j].tokens);
      rows.push({ agent: team[order[j]], keep, p, inputs: x });
    }
    return rows;
  };
  /** Whether the recipient revises this round (a policy with revise decisions): its own answer as the candidate. */
  const explainRevise = async (req: DecideRequest): Promise<DecisionRow> => {
    if (!kinds) throw new InputError(`this policy decides ${shape.decisions}: it has no revise decisions (every recipient revises)`);
    const { S, inputs, unit, question } = await prepare(req);
    const x = inputs(0, KIND.revise, unit(shape.conditioning ? S : question));
    const p = await keepProbability(x);
    return { agent: req.recipient, keep: p >= 0.5, p, inputs: x };
  };
  /**
   * Whether the debate stops before this round (a policy with stop decisions): the question as the
   * query, and the answer of the member holding the current majority (ties: the first in team
   * order) as the candidate. `recipient` and `accepted` of the request are not read.
   */
  const explainStop = async (req: Omit<DecideRequest, 'recipient'>): Promise<DecisionRow> => {
    if (shape.decisions !== 'edges+revise+stop') throw new InputError(`this policy decides ${shape.decisions}: it has no stop decisions`);
    agreement(req as DecideRequest, team[0]); // the answers are there
    const share = (a: string) => (req.answers![a] === null ? 0 : team.filter((b) => req.answers![b] === req.answers![a]).length);
    const holder = team.reduce((best, a) => (share(a) > share(best) ? a : best), team[0]);
    const { inputs, unit, question } = await prepare({ ...req, recipient: holder, accepted: [] });
    const x = inputs(0, KIND.stop, unit(question));
    const p = await keepProbability(x);
    return { agent: holder, keep: p >= 0.5, p, inputs: x };
  };
  return {
    artifact,
    /** The WebGPU adapter it runs on (provider webgpu). */
    adapter,
    explain,
    explainRevise,
    explainStop,
    async decide(req: DecideRequest): Promise<Decision[]> {
      return (await explain(req)).map(({ agent, keep, p }) => ({ agent, keep, p }));
    },
    /** With revise decisions: does the recipient make its call this round (else it keeps its answer, without a call)? */
    async revise(req: DecideRequest): Promise<{ revise: boolean; p: number }> {
      const { keep, p } = await explainRevise(req);
      return { revise: keep, p };
    },
    /** With stop decisions: does the debate stop before this round (every member keeping its answer)? */
    async stop(req: Omit<DecideRequest, 'recipient'>): Promise<{ stop: boolean; p: number }> {
      const { keep, p } = await explainStop(req);
      return { stop: keep, p };
    },
  };
}

export type DeployedPolicy = Awaited<ReturnType<typeof deployPolicy>>;

/** Load `policy.json` and, when it is there, the `policy.onnx` exported beside it. */
export async function loadDeployedPolicy(path: string, encoder?: Encoder, options: ServeOptions = {}) {
  const artifact = loadPolicy(path);
  const onnx = join(dirname(path), 'policy.onnx');
  return deployPolicy(artifact, encoder ?? (await encoderFor(artifact.encoder)), existsSync(onnx) ? readFileSync(onnx) : undefined, options);
}
