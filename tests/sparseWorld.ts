// A small simulated world whose recorded debates are Full-Debate and No-communication only, so
// that most other contexts are missing and the record tier has something to ask; and its
// simulator behind an endpoint that counts the calls it is asked (by idempotency key).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadCache } from '../src/cache/load.ts';
import { writeCacheRecords } from '../src/cache/write.ts';
import type { Endpoint, EndpointRequest } from '../src/env/endpoint.ts';
import { generateWorld } from '../src/sim/generate.ts';
import { simulatorEndpoint } from '../src/sim/simulator.ts';

export function sparseWorld(questions: number, round1Samples = 1): string {
  const dir = mkdtempSync(join(tmpdir(), 'cpp-sparse-'));
  writeCacheRecords(dir, generateWorld({ questions, round1Samples, randomTrajectories: 0 }, 'sparse'));
  return dir;
}

export function countingSimulator(dir: string): Endpoint & { calls: string[] } {
  const sim = simulatorEndpoint(loadCache(dir, () => {}));
  const calls: string[] = [];
  return { name: 'counting simulator', calls, respond: (r: EndpointRequest) => (calls.push(r.idempotencyKey!), sim.respond(r)) };
}
