// `serve` as an OpenAI-compatible server: its routes and errors, Idempotency-Key replay, and replies
// to contexts no cache holds, built from replies it served itself.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI, { NotFoundError } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Cache, Response } from '../../src/cache/types.ts';
import { appendResponse } from '../../src/cache/load.ts';
import { recordedResponseId, sameRequest } from '../../src/env/requestKey.ts';
import { NO_FAULTS, serveSimulator, type SimServer } from '../../src/endpoints/simServer.ts';
import { loadTeamEndpoints } from '../../src/endpoints/teamEndpoints.ts';
import type { EndpointRequest } from '../../src/env/endpoint.ts';
import { essence, inProcess, KEY, KEY_ENV, worldCache, writeTeam } from '../fixtures/endpoints.ts';

let cache: Cache;
let server: SimServer;

beforeAll(async () => {
  cache = worldCache(12);
  server = await serveSimulator(cache, { ...NO_FAULTS, port: 0 });
});
afterAll(() => server.close());

const post = (body: unknown, key?: string) =>
  fetch(`${server.url}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(key && { 'idempotency-key': key }) },
    body: JSON.stringify(body),
  });

describe('serve', () => {
  it('lists the agents as models and names them when a model is unknown', async () => {
    const client = new OpenAI({ apiKey: 'unused', baseURL: server.url, maxRetries: 0 });
    expect((await client.models.list()).data.map((m) => m.id)).toEqual(['atlas', 'sage', 'brisk']);
    const error = await client.chat.completions.create({ model: 'gpt-9', messages: [{ role: 'user', content: cache.questions[0].text }] }).catch((e) => e);
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error.message).toContain("The model 'gpt-9' does not exist (serve's models are the agents of <memory>: atlas, sage, brisk)");
  });

  it('rejects prompts it cannot read back, saying why', async () => {
    const question = cache.questions[0];
    const cases: [unknown, RegExp][] = [
      [{ model: 'atlas', messages: [{ role: 'user', content: 'What is the capital of France?' }] }, /the first user message holds the text of no question/],
      [
        {
          model: 'atlas',
          messages: [
            { role: 'user', content: question.text },
            { role: 'assistant', content: 'I made this up.' },
            { role: 'user', content: 'Again?' },
          ],
        },
        /the last assistant turn matches no round-1 response of agent 'atlas' to question 'q01'/,
      ],
      [{ model: 'atlas', messages: [{ role: 'assistant', content: 'Hi' }] }, /expected user and assistant turns in turn/],
      [{ model: 'atlas', messages: [{ role: 'user', content: [{ type: 'text', text: 'x' }] }] }, /messages\.0\.content: serve reads text content only/],
    ];
    for (const [body, message] of cases) {
      const res = await post(body);
      expect(res.status).toBe(400);
      expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(message);
    }
    const own = cache.responses.find((r) => r.q === 0 && r.a === 0 && r.round === 1 && r.sample === 0)!;
    const shown = await post({
      model: 'atlas',
      messages: [
        { role: 'user', content: question.text },
        { role: 'assistant', content: own.text },
        { role: 'user', content: 'One agent solution: ```Nobody said this.```' },
      ],
    });
    expect(((await shown.json()) as { error: { message: string } }).error.message).toMatch(/shown solution 1 matches no round-1 response to question 'q01'/);
  });

  it('repeats the first reply for a known Idempotency-Key without a new paid call', async () => {
    const body = { model: 'sage', messages: [{ role: 'user', content: `Question: ${cache.questions[1].text}` }], seed: 2 };
    const paid = server.stats.paid;
    const first = await (await post(body, 'key-1')).text();
    const again = await (await post(body, 'key-1')).text();
    expect(again).toBe(first);
    expect(server.stats.paid).toBe(paid + 1);
    await post(body);
    await post(body);
    expect(server.stats.paid).toBe(paid + 3); // without a key every request is a new call
    const reply = JSON.parse(first);
    const sample2 = cache.responses.find((r) => r.q === 1 && r.agent === 'sage' && r.round === 1 && r.sample === 2)!;
    expect(reply.choices[0].message.content).toBe(sample2.text); // the seed picks the sample
    expect(reply.usage).toEqual({ prompt_tokens: sample2.inTokens, completion_tokens: sample2.outTokens, total_tokens: sample2.inTokens + sample2.outTokens });
  });

  it('answers contexts no cache holds, reading replies it served itself back from later prompts', async () => {
    const client = worldCache(12); // the recording side has its own copy of the cache
    const team = loadTeamEndpoints(writeTeam(mkdtempSync(join(tmpdir(), 'cpp-serve-')), client, server.url), client, {}, { [KEY_ENV]: KEY });
    const simulator = inProcess(client);
    const q = client.questions[3];
    const first = (agent: string) => client.responses.find((r) => r.q === q.index && r.agent === agent && r.round === 1 && r.sample === 0)!;
    const ask = async (agent: string, round: number, context: Response[], prev: Response): Promise<Response> => {
      const req: EndpointRequest = { cache: client, question: q, agent: client.agents[client.agentIndex.get(agent)!], round, context, prev, sample: 0 };
      const ids = { question: q.id, agent, round, context: context.map((r) => r.id), prev: prev.id, sample: 0 };
      expect(client.responses.some((r) => sameRequest(r) === sameRequest(ids))).toBe(false); // a context the cache lacks
      const reply = await team.respond(req);
      expect(essence(reply)).toEqual(essence(await simulator(req)));
      return appendResponse(client, { type: 'response', id: recordedResponseId(ids), ...ids, ...reply });
    };
    // Round 2: atlas reads brisk only, sage reads atlas only; round 3: atlas reads both of those new replies.
    const atlas2 = await ask('atlas', 2, [first('brisk')], first('atlas'));
    const sage2 = await ask('sage', 2, [first('atlas')], first('sage'));
    await ask('atlas', 3, [atlas2, sage2], atlas2);
  }, 300_000);
});
