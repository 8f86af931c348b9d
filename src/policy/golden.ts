// Golden vectors of an exported policy (golden.json beside policy.spec.md): a few texts chosen to
// catch what a reimplementation gets wrong (emoji beyond U+FFFF, combining marks, CJK, special
// casing, odd whitespace), their words and encoder vectors, and every input and keep probability of
// the decisions of one request per recipient (its edges; with more decisions, its revise decision
// and the debate's stop decision), computed by the inference API a deployer would call.
import { words } from '../encoders/bof.ts';
import type { Encoder } from '../encoders/index.ts';
import type { DecideRequest, DeployedPolicy } from './inference.ts';

/** The texts, by what each checks. */
export const GOLDEN_TEXTS = {
  ascii: 'Which organ pumps blood through the body? (A) liver (B) heart. The answer is (B).',
  emoji: 'The heart \u2764\uFE0F pumps \u{1FAC0} blood \u{1F44D}\u{1F3FD} so (B)!',
  combiningMarks: 'Cafe\u0301 and caf\u00E9: the re\u0301sume\u0301 says (B).',
  cjk: '\u7B54\u6848\u662F (B)\uFF1A\u5FC3\u810F\u6CF5\u8840\u3002',
  casingAndSpaces: '\u0130STANBUL \u039F\u0394\u039F\u03A3 300\u212A\u00A0ok\u2003done\u3000(B)',
} as const;

export interface Golden {
  format: 'cpp-golden';
  version: 1;
  encoder: string;
  texts: { name: string; text: string; words?: string[]; vector: number[] }[];
  decisions: {
    request: DecideRequest;
    rows: {
      agent: string;
      query: number[];
      behavior: number[];
      candidate: number[];
      own: number;
      source: number;
      round: number;
      current: number;
      turn: number;
      /** With behaviorRows. */
      source_row?: number[];
      recipient_row?: number[];
      /** With decisions beyond edges: the row's kind (0 edge, 1 revise, 2 stop) and agreement. */
      kind?: number;
      agree?: number;
      keep_probability: number;
      keep: boolean;
    }[];
  }[];
}

/**
 * One request per recipient: the question in ASCII, the candidates in emoji, combining marks and
 * CJK, and (from round 3, where the policy has one) an earlier kept response with special casing.
 */
function requests(team: string[], rounds: number): DecideRequest[] {
  const t = GOLDEN_TEXTS;
  const candidates = [t.emoji, t.combiningMarks, t.cjk];
  const round = Math.min(3, rounds);
  // Answers for the agreement of a policy that decides more than edges: the first two agree, a third has none.
  const answers = Object.fromEntries(team.map((agent, k) => [agent, k < 2 ? 'B' : k === 2 ? null : 'A']));
  return team.map((recipient) => ({
    question: { text: t.ascii, tokens: 120 },
    round,
    recipient,
    responses: Object.fromEntries(team.map((agent, k) => [agent, { text: candidates[k % candidates.length], tokens: 90 + 40 * k }])),
    accepted: round >= 3 ? [{ text: t.casingAndSpaces, tokens: 57 }] : [],
    answers,
  }));
}

/** float32 values as JSON numbers: the shortest decimal of each reads back to the same float32. */
const numbers = (v: Float32Array) => Array.from(v);

export async function goldenVectors(policy: DeployedPolicy, encoder: Encoder): Promise<Golden> {
  const named = Object.entries(GOLDEN_TEXTS);
  const vectors = await encoder.encode(named.map(([, text]) => text));
  const bof = /^bof-\d+$/.test(encoder.id);
  const decisions = [];
  const { shape } = policy.artifact;
  for (const request of requests(policy.artifact.team, shape.rounds)) {
    // Edges in order; then, where the policy makes them, the recipient's revise decision and the debate's stop decision.
    const made = [
      ...(await policy.explain(request)),
      ...(shape.decisions !== 'edges' ? [await policy.explainRevise(request)] : []),
      ...(shape.decisions === 'edges+revise+stop' ? [await policy.explainStop(request)] : []),
    ];
    const rows = made.map(({ agent, p, keep, inputs: x }) => ({
      agent,
      query: numbers(x.query),
      behavior: numbers(x.behavior),
      candidate: numbers(x.candidate),
      own: x.own,
      source: x.source,
      round: x.round,
      current: x.current,
      turn: x.turn,
      ...(x.source_row && { source_row: numbers(x.source_row) }),
      ...(x.recipient_row && { recipient_row: numbers(x.recipient_row) }),
      ...(x.kind !== undefined && { kind: x.kind, agree: x.agree }),
      keep_probability: p,
      keep,
    }));
    decisions.push({ request, rows });
  }
  return {
    format: 'cpp-golden',
    version: 1,
    encoder: encoder.id,
    texts: named.map(([name, text], i) => ({ name, text, ...(bof && { words: words(text) }), vector: numbers(vectors[i]) })),
    decisions,
  };
}
