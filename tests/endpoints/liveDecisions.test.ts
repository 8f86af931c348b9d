// Live `debate` with a policy that decides who revises and when the debate stops, against the
// project's simulator server (`serve`, on 127.0.0.1): a skipped call is never asked of the endpoint,
// and a stopped debate makes no call after round 1.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Cache } from '../../src/cache/types.ts';
import { loadCache } from '../../src/cache/load.ts';
import { writeCacheRecords } from '../../src/cache/write.ts';
import { liveDebate } from '../../src/endpoints/liveDebate.ts';
import { NO_FAULTS, serveSimulator } from '../../src/endpoints/simServer.ts';
import { exportPolicy } from '../../src/policy/export.ts';
import { initWeights, type PolicyShape } from '../../src/policy/model.ts';
import { zeroMoments } from '../../src/policy/engine.ts';
import { KEY, KEY_ENV, worldRecords, writeTeam } from '../fixtures/endpoints.ts';
import { untrainedCheckpoint } from '../fixtures/untrainedPolicy.ts';

let dir: string;
let sim: Cache;

let questions: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'cpp-live-decide-'));
  writeCacheRecords(join(dir, 'sim'), worldRecords(24));
  sim = loadCache(join(dir, 'sim'));
  // New question ids: nothing of the simulator's cache is reused, every response is a call.
  questions = join(dir, 'questions.jsonl');
  const picked = sim.questions.filter((q) => q.split === 'test').slice(0, 4);
  writeFileSync(questions, picked.map((q) => JSON.stringify({ id: `new-${q.id}`, text: q.text, gold: q.gold, answerType: 'mcq' })).join('\n') + '\n');
});

/** An exported policy whose revise and stop heads ignore z: revise iff agree > 1/2 (in the majority), stop iff `stop`. */
async function policyFile(name: string, stop: boolean): Promise<string> {
  const c = untrainedCheckpoint(
    sim.agents.map((a) => a.id),
    'live-decisions',
    { cache: join(dir, 'sim'), seed: 0 },
  );
  const shape: PolicyShape = { ...c.shape, decisions: 'edges+revise+stop' };
  const w = initWeights(shape, 'live-decisions');
  w['reviseHead.w'].data.fill(0);
  w['reviseHead.agree'].data[0] = 40;
  w['reviseHead.b'].data[0] = -20;
  w['stopHead.w'].data.fill(0);
  w['stopHead.b'].data[0] = stop ? 20 : -20;
  return (await exportPolicy({ ...c, shape, engine: { weights: w, step: 0, m: zeroMoments(w), v: zeroMoments(w) } }, join(dir, name))).policy;
}

async function debate(policy: string, out: string) {
  const server = await serveSimulator(sim, { ...NO_FAULTS, port: 0, key: KEY });
  try {
    const summary = await liveDebate({
      team: writeTeam(dir, sim, server.url),
      policy,
      out,
      questions: { file: questions },
      rounds: 3,
      sample: 0,
      caps: {},
      print: () => {},
      env: { [KEY_ENV]: KEY },
    });
    return { summary, attempts: server.stats.attempts, paid: server.stats.paid };
  } finally {
    await server.close();
  }
}

describe('live debate with revise and stop decisions', () => {
  it('a member that keeps its answer is never asked: only the members in the majority revise, and the server sees their calls alone', async () => {
    const out = join(dir, 'revise');
    const { summary, attempts, paid } = await debate(await policyFile('revise', false), out);
    const cache = loadCache(out);
    let expected = 0;
    for (const r of summary.results) {
      expect(r.stoppedAfter).toBeUndefined();
      for (let t = 2; t <= 3; t++) {
        const before = r.responses[t - 2].map((x) => x.ans);
        const inMajority = before.map((a) => a >= 0 && before.filter((b) => b === a).length * 2 > before.length);
        expect(r.revised[t - 2]).toEqual(inMajority);
        // A member that kept its answer carries its response; no response of it is recorded for the round.
        r.revised[t - 2].forEach((revised, i) => revised || expect(r.responses[t - 1][i]).toBe(r.responses[t - 2][i]));
        const recorded = cache.responses.filter((x) => cache.questions[x.q].id === r.question.id && x.round === t).map((x) => x.agent);
        expect(recorded.sort()).toEqual(
          sim.agents
            .map((a) => a.id)
            .filter((_, i) => inMajority[i])
            .sort(),
        );
        expected += inMajority.filter(Boolean).length;
      }
    }
    expect(expected).toBeGreaterThan(0);
    expect(expected).toBeLessThan(4 * 3 * 2); // some member kept its answer
    expect(paid).toBe(4 * 3 + expected);
    expect(attempts).toBe(paid); // no faults: every request the server saw is a call the policy made
  });

  it('a stopped debate makes no call after round 1: its cost is its round-1 calls', async () => {
    const out = join(dir, 'stop');
    const { summary, paid } = await debate(await policyFile('stop', true), out);
    expect(summary.results.map((r) => r.stoppedAfter)).toEqual([1, 1, 1, 1]);
    expect(paid).toBe(4 * 3);
    expect(summary.results.every((r) => r.paid === 3 && r.responses.length === 1)).toBe(true);
    expect(loadCache(out).responses.every((x) => x.round === 1)).toBe(true);
  });
});
