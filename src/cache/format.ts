// The response-cache format, version 1. One JSON object a line in `<cache>/cache.jsonl`; the line's
// `type` says what it is. docs/cache-format.md documents every field for users who
// write caches from their own recorded debates; keep the two in step.
import { z } from 'zod';
import { ANSWER_TYPES } from '../answer.ts';

export const CACHE_FORMAT = 'cpp-debate-cache';
export const CACHE_VERSION = 1;
export const SPLITS = ['train', 'validation', 'test'] as const;
export type Split = (typeof SPLITS)[number];

const id = z.string().min(1, 'must be a non-empty id');
const tokens = z.number().int().nonnegative();
/** A price per token: at most 1000 (a billion per million tokens, far above any model), so that sums of costs stay finite numbers. */
export const MAX_PRICE = 1000;
const price = z.number().nonnegative().max(MAX_PRICE, `must be at most ${MAX_PRICE} per token (prices are per token, not per million)`);
/** Free-form producer data (simulator latents, import provenance); the environment never reads it. */
const meta = z.looseObject({}).optional(); // (a loose object checks faster than a record)
/**
 * Set when the text states two answers that disagree (a boxed answer and a later "the answer is",
 * two options named at its end): each reading, in text order (null: one that denies any answer).
 * `answer` is then null: an ambiguous read is counted, never guessed.
 */
const ambiguous = z.array(z.string().nullable()).min(2, 'lists the readings that disagree: at least two').optional();
/**
 * Set when the stated answer and the value the text settles on at its end disagree, or the stated
 * answer is an unevaluated expression the settled value does not confirm (docs/import.md, "How
 * answers are read"): [stated, settled] (null: the settled reading found none). `answer` is then null.
 */
const disagreement = z.tuple([z.string(), z.string().nullable()]).optional();

export const HeaderRecord = z.strictObject({
  type: z.literal('cache'),
  format: z.literal(CACHE_FORMAT),
  version: z.literal(CACHE_VERSION),
  name: z.string(),
  /** `simulator` caches carry the world config, so the simulator can serve the `record` tier. */
  source: z.enum(['simulator', 'recorded', 'imported']),
  simulator: z.looseObject({}).optional(),
  meta,
});

export const AgentRecord = z.strictObject({
  type: z.literal('agent'),
  id,
  model: z.string().min(1),
  /** Price per input token and per output token, in one currency for the whole cache. */
  priceIn: price,
  priceOut: price,
  meta,
});

export const QuestionRecord = z.strictObject({
  type: z.literal('question'),
  id,
  text: z.string().min(1),
  gold: z.string({ error: 'gold answer missing' }).min(1, 'gold answer missing'),
  benchmark: z.string().min(1),
  answerType: z.enum(ANSWER_TYPES),
  split: z.enum(SPLITS),
  /** Tokens of the prompt without any peer response: instructions plus the question. */
  promptTokens: tokens,
  meta,
});

export const ResponseRecord = z.strictObject({
  type: z.literal('response'),
  id,
  question: id,
  agent: id,
  round: z.number().int().min(1),
  /** Index among independent samples of the same (question, agent, round, context). */
  sample: z.number().int().nonnegative(),
  /**
   * Ids of what was in this response's prompt, same question: responses of the previous round (the
   * agent's own included when it was shown), responses of this round from other agents (protocols
   * that show agents one after another), and `external` and `summary` entries.
   */
  context: z.array(id),
  /** Id of this agent's own previous-round response in the same debate, shown or not; null in round 1. */
  prev: id.nullable(),
  /**
   * Speaking position in its round (0 first), set by an import that recorded the debate's protocol:
   * who answered each round and in what order; with `context` (what each one read), the protocol the
   * recorded-protocol replay follows (docs/cache-format.md). A context entry from this round is from
   * an earlier turn.
   */
  turn: z.number().int().nonnegative().optional(),
  text: z.string(),
  /** The answer as parsed from `text`, before benchmark normalization; null when none was found. */
  answer: z.string().nullable(),
  ambiguous,
  disagreement,
  inTokens: tokens,
  outTokens: tokens,
  meta,
});

/**
 * A solution shown to an agent that is not a response of this cache (in imported debates: one from
 * an agent dropped from the recorded team). Kept so that a response's context loses nothing; the
 * environment never offers it as a candidate.
 */
export const ExternalRecord = z.strictObject({
  type: z.literal('external'),
  id,
  question: id,
  text: z.string(),
  /** The answer as parsed from `text`, before benchmark normalization; null when none was found. */
  answer: z.string().nullable(),
  ambiguous,
  disagreement,
  tokens,
  meta,
});

/**
 * A text of its own shown in a prompt in place of responses, e.g. a summary of the other agents'
 * answers (debate setups that send summaries instead of verbatim responses). Like an external
 * entry it is never a candidate, and a context that holds one is never rebuilt by a replay; its
 * tokens are part of the recorded `inTokens` of every response whose context lists it.
 */
export const SummaryRecord = z.strictObject({
  type: z.literal('summary'),
  id,
  question: id,
  text: z.string(),
  /** Ids of the responses it summarizes (same question), when known: provenance, checked but never replayed. */
  of: z.array(id).optional(),
  /** The answer the summary states as its conclusion, parsed, before normalization; null when it states none (or several). */
  answer: z.string().nullable(),
  ambiguous,
  disagreement,
  tokens,
  meta,
});

export const CacheLine = z.discriminatedUnion('type', [HeaderRecord, AgentRecord, QuestionRecord, ResponseRecord, ExternalRecord, SummaryRecord]);

export type HeaderRecord = z.infer<typeof HeaderRecord>;
export type AgentRecord = z.infer<typeof AgentRecord>;
export type QuestionRecord = z.infer<typeof QuestionRecord>;
export type ResponseRecord = z.infer<typeof ResponseRecord>;
export type ExternalRecord = z.infer<typeof ExternalRecord>;
export type SummaryRecord = z.infer<typeof SummaryRecord>;
export type CacheLine = z.infer<typeof CacheLine>;

export const CACHE_FILE = 'cache.jsonl';
/** A simulator fitted to the cache's records (`cache fit`, src/sim/fitted.ts): the live endpoint of a recorded cache. */
export const FIT_FILE = 'simulator-fit.json';
export const EMBEDDINGS_DIR = 'embeddings';
