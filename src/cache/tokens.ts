// Token counts from a real tokenizer (gpt-tokenizer's BPE encodings), never a character estimate.
// A chat prompt is counted with the chat format's per-message overhead.
import { createRequire } from 'node:module';

export const ENCODINGS = ['cl100k_base', 'o200k_base'] as const;
export type Encoding = (typeof ENCODINGS)[number];

type Message = { role: string; content: string };
type Tokenizer = typeof import('gpt-tokenizer/encoding/cl100k_base');

// An encoding's tables take a few hundred milliseconds to load: each loads at its first count (its
// CommonJS build, which loads synchronously), so a command that counts no token never waits for them.
const require = createRequire(import.meta.url);
const loaded = new Map<Encoding, Tokenizer>();
function tokenizer(encoding: Encoding): Tokenizer {
  let t = loaded.get(encoding);
  if (!t) loaded.set(encoding, (t = require(`gpt-tokenizer/encoding/${encoding}`) as Tokenizer));
  return t;
}

/** Counter for one encoding: cl100k_base for GPT-3.5/GPT-4 logs, o200k_base for GPT-4o and later. */
export function tokenCounter(encoding: Encoding): (input: string | Message[]) => number {
  // The chat overhead per message is the same for every model of an encoding; name one of each.
  const chatModel = encoding === 'cl100k_base' ? ('gpt-3.5-turbo' as const) : ('gpt-4o' as const);
  return (input) =>
    typeof input === 'string'
      ? tokenizer(encoding).countTokens(input)
      : tokenizer(encoding).encodeChat(
          input.map((m) => ({ role: m.role as 'user', content: m.content })),
          chatModel,
        ).length;
}

/**
 * Counts of every prefix of a chat, as tokenCounter counts a chat: `counts[m]` for its first m
 * messages (the prompt before message m). The chat format encodes each message on its own (start,
 * role, separator, content, end) after the ones before it and primes the reply after the last, so
 * a prefix's count is the priming's plus each of its messages' own: every message is encoded once,
 * not once per later prompt (which made counting a long transcript's prompts quadratic).
 * `countText` counts a message's content (a caller may remember texts that recur).
 */
export function chatPrefixCounter(encoding: Encoding, countText: (text: string) => number = tokenCounter(encoding)): (chat: Message[]) => number[] {
  const count = tokenCounter(encoding);
  const priming = count([]);
  const overhead = new Map<string, number>();
  const own = (m: Message) => {
    let o = overhead.get(m.role);
    if (o === undefined) overhead.set(m.role, (o = count([{ role: m.role, content: '' }]) - priming));
    return o + countText(m.content);
  };
  return (chat) => {
    const counts = [priming];
    for (const m of chat) counts.push(counts[counts.length - 1] + own(m));
    return counts;
  };
}
