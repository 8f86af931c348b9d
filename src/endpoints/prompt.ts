// The chat an agent is sent, Du-style (Du et al.'s debate code, also the layout `cache import
// --format du` reads): the agent's own earlier turns in this debate are its chat history (the
// round-1 prompt, its answer, each revision prompt, its answer, ...), and a revision prompt lists
// the responses it is shown as "One agent solution: ```...```" blocks. The agent remembers its own
// previous answer through its history; keeping its own edge shows that answer again among the
// solutions (the simulator's "shown again"). So the prompt carries everything a reply depends on:
// question, round (one assistant turn per earlier round), the shown responses, and its previous
// response (the last assistant turn); `serve` reads them back from it.
import type { Cache, Response } from '../cache/types.ts';
import type { EndpointRequest } from '../env/endpoint.ts';
import type { Prompts } from './team.ts';
import { InputError } from '../io/errors.ts';

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/** A template with its placeholders filled in one pass (a filled-in text is never read as a template). */
export const fill = (template: string, values: Record<string, string>) =>
  template.replace(/\{(question|solutions|text)\}/g, (whole, name: string) => values[name] ?? whole);

/** Texts of what a response's prompt showed, in the order shown (responses and external solutions). */
function shownTexts(cache: Cache, ids: string[]): string[] {
  return ids.map((id) => {
    const r = cache.responseIndex.get(id);
    if (r !== undefined) return cache.responses[r].text;
    const e = cache.externalIndex.get(id);
    if (e === undefined) throw new InputError(`cache ${cache.file}: unknown response, external or summary id '${id}' in a context`);
    return cache.externals[e].text;
  });
}

/** The round-1 chat: the system message, if any, and the question. */
export const round1Messages = (p: Prompts, question: string): ChatMessage[] => [
  ...(p.system ? [{ role: 'system' as const, content: p.system }] : []),
  { role: 'user', content: fill(p.round1, { question }) },
];

export function chatMessages(p: Prompts, req: EndpointRequest): ChatMessage[] {
  const { cache, question } = req;
  const revision = (shown: string[]) =>
    shown.length
      ? fill(p.revision, { question: question.text, solutions: shown.map((text) => fill(p.solution, { text })).join('') })
      : fill(p.reflect, { question: question.text });
  // The agent's own turns before this one, oldest first.
  const turns: Response[] = [];
  for (let r = req.prev; r; r = r.prevIndex >= 0 ? cache.responses[r.prevIndex] : null) turns.unshift(r);
  if (turns.length !== req.round - 1)
    throw new Error(
      `agent '${req.agent.id}', question '${question.id}', round ${req.round}: the ` +
        `chat history needs the agent's own responses of rounds 1..${req.round - 1}, ` +
        `found ${turns.length} through 'prev'`,
    );
  const messages = round1Messages(p, question.text);
  turns.forEach((turn, k) => {
    if (k > 0) messages.push({ role: 'user', content: revision(shownTexts(cache, turn.context)) });
    messages.push({ role: 'assistant', content: turn.text });
  });
  if (req.round > 1) messages.push({ role: 'user', content: revision(req.context.map((r) => r.text)) });
  return messages;
}
