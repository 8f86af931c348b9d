// Token counts from a real tokenizer (gpt-tokenizer's BPE encodings), never a character estimate.
// A chat prompt is counted with the chat format's per-message overhead.
import * as cl100k from 'gpt-tokenizer/encoding/cl100k_base';
import * as o200k from 'gpt-tokenizer/encoding/o200k_base';

export const ENCODINGS = ['cl100k_base', 'o200k_base'] as const;
export type Encoding = (typeof ENCODINGS)[number];

type Message = { role: string; content: string };

/** Counter for one encoding: cl100k_base for GPT-3.5/GPT-4 logs, o200k_base for GPT-4o and later. */
export function tokenCounter(encoding: Encoding): (input: string | Message[]) => number {
  // The chat overhead per message is the same for every model of an encoding; name one of each.
  const [tokenizer, chatModel] = encoding === 'cl100k_base' ? [cl100k, 'gpt-3.5-turbo' as const] : [o200k, 'gpt-4o' as const];
  return (input) =>
    typeof input === 'string'
      ? tokenizer.countTokens(input)
      : tokenizer.encodeChat(
          input.map((m) => ({ role: m.role as 'user', content: m.content })),
          chatModel,
        ).length;
}
