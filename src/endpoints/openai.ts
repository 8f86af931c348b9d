// One agent's OpenAI-compatible chat-completions endpoint, through the official `openai` client:
// the Du-style chat of the request (prompt.ts), the team's shared limiter, retries and cap, the
// request's Idempotency-Key, token counts from the reply's `usage` (the tokenizer when it has
// none), and the stated answer read from the reply. The API key is read from the environment
// variable the team file names and is cut out of every error message.
import type OpenAI from 'openai';
import type { ChatCompletionCreateParamsNonStreaming } from 'openai/resources/chat/completions';
import { z } from 'zod';
import { answerTo } from '../answer.ts';
import { tokenCounter } from '../cache/tokens.ts';
import type { Endpoint, EndpointReply, EndpointRequest } from '../env/endpoint.ts';
import type { Budget } from './budget.ts';
import type { Limiter } from './limiter.ts';
import { requestIds, requestKey } from '../env/requestKey.ts';
import { chatMessages } from './prompt.ts';
import { MalformedReplyError, withRetries, type RetryCounts } from './retry.ts';
import { promptsFor, type RetrySettings, type TeamAgent } from './team.ts';
import { redacted, SettingsError, UserError } from '../io/errors.ts';

/** What every agent of a team shares: calls in flight, retry settings and counts, the cap. */
export interface TeamShared {
  limiter: Limiter;
  retry: RetrySettings;
  retries: RetryCounts;
  budget: Budget;
}

const Completion = z.looseObject({
  model: z.string().optional(),
  choices: z.array(z.looseObject({ message: z.looseObject({ content: z.string().nullable() }), finish_reason: z.string().nullish() })).min(1),
  usage: z.looseObject({ prompt_tokens: z.number().int().nonnegative(), completion_tokens: z.number().int().nonnegative() }).nullish(),
  /** Producer data `serve` adds (the simulator's latents), kept in the response's meta. */
  cpp_meta: z.looseObject({}).optional(),
});

function parseCompletion(body: unknown): z.infer<typeof Completion> {
  const parsed = Completion.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new MalformedReplyError(`malformed chat completion: ${issue.path.join('.') || 'body'}: ${issue.message}`);
  }
  return parsed.data;
}

/** `text` with every occurrence of `secret` cut out. */
export const redact = (text: string, secret: string) => (secret ? text.split(secret).join('[key]') : text);

export function openaiEndpoint(agentId: string, agent: TeamAgent, shared: TeamShared, where: string, env: NodeJS.ProcessEnv = process.env): Endpoint {
  const { baseURL, model, keyEnv, temperature, maxTokens, maxTokensField, timeoutS, encoding } = agent.endpoint;
  const key = env[keyEnv];
  if (!key) throw new SettingsError(`${where}: agents.${agentId}.endpoint.keyEnv: environment variable ${keyEnv} is not set (it must hold the API key)`);
  const name = `agent '${agentId}' (${model} at ${baseURL})`;
  // The client (the `openai` package, about 150 modules) is made at the first call: loading a team
  // file, or a command that never calls, does not load it. organization and project are given so
  // the client reads no other OPENAI_* variable.
  let client: Promise<OpenAI> | undefined;
  const connect = async () => {
    const { default: OpenAIClient } = await import('openai');
    return new OpenAIClient({ apiKey: key, baseURL, maxRetries: 0, timeout: timeoutS * 1000, organization: null, project: null });
  };
  const count = tokenCounter(encoding);
  const [priceIn, priceOut] = [agent.price.in / 1e6, agent.price.out / 1e6];
  const describe = (e: unknown) => redact(`${name}: ${e instanceof Error ? e.message : String(e)}`, key);

  /** The chat of a request, and the worst case its call reserves under the cap (prompt tokens in, maxTokens out). */
  const prepare = (req: EndpointRequest) => {
    if (req.agent.id !== agentId) throw new Error(`${name} was asked for agent '${req.agent.id}'`);
    const messages = chatMessages(promptsFor(agent, req.question.answerType), req);
    return {
      messages,
      worstUsd: count(messages) * priceIn + maxTokens * priceOut,
      what: `a call of ${name} (question '${req.question.id}', round ${req.round})`,
    };
  };

  return {
    name,
    refuses(req) {
      const { worstUsd, what } = prepare(req);
      return shared.budget.refusal(worstUsd, what);
    },
    async respond(req: EndpointRequest): Promise<EndpointReply> {
      const { messages, worstUsd, what } = prepare(req);
      const body: ChatCompletionCreateParamsNonStreaming = {
        model,
        messages,
        temperature,
        [maxTokensField]: maxTokens,
        // Sample k > 0 of the same prompt: a seed of its own (OpenAI, vLLM and `serve` read it).
        ...(req.sample > 0 && { seed: req.sample }),
      };
      const idempotencyKey = req.idempotencyKey ?? requestKey(requestIds(req));
      const reservation = shared.budget.reserve(worstUsd, what);
      try {
        client ??= connect();
        const openai = await client;
        const completion = await shared.limiter.run(() =>
          withRetries(
            async () => parseCompletion(await openai.chat.completions.create(body, { headers: { 'Idempotency-Key': idempotencyKey } })),
            shared.retry,
            shared.retries,
            describe,
          ),
        );
        const choice = completion.choices[0];
        const content = choice.message.content;
        if (content === null) throw new UserError(describe(`the reply has no message text (finish_reason ${choice.finish_reason ?? 'none'})`));
        const text = redact(content, key); // a server that echoes the key must not get it into the cache
        const inTokens = completion.usage?.prompt_tokens ?? count(messages);
        const outTokens = completion.usage?.completion_tokens ?? count(text);
        shared.budget.settle(reservation, inTokens * priceIn + outTokens * priceOut, inTokens, outTokens);
        const read = answerTo(text, req.question);
        return {
          text,
          answer: read.answer,
          ...(read.ambiguous && { ambiguous: read.ambiguous }),
          inTokens,
          outTokens,
          meta: {
            model: completion.model ?? model,
            ...(choice.finish_reason && choice.finish_reason !== 'stop' && { finishReason: choice.finish_reason }),
            ...(!completion.usage && { tokens: `counted with ${encoding}` }),
            ...completion.cpp_meta,
          },
        };
      } catch (e) {
        shared.budget.release(reservation);
        throw redacted(e, (text) => redact(text, key));
      }
    },
  };
}
