// Every recorded debate in its split under the recorded protocol (src/env/environment.ts
// splitQuestions, src/env/debate.ts startDebate): a debate the log stopped before a member spoke is
// replayed as recorded: that member has no answer, makes no call, and the majority is over those
// who answered. On the DyLAN MATH fixtures, team a1,a2,a3.
import { describe, expect, it } from 'vitest';
import { fullDebate, singleAgent } from '../../eval/baselines.ts';
import { importDu } from '../../src/cache/importDu.ts';
import { cacheFromRecords } from '../../src/cache/load.ts';
import { majority, replay, keepAll } from '../../src/env/debate.ts';
import { makeEnvironment, splitQuestions } from '../../src/env/environment.ts';
import { dylanMathFiles } from '../fixtures/dylanMath.ts';
import { mathImport } from '../fixtures/duLayout.ts';

describe('the recorded protocol keeps every debate of the log in its split', () => {
  const cache = cacheFromRecords(importDu(dylanMathFiles(), mathImport).records, 'dylan-math');
  const A = cache.agents.length;
  const settings = { agents: ['a1', 'a2', 'a3'], rounds: 2 };

  it('the test split holds all 140 questions some member answered; synchronous rounds keep the 106 every member answered', async () => {
    const recorded = makeEnvironment(cache, { ...settings, protocol: 'recorded' });
    const sync = makeEnvironment(cache, settings);
    expect(splitQuestions(recorded, 'test')).toMatchObject({ skipped: 0 });
    expect(splitQuestions(recorded, 'test').questions).toHaveLength(140);
    expect(splitQuestions(sync, 'test').questions).toHaveLength(106);
    const early = splitQuestions(recorded, 'test').questions.filter((q) => !recorded.team.every((a) => recorded.round1.has(q.index * A + a)));
    expect(early).toHaveLength(34);
    for (const q of early) {
      const r = replay(recorded, q.index, keepAll);
      const spoke = recorded.team.map((a) => cache.responses.find((x) => x.q === q.index && x.a === a && x.round === 1 && x.sample === 0));
      // The log's answers as recorded, -1 for a member that never spoke; no revision the log lacks.
      expect(r.answers[0], q.id).toEqual(spoke.map((x) => x?.ans ?? -1));
      expect(r.final, q.id).toBe(majority(r.answers[1], 'lowest-agent', () => 0));
      expect(r.calls, q.id).toBe(spoke.filter(Boolean).length + r.tiers.exact);
      expect(r.tiers.exact + r.tiers.signature + r.tiers.model, q.id).toBe(r.tiers.exact);
      expect(r.cost, q.id).toBeGreaterThan(0);
    }
    // Full-Debate over all 140 prices only calls made, every one from the exact tier; an absent member alone answers nothing.
    const { questions } = splitQuestions(recorded, 'test');
    const full = await fullDebate(recorded, questions);
    expect(full.questions).toBe(140);
    expect([full.tiers.signature, full.tiers.model, full.priced.computed]).toEqual([0, 0, 0]);
    const single = await singleAgent(recorded, questions, 2);
    expect(single.calls).toBe(questions.length - early.filter((q) => !recorded.round1.has(q.index * A + recorded.team[2])).length);
  });
});
