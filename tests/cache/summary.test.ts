// Summary contexts: a prompt that showed a text of its own (a summary of the other agents' answers)
// instead of their verbatim responses. The hand-built cache of tests/fixtures/handCache.ts plus one summary
// on q1 ("two agents answered B") and a round-2 response of a1 that was shown its own answer and
// that summary.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CacheLine, SummaryRecord } from '../../src/cache/format.ts';
import { CacheError } from '../../src/cache/types.ts';
import { cacheFilePath, cacheFromRecords, loadCache } from '../../src/cache/load.ts';
import { validateCache } from '../../src/cache/validate.ts';
import { saveCache } from '../../src/cache/write.ts';
import { finishDebate, keepOwn, replay, startDebate, stepRound } from '../../src/env/debate.ts';
import { makeEnvironment } from '../../src/env/environment.ts';
import { exactKey, signatureKey } from '../../src/env/lookupIndex.ts';
import { FEATURES, modelInputs } from '../../src/env/responseModel.ts';
import { revisions } from '../../src/env/responseModelFit.ts';
import { handRecords, response } from '../fixtures/handCache.ts';

const SUMMARY: SummaryRecord = {
  type: 'summary',
  id: 'q1sum',
  question: 'q1',
  text: 'Two of the other agents answered B; none answered A.',
  of: ['q1a2', 'q1a3'],
  answer: 'B',
  tokens: 8,
};
// a1 was shown its own round-1 answer (5 tokens) and the summary (8) after the 10-token prompt.
const SHOWN = { ...response('q1s1', 'q1', 'a1', 2, 'B', 6, ['q1a1', 'q1sum'], 'q1a1'), inTokens: 10 + 5 + 8 };
const records = (summary: SummaryRecord = SUMMARY, shown = SHOWN): CacheLine[] => [...handRecords(), summary, shown];

function rejected(recs: CacheLine[]): string[] {
  try {
    cacheFromRecords(recs, 'summary.jsonl');
  } catch (e) {
    expect(e).toBeInstanceOf(CacheError);
    return (e as CacheError).problems.map((p) => `${p.line}|${p.field}|${p.message}`);
  }
  throw new Error('expected the cache to be rejected');
}

describe('summary entries in a context', () => {
  it('load as context entries of their own, with a parsed answer; their `of` must name responses to the same question', () => {
    const cache = cacheFromRecords(records());
    const r = cache.responses[cache.responseIndex.get('q1s1')!];
    expect(r.ctx.map((c) => cache.responses[c].id)).toEqual(['q1a1']);
    expect(r.ext.map((e) => cache.externals[e].id)).toEqual(['q1sum']);
    const s = cache.externals[r.ext[0]];
    expect([s.type, s.tokens, cache.answerKeys[s.ans]]).toEqual(['summary', 8, 'B']);
    const line = handRecords().length + 1;
    expect(rejected(records({ ...SUMMARY, of: ['q1a2', 'q9'] }))).toEqual([`${line}|of.1|unknown response id 'q9'`]);
    expect(rejected(records({ ...SUMMARY, of: ['q2a1'] }))).toEqual([`${line}|of.0|response 'q2a1' answers another question (q2)`]);
    expect(rejected(records({ ...SUMMARY, question: 'q2' }))).toEqual([
      `${line}|of.0|response 'q1a2' answers another question (q1)`,
      `${line}|of.1|response 'q1a3' answers another question (q1)`,
      `${line + 1}|context.1|summary 'q1sum' belongs to another question (q2)`,
    ]);
    expect(rejected([...records(), { ...SUMMARY, text: 'again' }])).toEqual([`${line + 2}|id|duplicate summary id 'q1sum' (first on line ${line})`]);
  });

  it('are written back as they were read (cache compact, save)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cpp-summary-'));
    saveCache(dir, cacheFromRecords(records()));
    const lines = readFileSync(cacheFilePath(dir), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.find((l) => l.id === 'q1sum')).toEqual(SUMMARY);
    expect(loadCache(dir).externals.map((e) => e.id)).toEqual(['q1sum']);
  });

  it('a context with a summary is never an exact hit of synchronous rounds; its signature and the response model count the summary as an external peer', () => {
    const cache = cacheFromRecords(records());
    const env = makeEnvironment(cache, { rounds: 2, miss: 'error' });
    const index = cache.responseIndex.get('q1s1')!;
    const [a1, A] = [cache.agentIndex.get('a1')!, cache.agents.length];
    const key = (s: string) => cache.answerIndex.get(s)!;
    // The replay's "own only" context of a1 is [q1a1]: the recorded one showed the summary too.
    expect(env.exact.get(exactKey(0, a1, 2, cache.responseIndex.get('q1a1')!, [cache.responseIndex.get('q1a1')!]))!.map((i) => cache.responses[i].id)).toEqual([
      'q1o1',
    ]);
    // Its exact key holds the summary, which only the recorded protocol shows (src/env/protocol.ts): synchronous rounds never ask it.
    const r = cache.responses[index];
    expect(r.ext.length).toBe(1);
    expect([...env.exact].filter(([, v]) => v.includes(index)).map(([k]) => k)).toEqual([exactKey(0, a1, 2, r.prevIndex, r.ctx, r.ext)]);
    expect(env.signature.get(signatureKey(0, a1, 2, [a1, A], [key('A'), key('B')]))).toEqual([index]);
    const [revision] = revisions(
      cache,
      modelInputs(cache, 0.5, () => true),
      (r) => r.id === 'q1s1',
    );
    const b = revision.outcomes.answers.indexOf(key('B'));
    expect(revision.outcomes.features[b][FEATURES.indexOf('peers')]).toBe(1); // one peer (the summary) said B
  });

  it('replay prices a call with the recorded inTokens only where the response was recorded with exactly that context', () => {
    const cache = cacheFromRecords(records());
    const env = makeEnvironment(cache, { rounds: 2, miss: 'model', seed: 3 });
    // Own-only debate of q1: every lookup exact (q1o1-3), each priced from its recorded inTokens.
    const own = replay(env, 0, keepOwn);
    expect([own.tiers.exact, own.priced]).toEqual([3, { recorded: 6, computed: 0 }]);
    // a1 keeps only a2's answer: no recorded context; the tier-3 stand-in's input tokens are computed
    // (prompt 10 + a2's 3 tokens), not those of the stand-in's text source (a1's own q1o1, q1f1 or
    // q1s1: recorded with 15, 20 or 23 input tokens).
    const d = startDebate(env, 0);
    const before = d.cost;
    stepRound(env, d, {
      keep: [
        [false, true, false],
        [true, false, false],
        [true, false, false],
      ],
    });
    expect([d.tiers.model, finishDebate(env, d).priced]).toEqual([1, { recorded: 5, computed: 1 }]);
    const a1 = cache.responses[d.current[0].source];
    const others = d.cost - before - (10 + 3) * 1 - a1.outTokens * 2;
    expect(others).toBe((10 + 3) * 1 + 3 * 1 + (10 + 2) * 0.5 + 2 * 0.5); // a2, a3 own-only: recorded inTokens (prompt + own)
  });

  it('cache validate checks its answer and tokens as an external entry, and inTokens against the summary it showed', () => {
    // Written as lines, not by writeCacheRecords, which refuses what loading refuses (an answer not in its stored form).
    const dir = (recs: CacheLine[]) => {
      const d = mkdtempSync(join(tmpdir(), 'cpp-summary-'));
      writeFileSync(cacheFilePath(d), `${recs.map((r) => JSON.stringify(r)).join('\n')}\n`);
      return d;
    };
    // (the hand cache's prices are units, not per-token prices: their warnings are left out)
    const messages = (d: string) =>
      validateCache(d)
        .issues.filter((i) => !i.field.startsWith('price'))
        .map((i) => `${i.severity} ${i.field}: ${i.message}`);
    expect(messages(dir(records()))).toEqual([]);
    expect(messages(dir(records({ ...SUMMARY, answer: '**B**' })))).toEqual([
      "error answer: '**B**' does not parse as a mcq answer; store the parsed form ('B') or null",
    ]);
    expect(messages(dir(records(SUMMARY, { ...SHOWN, inTokens: 12 })))).toEqual([
      'warning inTokens: 12 is less than what its prompt held: ' +
        'promptTokens 10 + 5 outTokens of 1 context responses + 8 tokens of 1 external or summary entries = 23',
    ]);
  });
});
