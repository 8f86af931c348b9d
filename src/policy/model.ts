// FuseGLU pruning policy (docs/method.md §4): architecture settings, parameter shapes and seeded
// initialization, as plain named arrays so every compute engine starts from the same weights.
//   FuseGLU(x, y) = x + W_down( SiLU(W_gate x' + V_gate y') ⊙ (W_up x' + V_up y') ),  x', y' layer-normed
//   h = FuseGLU(q, e_r);  z = FuseGLU(h, c);  p_keep = sigmoid(w·z + b)
// With more decisions than edges (setting `decisions`), every decision reads the same z, its
// candidate input carrying a learned kind row, through the head of its kind:
//   p = sigmoid(w_k·z + a_k·agree + b_k)  (k = revise or stop; the edge head reads no agreement).
import seedrandom from 'seedrandom';
import { z } from 'zod';
import { ROW_WIDTH, ROWS_VERSION } from './behaviorRows.ts';

/** What a policy decides: its edges; and whether each recipient revises; and whether the debate stops. */
export const DECISIONS = ['edges', 'edges+revise', 'edges+revise+stop'] as const;
export type Decisions = (typeof DECISIONS)[number];

/** Decision kinds, the values of `DecisionBatch.kind`: a kind's action 1 keeps the edge, revises, or stops. */
export const KIND = { edge: 0, revise: 1, stop: 2 } as const;
/** The decision kinds of a policy (1, 2 or 3): with more than one, the candidate reads a kind row and each kind has its head. */
export const kindsOf = (s: Pick<PolicyArchitecture, 'decisions'>) => (s.decisions === 'edges' ? 1 : s.decisions === 'edges+revise' ? 2 : 3);
/** The heads of the kinds after the edge's (`head`), in kind order. */
export const HEADS = ['reviseHead', 'stopHead'] as const;
/** Initial biases of those heads: revise at p = 0.88 and stop at 0.12, so that a fresh policy plays nearly every round in full (stopping half the debates at once, it would see few late rounds to learn from). */
const HEAD_BIAS: Record<string, number> = { 'reviseHead.b': 2, 'stopHead.b': -2 };

export const PolicyArchitecture = z.strictObject({
  /** Width of the FuseGLU gate/up projections. */
  hidden: z.number().int().positive().default(128),
  /** Behavior embedding e_r: `mean` of the recipient's responses to initSamples validation questions, `random`, or `none` (zero, frozen). */
  behavior: z.enum(['mean', 'random', 'none']).default('mean'),
  /** Validation questions whose responses initialize e_r (null: all of them). */
  initSamples: z.number().int().positive().nullable().default(null),
  /** Progressive conditioning: the query accumulates kept candidates; off, it is the question alone. */
  conditioning: z.boolean().default(true),
  /** Learned candidate features added to the candidate embedding. */
  ownFeature: z.boolean().default(true),
  sourceFeature: z.boolean().default(true),
  roundFeature: z.boolean().default(true),
  /** The recorded protocol's inputs (src/env/protocol.ts): whether the candidate is shown from the current round, and the recipient's speaking position. */
  currentFeature: z.boolean().default(false),
  turnFeature: z.boolean().default(false),
  /**
   * Behavior rows (behaviorRows.ts) of the candidate's source and of the recipient, read through a
   * learned [2F, D] projection added to the candidate: the version of the rows, or 0 (off; a
   * checkpoint saved before the setting reads as off).
   */
  behaviorRows: z.number().int().min(0).max(ROWS_VERSION).default(0),
  /**
   * The decisions the policy makes (docs/architecture.md, "The policy's decisions"): `edges` (the
   * method's), `edges+revise` (each recipient of a round >= 2 revises or keeps its answer without a
   * call) or `edges+revise+stop` (the debate also stops before a round). A checkpoint saved before
   * the setting reads as `edges`.
   */
  decisions: z.enum(DECISIONS).default('edges'),
});
export type PolicyArchitecture = z.infer<typeof PolicyArchitecture>;

/**
 * The inputs that describe a seat (a team position), not the agent in it: the behavior embedding
 * (a row per seat), the source feature (the candidate's author by position) and the turn feature
 * (the recipient's speaking position, its team position under synchronous rounds). A policy moved
 * to a team whose seats hold other agents would read each newcomer as the seat's old agent; a
 * team-general policy reads none of them, and knows agents by their behavior rows alone.
 */
export const SEAT_INPUTS = ['behavior', 'sourceFeature', 'turnFeature'] as const;
export type SeatInput = (typeof SEAT_INPUTS)[number];

/** The per-seat inputs an architecture reads (`behavior` is read unless it is `none`: zero and frozen). */
export const seatInputsOf = (a: Pick<PolicyArchitecture, SeatInput>): SeatInput[] =>
  SEAT_INPUTS.filter((k) => (k === 'behavior' ? a.behavior !== 'none' : a[k]));

/** Which parameters a run trains: all, or the behavior embedding alone (fine-tuning a transferred policy, docs/transfer.md). */
export const TRAINABLE = ['all', 'behavior'] as const;
export type Trainable = (typeof TRAINABLE)[number];

/** Everything needed to rebuild a policy: architecture plus the sizes it was built for. */
export interface PolicyShape extends PolicyArchitecture {
  dim: number;
  agents: number;
  rounds: number;
  /** Parameters the optimizer updates (absent: all). */
  trainable?: Trainable;
}

export interface Tensor {
  shape: number[];
  data: Float32Array;
}
export type Weights = Record<string, Tensor>;

/** Parameter names and shapes, in a fixed order (the order of flat buffers and exports). */
export function parameterShapes(s: PolicyShape): [string, number[]][] {
  const { dim: D, hidden: H, agents: A, rounds: R } = s;
  const block = (p: string): [string, number[]][] => [
    [`${p}.lnx.g`, [D]],
    [`${p}.lnx.b`, [D]],
    [`${p}.lny.g`, [D]],
    [`${p}.lny.b`, [D]],
    [`${p}.Wg`, [D, H]],
    [`${p}.Vg`, [D, H]],
    [`${p}.Wu`, [D, H]],
    [`${p}.Vu`, [D, H]],
    [`${p}.Wd`, [H, D]],
  ];
  return [
    ['behavior', [A, D]],
    ...(s.ownFeature ? ([['ownEmb', [2, D]]] as [string, number[]][]) : []),
    ...(s.sourceFeature ? ([['sourceEmb', [A, D]]] as [string, number[]][]) : []),
    ...(s.roundFeature ? ([['roundEmb', [Math.max(1, R - 1), D]]] as [string, number[]][]) : []),
    ...(s.currentFeature ? ([['currentEmb', [2, D]]] as [string, number[]][]) : []),
    ...(s.turnFeature ? ([['turnEmb', [A, D]]] as [string, number[]][]) : []),
    // The kind table last among the feature tables: they lie side by side in the flat vector (onnx/layout.ts).
    ...(kindsOf(s) > 1 ? ([['kindEmb', [kindsOf(s), D]]] as [string, number[]][]) : []),
    ...block('b1'),
    ...block('b2'),
    ['head.w', [D]],
    ['head.b', [1]],
    ...HEADS.slice(0, kindsOf(s) - 1).flatMap((h): [string, number[]][] => [
      [`${h}.w`, [D]],
      [`${h}.b`, [1]],
      [`${h}.agree`, [1]],
    ]),
    ...(s.behaviorRows ? ([['rowProj', [2 * ROW_WIDTH, D]]] as [string, number[]][]) : []),
  ];
}

/** Parameters the optimizer updates (a `none` behavior embedding stays zero; with trainable `behavior`, nothing else moves). */
export const isTrainable = (s: PolicyShape, name: string) =>
  s.behavior === 'none' ? name !== 'behavior' && s.trainable !== 'behavior' : s.trainable !== 'behavior' || name === 'behavior';

function normal(random: () => number): number {
  return Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
}

/**
 * Seeded initial weights. Projections are Glorot-normal; W_down starts small so each FuseGLU starts
 * near the identity; the edge head starts near p_keep = 0.5 (the others at HEAD_BIAS). `behavior` is filled by the caller when
 * initialized from responses.
 */
export function initWeights(s: PolicyShape, seed: string): Weights {
  const random = seedrandom(`${seed}|init`);
  const w: Weights = {};
  for (const [name, shape] of parameterShapes(s)) {
    const size = shape.reduce((a, b) => a * b, 1);
    const data = new Float32Array(size);
    const leaf = name.split('.').at(-1)!;
    let std = 0;
    if (leaf === 'g') data.fill(1);
    else if (['Wg', 'Vg', 'Wu', 'Vu'].includes(leaf)) std = Math.sqrt(2 / (shape[0] + shape[1]));
    else if (leaf === 'Wd') std = 0.1 * Math.sqrt(2 / (shape[0] + shape[1]));
    else if (name === 'head.w' || name.endsWith('Head.w')) std = 0.01;
    else if (name in HEAD_BIAS) data.fill(HEAD_BIAS[name]);
    else if (name.endsWith('Emb') || name === 'rowProj') std = 0.02;
    else if (name === 'behavior' && s.behavior === 'random') std = 1 / Math.sqrt(s.dim);
    if (std > 0) for (let i = 0; i < size; i++) data[i] = std * normal(random);
    w[name] = { shape, data };
  }
  return w;
}

/** One batch of decisions (keep/prune edges; with `decisions`, revise/keep and stop/go on too), as flat arrays (n decisions, embedding width dim). */
export interface DecisionBatch {
  n: number;
  /** Query state q (unit norm), n x dim. */
  query: Float32Array;
  /** Candidate response embedding, n x dim. */
  candidate: Float32Array;
  /** Recipient team position, candidate is-own (0/1), candidate source team position, round - 2. */
  recipient: Int32Array;
  own: Int32Array;
  source: Int32Array;
  round: Int32Array;
  /** 1 when the protocol shows the candidate's answer of the round being decided (an earlier speaker's), else 0; the recipient's speaking position in that round (synchronous rounds: its team position). */
  current: Int32Array;
  turn: Int32Array;
  /** With behaviorRows: the candidate source's behavior row, then the recipient's, n x 2F. */
  rows?: Float32Array;
  /** With decisions beyond edges: each decision's kind (KIND), and the share of the team whose current answer is its candidate's. */
  kind?: Int32Array;
  agree?: Float32Array;
}

export const sigmoid = (x: number) => 1 / (1 + Math.exp(-x));
