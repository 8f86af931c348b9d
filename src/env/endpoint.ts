// A live model endpoint: what the `record` tier (docs/method.md §3, tier 4) asks when the cache holds no
// response for a context. Implementations: the simulator behind a simulated cache, and any
// OpenAI-compatible chat-completions server (vLLM, llama.cpp, Ollama, commercial APIs).
import type { Agent, Cache, External, Question, Response } from '../cache/types.ts';
import { RefusedError } from '../io/errors.ts';

export interface EndpointRequest {
  cache: Cache;
  question: Question;
  /** The agent asked (its id selects the endpoint and prompt templates of a team file). */
  agent: Agent;
  /** 1 = independent answer; t >= 2 revises after reading the context. */
  round: number;
  /**
   * What the agent is shown, in the order shown (own previous response included when kept): under
   * synchronous rounds responses; under the recorded protocol also earlier speakers' answers of this
   * round and the external texts its recorded prompt showed, in the log's order (protocol.ts).
   */
  context: Shown[];
  /** The agent's own previous response in this debate, shown or not; null in round 1. */
  prev: Response | null;
  /** Index among independent samples of the same request. */
  sample: number;
  /**
   * requestKey(requestIds(request)) (requestKey.ts): the record tier sets it (it is also the key of
   * the call's intent line); an endpoint that sends idempotency keys (header Idempotency-Key) sends
   * it, or the same key derived from the request when unset, so that a server that honours it does
   * not charge again for a request asked twice.
   */
  idempotencyKey?: string;
}

/** A shown entry of a request's context: a response of the cache, or an external text (recorded protocol). */
export type Shown = Response | External;

export const isResponse = (s: Shown): s is Response => 'agent' in s;

/** Tokens of a shown entry (a response's completion, an external text's). */
export const shownEntryTokens = (s: Shown): number => (isResponse(s) ? s.outTokens : s.tokens);

export interface EndpointReply {
  text: string;
  /** The answer as parsed from `text` (before normalization); null when none was found. */
  answer: string | null;
  /** The readings that disagree, when the text states two (the cache format's `ambiguous`). */
  ambiguous?: (string | null)[];
  /** Prompt and completion tokens as the endpoint counted them (the tokenizer's count when it gives none). */
  inTokens: number;
  outTokens: number;
  /** Producer data kept in the record's `meta` (e.g. simulator latents, the endpoint's model name). */
  meta?: Record<string, unknown>;
}

/** What a response record keeps of a reply (the record tier's journal and a live debate's cache write the same fields). */
export const replyFields = (reply: EndpointReply) => ({
  text: reply.text,
  answer: reply.answer,
  ...(reply.ambiguous && { ambiguous: reply.ambiguous }),
  inTokens: reply.inTokens,
  outTokens: reply.outTokens,
  ...(reply.meta && { meta: reply.meta }),
});

export interface Endpoint {
  /** Shown in reports and errors; never holds a key. */
  readonly name: string;
  respond(request: EndpointRequest): Promise<EndpointReply>;
  /**
   * Why this call would be refused now at the endpoint's cap (dollars or calls), or null. Asked
   * right before a call is journaled and sent, so that a call refused at the cap leaves no intent;
   * an endpoint without caps leaves it out.
   */
  refuses?(request: EndpointRequest): string | null;
}

/** A call refused at an endpoint's cap: the record tier stops cleanly, keeping what it received. */
export class EndpointCapReached extends RefusedError {}
