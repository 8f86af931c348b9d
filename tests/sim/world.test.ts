import { describe, expect, it } from 'vitest';
import { fullDebate, noCommunication, runRule, singleAgent } from '../../eval/baselines.ts';
import { cacheFromRecords } from '../../src/cache/load.ts';
import { chunked, serializeRecords } from '../../src/cache/write.ts';
import { candidateOrder } from '../../src/env/actions.ts';
import { makeEnvironment } from '../../src/env/environment.ts';
import { newRecording } from '../../src/env/record.ts';
import { replay, keepAll } from '../../src/env/debate.ts';
import { generateWorld } from '../../src/sim/generate.ts';
import { simulatorEndpoint } from '../../src/sim/simulator.ts';

const text = (config: object) => [...chunked(serializeRecords(generateWorld(config)))].join('');

describe('simulated world', () => {
  it('the same seed gives the same cache; another seed another', () => {
    const small = { questions: 20, round1Samples: 2 };
    expect(text({ ...small, seed: 3 })).toBe(text({ ...small, seed: 3 }));
    expect(text({ ...small, seed: 4 })).not.toBe(text({ ...small, seed: 3 }));
  });

  it('is a valid cache with the configured splits, agents and recorded debates', async () => {
    const cache = cacheFromRecords([...generateWorld({ questions: 40, round1Samples: 3, adversary: true })]);
    expect(cache.header.source).toBe('simulator');
    expect(cache.agents.map((a) => a.id)).toEqual(['atlas', 'sage', 'brisk', 'mallory']);
    expect(cache.questions.filter((q) => q.split === 'train').length).toBe(20);
    expect(cache.questions.filter((q) => q.split === 'validation').length).toBe(10);
    expect(cache.responses.filter((r) => r.round === 1).length).toBe(40 * 4 * 3);
    // Full-Debate and No-communication are recorded for every question: exact hits only.
    const env = makeEnvironment(cache, { miss: 'error' });
    expect((await fullDebate(env, cache.questions)).tiers.exact).toBe(40 * 4 * 2);
    expect((await noCommunication(env, cache.questions)).tiers.exact).toBe(40 * 4 * 2);
    // The adversary always argues for a wrong answer.
    expect(cache.responses.filter((r) => r.agent === 'mallory').every((r) => !r.correct)).toBe(true);
  });

  it('texts carry subject, reasoning quality and the stated answer', () => {
    const cache = cacheFromRecords([...generateWorld({ questions: 30, round1Samples: 1 })]);
    for (const r of cache.responses) {
      const subject = (cache.questions[r.q].meta as { subject: string }).subject;
      expect(r.text).toContain(subject);
      expect(r.text.endsWith(`The answer is (${r.answer}).`)).toBe(true);
    }
    const careful = (t: string) => /carefully|rigorously|verifying|confirms|step by step|careful check/.test(t);
    const right = cache.responses.filter((r) => r.correct);
    const wrong = cache.responses.filter((r) => !r.correct);
    const share = (rs: typeof right) => rs.filter((r) => careful(r.text)).length / rs.length;
    expect(share(right)).toBeGreaterThan(share(wrong) + 0.2);
  });

  it('the simulator endpoint answers like the recorded cache for a recorded context', async () => {
    const cache = cacheFromRecords([...generateWorld({ questions: 10, round1Samples: 1 })]);
    const endpoint = simulatorEndpoint(cache);
    for (const r of cache.responses.filter((x) => x.round > 1).slice(0, 20)) {
      const reply = await endpoint.respond({ cache, question: cache.questions[r.q], agent: cache.agents[r.a], round: r.round, context: r.ctx.map((c) => cache.responses[c]), prev: r.prevIndex >= 0 ? cache.responses[r.prevIndex] : null, sample: r.sample });
      expect(reply).toEqual({ text: r.text, answer: r.answer, inTokens: r.inTokens, outTokens: r.outTokens, meta: r.meta });
    }
  });

  it('makes pruning matter: debate beats single agents, and keeping only right answers beats Full-Debate at lower cost', async () => {
    const cache = cacheFromRecords([...generateWorld({ questions: 300, round1Samples: 1, randomTrajectories: 0 })]);
    const env = makeEnvironment(cache, { miss: 'record' }, newRecording(simulatorEndpoint(cache)));
    const qs = cache.questions;
    const full = await fullDebate(env, qs);
    const singles = [];
    for (const i of env.team.keys()) singles.push((await singleAgent(env, qs, i)).correct);
    const best = Math.max(...singles);
    expect(full.correct).toBeGreaterThan(best + 0.05 * qs.length);
    // An oracle pruner (it reads the gold answer) shows the headroom a learned policy can chase.
    const oracle = await runRule(env, qs, 'oracle', (d, n) =>
      Array.from({ length: n }, (_, i) => candidateOrder(n, i).map((c) => d.current[c].ans === cache.questions[d.q].goldKey)),
    );
    expect(oracle.correct).toBeGreaterThan(full.correct + 0.05 * qs.length);
    expect(oracle.cost).toBeLessThan(full.cost);
    expect(oracle.tiers.record).toBeGreaterThan(0);
    expect(replay(env, 0, keepAll).tiers.record).toBe(0); // recorded debates are exact hits
    expect(env.recording!.recorded.length).toBe(env.recording!.spent.calls); // each context asked once
  });
});
