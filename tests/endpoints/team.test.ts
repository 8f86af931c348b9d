// Team files, the Du-style chat, the shared limiter and the retry rules, without a server.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { APIConnectionError, APIError, RateLimitError } from 'openai';
import { describe, expect, it } from 'vitest';
import { limiter } from '../../src/endpoints/limiter.ts';
import { chatMessages } from '../../src/endpoints/prompt.ts';
import { backoffMs, retryAfterMs, retryCause, MalformedReplyError } from '../../src/endpoints/retry.ts';
import { DU_PROMPTS, promptsFor, RetrySettings, TeamAgent } from '../../src/endpoints/team.ts';
import { loadTeamEndpoints } from '../../src/endpoints/teamEndpoints.ts';
import { KEY, KEY_ENV, worldCache, writeTeam } from '../fixtures/endpoints.ts';

const cache = worldCache(4);
const env = { [KEY_ENV]: KEY };

describe('team file', () => {
  const dir = () => mkdtempSync(join(tmpdir(), 'cpp-team-'));
  const write = (team: unknown) => {
    const file = join(dir(), 'team.json');
    writeFileSync(file, JSON.stringify(team));
    return file;
  };
  const agent = (over: Record<string, unknown> = {}) => ({
    endpoint: { baseURL: 'http://127.0.0.1:9/v1', model: 'm', keyEnv: KEY_ENV, maxTokens: 100, ...over },
    price: { in: 10, out: 30 },
  });

  it('names the file and field of every problem, and never echoes a key put where its variable name belongs', () => {
    const file = write({
      agents: { atlas: agent({ keyEnv: 'sk-proj-abc123', maxTokens: undefined }), sage: { ...agent(), prompts: { revision: 'no placeholder' } } },
    });
    const error = (() => {
      try {
        loadTeamEndpoints(file, cache, {}, env);
      } catch (e) {
        return (e as Error).message;
      }
    })()!;
    expect(error).toContain(`${file}: agents.atlas.endpoint.keyEnv: must be the name of an environment variable`);
    expect(error).toContain(`${file}: agents.atlas.endpoint.maxTokens:`);
    expect(error).toContain(`${file}: agents.sage.prompts.revision: must contain {solutions}`);
    expect(error).not.toContain('sk-proj-abc123');
  });

  it('requires every agent to be in the cache, at the cache’s prices', () => {
    const file = write({ agents: { atlas: agent(), sage: agent(), mallory: agent() } });
    expect(() => loadTeamEndpoints(file, cache, {}, env)).toThrow(
      `${file}: agents.sage.price: 10 / 30 per million tokens, but cache <memory> prices 'sage' at 1 / 3`,
    );
    expect(() => loadTeamEndpoints(file, cache, {}, env)).toThrow(`${file}: agents.mallory: no agent 'mallory' in cache <memory> (it has atlas, sage, brisk)`);
    const fine = loadTeamEndpoints(writeTeam(dir(), cache, 'http://127.0.0.1:9/v1', { budget: { maxUsd: 3 } }), cache, { maxCalls: 7 }, env);
    expect(fine.stats().budget).toMatchObject({ maxUsd: 3, maxCalls: 7, calls: 0 });
  });

  it('the README example (cache/example/team.json) fits the default world', () => {
    const example = loadTeamEndpoints(resolve(import.meta.dirname, '../../cache/example/team.json'), cache, {}, { CPP_SERVE_KEY: 'local-demo-key' });
    expect(Object.keys(example.team.agents)).toEqual(['atlas', 'sage', 'brisk']);
    expect(example.stats().budget).toMatchObject({ maxUsd: 2, maxCalls: 2000 });
  });
});

describe('Du-style chat', () => {
  const r = (id: string) => cache.responses[cache.responseIndex.get(id)!];

  it('holds the agent’s own turns as history and the shown responses as solution blocks', () => {
    // A round-3 response recorded under Full-Debate: its round-2 turn read all three round-1 answers.
    const third = cache.responses.find((x) => x.round === 3 && x.q === 0 && x.a === 0 && x.context.length === 3)!;
    const second = cache.responses[third.prevIndex];
    const first = cache.responses[second.prevIndex];
    const question = cache.questions[0];
    const p = promptsFor(
      TeamAgent.parse({
        endpoint: { baseURL: 'http://127.0.0.1:9/v1', model: 'm', keyEnv: 'K', maxTokens: 9 },
        price: { in: 0, out: 0 },
        prompts: { system: 'Debate well.' },
      }),
      'mcq',
    );
    const shown = [r(third.context[1]), r(third.context[2])];
    const messages = chatMessages(p, { cache, question, agent: cache.agents[0], round: 3, context: shown, prev: second, sample: 0 });
    const block = (id: string) => `\n\n One agent solution: \`\`\`${r(id).text}\`\`\``;
    expect(messages).toEqual([
      { role: 'system', content: 'Debate well.' },
      {
        role: 'user',
        content:
          `Can you answer the following question as accurately as possible? ${question.text} ` +
          `Explain your answer. Put your answer in the form (X) at the end of your response.`,
      },
      { role: 'assistant', content: first.text },
      { role: 'user', content: DU_PROMPTS.mcq.revision.replace('{solutions}', second.context.map(block).join('')) },
      { role: 'assistant', content: second.text },
      { role: 'user', content: DU_PROMPTS.mcq.revision.replace('{solutions}', third.context.slice(1).map(block).join('')) },
    ]);
    const alone = chatMessages(p, { cache, question, agent: cache.agents[0], round: 3, context: [], prev: second, sample: 0 });
    expect(alone.at(-1)).toEqual({ role: 'user', content: DU_PROMPTS.mcq.reflect });
    expect(() => chatMessages(p, { cache, question, agent: cache.agents[0], round: 2, context: [], prev: null, sample: 0 })).toThrow(
      /the chat history needs the agent's own responses of rounds 1..1, found 0/,
    );
  });

  it('fills templates in one pass: a text holding a placeholder stays as written', () => {
    const p = { ...DU_PROMPTS.math, round1: 'Q: {question}' };
    const question = { ...cache.questions[0], text: 'What is {solutions} here?' };
    expect(chatMessages(p, { cache, question, agent: cache.agents[0], round: 1, context: [], prev: null, sample: 0 })).toEqual([
      { role: 'user', content: 'Q: What is {solutions} here?' },
    ]);
  });
});

describe('limiter and retry rules', () => {
  it('never runs more than its bound at once and runs every task', async () => {
    const limit = limiter(3);
    let running = 0;
    let most = 0;
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, k) =>
        limit.run(async () => {
          most = Math.max(most, ++running);
          await new Promise((r) => setTimeout(r, 1 + (k % 4)));
          running--;
          return k;
        }),
      ),
    );
    expect(results).toEqual(Array.from({ length: 20 }, (_, k) => k));
    expect(most).toBe(3);
    expect(limit.active).toBe(0);
  });

  it('retries rate limits, server errors, dropped connections and malformed replies, and nothing else', () => {
    const status = (s: number) => APIError.generate(s, { message: 'x' }, undefined, new Headers());
    expect(retryCause(status(429))).toBe('rate-limit');
    expect([500, 502, 503, 408, 409].map((s) => retryCause(status(s)))).toEqual(['server', 'server', 'server', 'server', 'server']);
    expect([400, 401, 403, 404, 422].map((s) => retryCause(status(s)))).toEqual([null, null, null, null, null]);
    expect(retryCause(new APIConnectionError({ message: 'reset' }))).toBe('connection');
    expect(retryCause(new MalformedReplyError('x'))).toBe('malformed');
    expect(retryCause(new SyntaxError('Unexpected end of JSON input'))).toBe('malformed');
    expect(retryCause(new Error('something else'))).toBe(null);
  });

  it('reads Retry-After in seconds, as a date, or retry-after-ms; backs off exponentially up to its bound otherwise', () => {
    const limited = (headers: Record<string, string>) => new RateLimitError(429, {}, 'slow down', new Headers(headers));
    expect(retryAfterMs(limited({ 'retry-after': '2' }))).toBe(2000);
    expect(retryAfterMs(limited({ 'retry-after': '0.25' }))).toBe(250);
    expect(retryAfterMs(limited({ 'retry-after-ms': '40', 'retry-after': '2' }))).toBe(40);
    expect(retryAfterMs(limited({ 'retry-after': new Date(Date.UTC(2030, 0, 1, 0, 0, 5)).toUTCString() }), Date.UTC(2030, 0, 1))).toBe(5000);
    expect(retryAfterMs(limited({}))).toBe(null);
    const s = RetrySettings.parse({ baseDelayMs: 100, maxDelayMs: 1000 });
    expect([0, 1, 2, 3, 4, 5].map((k) => backoffMs(s, k, () => 0))).toEqual([100, 200, 400, 800, 1000, 1000]);
    expect(backoffMs(s, 1, () => 1)).toBe(150); // jitter takes off at most 25%
  });
});
