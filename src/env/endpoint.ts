// A live model endpoint: what the `record` tier (SPEC §3, tier 4) asks when the cache holds no
// response for a context. Implementations: the simulator behind a simulated cache, and any
// OpenAI-compatible chat-completions server (vLLM, llama.cpp, Ollama, commercial APIs).
import type { Agent, Cache, Question, Response } from '../cache/load.ts';

export interface EndpointRequest {
  cache: Cache;
  question: Question;
  /** The agent asked (its id selects the endpoint and prompt templates of a team file). */
  agent: Agent;
  /** 1 = independent answer; t >= 2 revises after reading the context. */
  round: number;
  /** What the agent is shown, in the order shown (own previous response included when kept). */
  context: Response[];
  /** The agent's own previous response in this debate, shown or not; null in round 1. */
  prev: Response | null;
  /** Index among independent samples of the same request. */
  sample: number;
  /**
   * Derived from everything asked (record.ts requestKey); the record tier always sets it. An
   * endpoint passes it on (OpenAI SDK: the `idempotencyKey` request option, header Idempotency-Key),
   * so a server that honours it does not charge again for a request asked twice.
   */
  idempotencyKey?: string;
}

export interface EndpointReply {
  text: string;
  /** The answer as parsed from `text` (before normalization); null when none was found. */
  answer: string | null;
  /** Prompt and completion tokens as the endpoint counted them (the tokenizer's count when it gives none). */
  inTokens: number;
  outTokens: number;
  /** Producer data kept in the record's `meta` (e.g. simulator latents, the endpoint's model name). */
  meta?: Record<string, unknown>;
}

export interface Endpoint {
  /** Shown in reports and errors; never holds a key. */
  readonly name: string;
  respond(request: EndpointRequest): Promise<EndpointReply>;
}
