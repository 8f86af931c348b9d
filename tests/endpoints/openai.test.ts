// The OpenAI-compatible endpoint through the official client against servers on 127.0.0.1:
// `serve` with faults injected, and small purpose-built servers for timeouts and key handling.
import { mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Cache, Response } from '../../src/cache/types.ts';
import { tokenCounter } from '../../src/cache/tokens.ts';
import { BudgetExceededError } from '../../src/endpoints/budget.ts';
import { round1Messages } from '../../src/endpoints/prompt.ts';
import { NO_FAULTS, serveSimulator, type Outcome } from '../../src/endpoints/simServer.ts';
import { DU_PROMPTS } from '../../src/endpoints/team.ts';
import { loadTeamEndpoints } from '../../src/endpoints/teamEndpoints.ts';
import type { EndpointRequest } from '../../src/env/endpoint.ts';
import { essence, inProcess, KEY, KEY_ENV, requestOf, worldCache, writeTeam } from '../fixtures/endpoints.ts';

const env = { [KEY_ENV]: KEY };
let cache: Cache;

/** The request that produced a cache response (its context, previous response and sample). */
const requestOfCache = (r: Response): EndpointRequest => requestOf(cache, r);

beforeAll(() => {
  cache = worldCache();
});

describe('openai endpoint against serve with faults', () => {
  it('completes 100 requests through 20% 429, 5% 500, dropped connections and ' +
    'malformed bodies, each paid once, as the in-process simulator answers', async () => {
    const attempts: { key: string | null; at: number; outcome: Outcome }[] = [];
    const retryAfterS = 0.3;
    const server = await serveSimulator(cache, {
      ...NO_FAULTS,
      port: 0,
      key: KEY,
      rate429: 0.2,
      retryAfterS,
      rate500: 0.05,
      rateDrop: 0.05,
      rateMalformed: 0.03,
      seed: 3,
      onAttempt: (a) => attempts.push(a),
    });
    try {
      const dir = mkdtempSync(join(tmpdir(), 'cpp-openai-'));
      // baseDelayMs 1: a retry that waited retryAfterS can only have honoured Retry-After.
      const team = loadTeamEndpoints(
        writeTeam(dir, cache, server.url, { concurrency: 8, retry: { maxRetries: 12, baseDelayMs: 1, maxDelayMs: 20 } }),
        cache,
        {},
        env,
      );
      // 10 later round-1 samples (the seed carries the sample) and 90 revisions under recorded contexts.
      const round1 = cache.responses
        .filter((r) => r.round === 1 && r.sample > 0)
        .filter((_, k) => k % 17 === 0)
        .slice(0, 10);
      const revisions = cache.responses.filter((r) => r.round > 1).slice(0, 90);
      const requests = [...round1, ...revisions].map(requestOfCache);
      expect(requests).toHaveLength(100);
      const simulator = inProcess(cache);
      const replies = await Promise.all(requests.map((r) => team.respond(r)));
      for (const [k, req] of requests.entries()) expect(essence(replies[k])).toEqual(essence(await simulator(req)));

      const s = server.stats;
      expect(s.paid).toBe(100); // a retry after a drop or a malformed body is replayed, not paid again
      expect(s.rateLimited).toBeGreaterThan(0);
      expect(s.serverErrors).toBeGreaterThan(0);
      expect(s.dropped).toBeGreaterThan(0);
      const { retries, budget } = team.stats();
      expect(retries.retries).toEqual({ 'rate-limit': s.rateLimited, server: s.serverErrors, timeout: 0, connection: s.dropped, malformed: s.malformed });
      expect(retries.attempts).toBe(s.attempts);
      expect(budget.calls).toBe(100);
      expect(budget.inTokens).toBe(replies.reduce((n, r) => n + r.inTokens, 0));

      // Every retry after a 429 came at least Retry-After later.
      const gaps = attempts.flatMap((a, i) => {
        if (a.outcome !== 'rate-limited') return [];
        const next = attempts.slice(i + 1).find((b) => b.key === a.key);
        return next ? [next.at - a.at] : [];
      });
      expect(gaps.length).toBe(s.rateLimited);
      expect(Math.min(...gaps)).toBeGreaterThanOrEqual(retryAfterS * 1000 - 5);
    } finally {
      await server.close();
    }
  }, 120_000);

  it('refuses the call past the call cap, and says so', async () => {
    const server = await serveSimulator(cache, { ...NO_FAULTS, port: 0 });
    try {
      const team = loadTeamEndpoints(writeTeam(mkdtempSync(join(tmpdir(), 'cpp-openai-')), cache, server.url, { budget: { maxCalls: 5 } }), cache, {}, env);
      const requests = cache.responses
        .filter((r) => r.round === 2)
        .slice(0, 8)
        .map(requestOfCache);
      const outcomes = [];
      for (const r of requests)
        outcomes.push(
          await team.respond(r).then(
            () => 'ok',
            (e: Error) => e,
          ),
        );
      expect(outcomes.slice(0, 5)).toEqual(['ok', 'ok', 'ok', 'ok', 'ok']);
      expect(outcomes[5]).toBeInstanceOf(BudgetExceededError);
      expect((outcomes[5] as Error).message).toMatch(/call cap reached: .* 5 of at most 5 calls made/);
      expect(server.stats.paid).toBe(5);
      expect(team.stats().budget).toMatchObject({ calls: 5, maxCalls: 5, refused: 3, inFlight: 0 });
    } finally {
      await server.close();
    }
  }, 300_000);

  it('refuses a call whose worst case could pass the dollar cap; spending stays under it', async () => {
    const server = await serveSimulator(cache, { ...NO_FAULTS, port: 0 });
    try {
      const maxUsd = 0.3;
      const team = loadTeamEndpoints(writeTeam(mkdtempSync(join(tmpdir(), 'cpp-openai-')), cache, server.url, { budget: { maxUsd } }), cache, {}, env);
      const requests = cache.responses.filter((r) => r.round === 2).map(requestOfCache);
      let spent = 0;
      let refusal: Error | undefined;
      for (const r of requests) {
        try {
          const reply = await team.respond(r);
          const a = r.agent;
          spent += reply.inTokens * a.priceIn + reply.outTokens * a.priceOut;
        } catch (e) {
          refusal = e as Error;
          break;
        }
      }
      expect(refusal).toBeInstanceOf(BudgetExceededError);
      expect(refusal!.message).toMatch(/dollar cap reached: .* could cost up to \$[\d.]+, and \$[\d.]+ is spent .* of the \$0\.3000 cap/);
      const state = team.stats().budget;
      expect(state.usd).toBeCloseTo(spent, 10);
      expect(state.usd).toBeLessThanOrEqual(maxUsd);
      expect(state.calls).toBe(server.stats.paid);
      expect(state.calls).toBeGreaterThan(3);
    } finally {
      await server.close();
    }
  }, 300_000);
});

/** A one-route server on 127.0.0.1 for cases `serve` does not produce. */
async function tinyServer(
  handle: (body: { key: string | null; auth: string }, reply: (status: number, body: unknown) => void) => void,
): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () =>
      handle({ key: (req.headers['idempotency-key'] as string) ?? null, auth: req.headers.authorization ?? '' }, (status, body) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, server };
}

const completion = (text: string) => ({
  id: 'x',
  object: 'chat.completion',
  created: 0,
  model: 'm',
  choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
});

describe('openai endpoint: timeouts, usage and keys', () => {
  const request = (): EndpointRequest => ({ cache, question: cache.questions[0], agent: cache.agents[0], round: 1, context: [], prev: null, sample: 0 });
  const dir = () => mkdtempSync(join(tmpdir(), 'cpp-openai-'));

  it('retries an attempt that times out, and counts tokens with the tokenizer when the reply has no usage', async () => {
    const seen = new Set<string | null>();
    const { url, server } = await tinyServer(({ key }, reply) => {
      const first = !seen.has(key);
      seen.add(key);
      // The first request's reply comes late and says another answer: taken only if the timeout failed to abandon it.
      setTimeout(() => reply(200, completion(first ? 'Too late. The answer is (C).' : 'I think so. The answer is (B).')), first ? 3000 : 0);
    });
    try {
      const team = loadTeamEndpoints(writeTeam(dir(), cache, url, { retry: { baseDelayMs: 1 } }, { timeoutS: 0.5 }), cache, {}, env);
      const reply = await team.respond(request());
      expect(seen.size).toBe(1); // one request, asked twice (no wall-clock bound: the reply says which attempt answered)
      const count = tokenCounter('o200k_base');
      expect(reply).toMatchObject({ text: 'I think so. The answer is (B).', answer: 'B', meta: { tokens: 'counted with o200k_base' } });
      expect(reply.outTokens).toBe(count(reply.text));
      expect(reply.inTokens).toBe(count(round1Messages(DU_PROMPTS.mcq, cache.questions[0].text)));
      expect(team.stats().retries.retries.timeout).toBe(1);
      expect(team.stats().budget.inTokens).toBe(reply.inTokens);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  }, 300_000);

  it('reads the key from the named environment variable and keeps it out of every error and reply', async () => {
    const { url, server } = await tinyServer(({ auth }, reply) =>
      auth.endsWith('please-echo')
        ? reply(200, completion(`Your header was ${auth}. The answer is (A).`))
        : reply(400, { error: { message: `malformed request from ${auth}` } }),
    );
    try {
      const file = writeTeam(dir(), cache, url);
      expect(() => loadTeamEndpoints(file, cache, {}, {})).toThrow(`agents.${cache.agents[0].id}.endpoint.keyEnv: environment variable ${KEY_ENV} is not set`);
      const team = loadTeamEndpoints(file, cache, {}, env);
      const error = await team.respond(request()).catch((e: Error) => e);
      expect(error).toBeInstanceOf(Error);
      expect((error as Error).message).toContain('malformed request from Bearer [key]');
      expect((error as Error).message).not.toContain(KEY);
      expect(team.stats().retries.attempts).toBe(1); // a 400 is not retried
      const echoKey = `${KEY}-please-echo`;
      const echoed = await loadTeamEndpoints(file, cache, {}, { [KEY_ENV]: echoKey }).respond(request());
      expect(echoed.text).toBe('Your header was Bearer [key]. The answer is (A).');
    } finally {
      server.closeAllConnections();
      server.close();
    }
  }, 300_000);

  it('a wrong key is refused by serve (401) and not retried', async () => {
    const server = await serveSimulator(cache, { ...NO_FAULTS, port: 0, key: KEY });
    try {
      const team = loadTeamEndpoints(writeTeam(dir(), cache, server.url), cache, {}, { [KEY_ENV]: 'sk-wrong-key-123456' });
      await expect(team.respond(request())).rejects.toThrow(/401 Incorrect API key provided/);
      expect(server.stats).toMatchObject({ attempts: 1, rejected: 1, paid: 0 });
      expect(team.stats().budget).toMatchObject({ calls: 1, usd: 0, inFlight: 0, reservedUsd: 0 });
    } finally {
      await server.close();
    }
  }, 300_000);
});
