// The team file: which live endpoint answers for each agent, with what prompts and at what price,
// and the limits every call of the team shares (concurrency, retries, caps). docs/recording.md's "Live
// endpoints" section documents every field; cache/example/team.json is a working example (it
// points at `serve`). API keys are never in this file: `keyEnv` names the environment variable
// that holds one.
import { z } from 'zod';
import { ANSWER_TYPES } from '../answer.ts';
import { ModelPrice } from '../cache/importDu.ts';
import { ENCODINGS } from '../cache/tokens.ts';
import { readJsonFile } from '../io/jsonFile.ts';

export const Endpoint = z.strictObject({
  /** Base URL of an OpenAI-compatible API, e.g. https://api.openai.com/v1 or http://127.0.0.1:8000/v1. */
  baseURL: z.url(),
  /** Model name sent with each request (for `serve`: the agent id). */
  model: z.string().min(1),
  /** Name of the environment variable that holds the API key (the key itself never goes in a file). */
  keyEnv: z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be the name of an environment variable (letters, digits, _), never the key itself')
    .max(100, 'must be the name of an environment variable, never the key itself'),
  temperature: z.number().min(0).max(2).default(1),
  /** Completion tokens at most; also the worst case the dollar cap reserves for a call. */
  maxTokens: z.number().int().positive(),
  /** The request field that carries maxTokens: newer OpenAI models take only max_completion_tokens. */
  maxTokensField: z.enum(['max_tokens', 'max_completion_tokens']).default('max_tokens'),
  /** Seconds one attempt may take before it is abandoned and retried. */
  timeoutS: z.number().positive().default(120),
  /** Tokenizer for prompts and replies when the API reports no `usage`, and for the cap's estimate. */
  encoding: z.enum(ENCODINGS).default('o200k_base'),
});
export type Endpoint = z.infer<typeof Endpoint>;

/**
 * Prompt templates. Placeholders: {question} (round1, revision, reflect), {solutions} (revision:
 * the shown responses, each rendered with `solution`), {text} (solution). Missing templates take the
 * Du-style defaults of the question's answer type (DU_PROMPTS).
 */
export const Prompts = z.strictObject({
  system: z.string().nullable().optional(),
  round1: z.string().includes('{question}', { message: 'must contain {question}' }).optional(),
  revision: z.string().includes('{solutions}', { message: 'must contain {solutions}' }).optional(),
  reflect: z.string().optional(),
  solution: z.string().includes('{text}', { message: 'must contain {text}' }).optional(),
});
export type Prompts = Required<z.infer<typeof Prompts>>;

export const TeamAgent = z.strictObject({
  endpoint: Endpoint,
  prompts: Prompts.default({}),
  /** Price per million input and output tokens (as in a `--prices` file). */
  price: ModelPrice,
});
export type TeamAgent = z.infer<typeof TeamAgent>;

export const RetrySettings = z.strictObject({
  /** Retries after the first request of a call (429, 408, 409, 5xx, timeouts, dropped connections, malformed replies). */
  maxRetries: z.number().int().nonnegative().default(6),
  /** Backoff before retry k (k = 0, 1, ...): min(maxDelayMs, baseDelayMs * 2^k), less up to 25% jitter. */
  baseDelayMs: z.number().nonnegative().default(500),
  maxDelayMs: z.number().nonnegative().default(30_000),
  /** A server's Retry-After is honoured as given up to this many seconds; a longer one fails the call. */
  maxRetryAfterS: z.number().nonnegative().default(120),
});
export type RetrySettings = z.infer<typeof RetrySettings>;

export const Caps = z.strictObject({
  /** Dollars the team may spend, at `price`; a call that could pass it is refused. null: no cap. */
  maxUsd: z.number().nonnegative().nullable().default(null),
  /** Calls the team may make; null: no cap. */
  maxCalls: z.number().int().nonnegative().nullable().default(null),
});
export type Caps = z.infer<typeof Caps>;

export const TeamFile = z.strictObject({
  /** Calls in flight at once, over every agent of the team. */
  concurrency: z.number().int().positive().default(4),
  retry: RetrySettings.default(RetrySettings.parse({})),
  budget: Caps.default(Caps.parse({})),
  /** Agent id -> endpoint, prompts and price. Ids are the cache's agent ids. */
  agents: z.record(z.string().min(1), TeamAgent).refine((a) => Object.keys(a).length > 0, 'names no agent'),
});
export type TeamFile = z.infer<typeof TeamFile>;

export const loadTeamFile = (file: string): TeamFile => readJsonFile(file, TeamFile);

const ANSWER_FORM: Record<(typeof ANSWER_TYPES)[number], string> = {
  mcq: 'Put your answer in the form (X) at the end of your response.',
  numeric: 'Your final answer should be a single number, in the form \\boxed{answer}, at the end of your response.',
  math: 'Put your final answer in the form \\boxed{answer} at the end of your response.',
};

/** Du et al.'s debate prompts (their MMLU / GSM / MATH wording), per answer type. */
export const DU_PROMPTS = Object.fromEntries(
  ANSWER_TYPES.map((type) => [
    type,
    {
      system: null,
      round1: `Can you answer the following question as accurately as possible? {question} Explain your answer. ${ANSWER_FORM[type]}`,
      revision:
        `These are the solutions to the problem from other agents: {solutions}\n\n Using the reasoning from other agents as additional ` +
        `advice, can you give an updated answer? Examine your solution and that of other agents step by step. ${ANSWER_FORM[type]}`,
      reflect: `Can you double check that your answer is correct? ${ANSWER_FORM[type]}`,
      solution: '\n\n One agent solution: ```{text}```',
    },
  ]),
) as Record<(typeof ANSWER_TYPES)[number], { system: string | null; round1: string; revision: string; reflect: string; solution: string }>;

/** An agent's templates for a question of this answer type: its own, else the Du-style defaults. */
export function promptsFor(agent: TeamAgent, answerType: (typeof ANSWER_TYPES)[number]): Prompts {
  const d = DU_PROMPTS[answerType];
  const p = agent.prompts;
  return {
    system: p.system === undefined ? d.system : p.system,
    round1: p.round1 ?? d.round1,
    revision: p.revision ?? d.revision,
    reflect: p.reflect ?? d.reflect,
    solution: p.solution ?? d.solution,
  };
}
