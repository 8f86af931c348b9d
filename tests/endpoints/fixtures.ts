// Shared by the endpoint tests: a small simulated world, team files pointing at a local server,
// and the in-process simulator endpoint that `serve` must agree with.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { normalizeAnswer } from '../../src/answer.ts';
import type { CacheLine } from '../../src/cache/format.ts';
import { cacheFromRecords, type Cache } from '../../src/cache/load.ts';
import type { EndpointReply, EndpointRequest } from '../../src/env/endpoint.ts';
import { generateWorld } from '../../src/sim/generate.ts';
import { simulatorEndpoint } from '../../src/sim/simulator.ts';

export const KEY_ENV = 'CPP_TEST_ENDPOINT_KEY';
export const KEY = 'sk-test-7f3a9c1e5b2d4f60a8e1';

export const worldRecords = (questions = 40): CacheLine[] => [...generateWorld({ questions, seed: 11 }, 'endpoint-test')];
export const worldCache = (questions = 40, file = '<memory>'): Cache => cacheFromRecords(worldRecords(questions), file);

/** A team file for every agent of `cache` at `baseURL`, at the cache's prices; `endpoint` overrides endpoint fields. */
export function writeTeam(dir: string, cache: Cache, baseURL: string, settings: Record<string, unknown> = {}, endpoint: Record<string, unknown> = {}): string {
  const agents = Object.fromEntries(
    cache.agents.map((a) => [
      a.id,
      { endpoint: { baseURL, model: a.id, keyEnv: KEY_ENV, maxTokens: 2000, timeoutS: 20, ...endpoint }, price: { in: a.priceIn * 1e6, out: a.priceOut * 1e6 } },
    ]),
  );
  const file = join(dir, 'team.json');
  writeFileSync(file, JSON.stringify({ ...settings, agents }, null, 2));
  return file;
}

/** The in-process simulator endpoint. */
export function inProcess(simCache: Cache): (req: EndpointRequest) => Promise<EndpointReply> {
  const sim = simulatorEndpoint(simCache);
  return (req) => sim.respond(req);
}

/** The fields a reply must agree on (answers compared after normalization: '(B)' is 'B'). */
export const essence = (r: Pick<EndpointReply, 'text' | 'answer' | 'inTokens' | 'outTokens'>) => ({
  text: r.text,
  answer: normalizeAnswer(r.answer, 'mcq'),
  inTokens: r.inTokens,
  outTokens: r.outTokens,
});
