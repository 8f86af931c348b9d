// The misread audit (`cache audit`) and the ambiguous reads and disagreeing readings of the parse
// report (`cache stats`, the import report), on a hand-made cache with one planted misread, one
// ambiguous read and one reply whose two readings disagree.
import { describe, expect, it } from 'vitest';
import { auditCache, auditReport } from '../../src/cache/audit.ts';
import type { CacheLine } from '../../src/cache/format.ts';
import { cacheFromRecords } from '../../src/cache/load.ts';
import { parseReport } from '../../src/cache/parseReport.ts';

const response = (id: string, agent: string, text: string, answer: string | null, ambiguous?: string[], disagreement?: [string, string | null]): CacheLine => ({
  type: 'response',
  id,
  question: id.slice(0, 2),
  agent,
  round: 1,
  sample: 0,
  context: [],
  prev: null,
  text,
  answer,
  ...(ambiguous && { ambiguous }),
  ...(disagreement && { disagreement }),
  inTokens: 20,
  outTokens: 20,
});

const cache = cacheFromRecords(
  [
    { type: 'cache', format: 'cpp-debate-cache', version: 1, name: 'audit', source: 'recorded' },
    { type: 'agent', id: 'a1', model: 'm', priceIn: 1e-6, priceOut: 1e-6 },
    { type: 'agent', id: 'a2', model: 'm', priceIn: 1e-6, priceOut: 1e-6 },
    ...['q1', 'q2', 'q3'].map(
      (id): CacheLine => ({
        type: 'question',
        id,
        text: 'Capital of Australia? A) Sydney, B) Melbourne, C) Canberra, D) Perth',
        gold: 'C',
        benchmark: 'hand',
        answerType: 'mcq',
        split: 'test',
        promptTokens: 10,
      }),
    ),
    response('q1a1', 'a1', 'Canberra was built as the capital. The answer is (C).', 'C'),
    // Planted: a reader took (B) from the start; the reply ends on Canberra.
    response('q2a1', 'a1', 'Agent 2 said (B), Melbourne. Sydney was too large. A new city was planned. It became the capital: Canberra.', 'B'),
    response('q1a2', 'a2', 'It is Canberra, the seat of government.', 'C'),
    response('q2a2', 'a2', 'Melbourne was first, so the answer is $\\boxed{B}$. Today it is Canberra, so the answer is (C).', null, ['B', 'C']),
    // The stated answer and the option the reply settles on disagree: stored as none, both kept.
    response('q3a1', 'a1', 'The answer is (B). Canberra, however, is where parliament sits, so it fits best.', null, undefined, ['B', 'C']),
  ],
  'audit.jsonl',
);

describe('the misread audit', () => {
  it('lists, per agent, the replies whose stored answer is not in the closing sentences (option letter or text)', () => {
    const audits = auditCache(cache);
    expect(audits.map((a) => [a.agent, a.answered, a.suspects.map((r) => r.id)])).toEqual([
      ['a1', 2, ['q2a1']],
      ['a2', 1, []], // "Canberra" is option C's text; the ambiguous read stores no answer to audit
    ]);
    const text = auditReport(cache, { limit: 10 });
    expect(text).toContain('a1: 1 of 2 responses with an answer (50.0%)');
    expect(text).toContain("q2a1: stored 'B'; it closes: \"");
    expect(text).toContain('a2: 0 of 1 responses with an answer (0.0%)');
    expect(audits.map((a) => a.disagreed.map((r) => r.id))).toEqual([['q3a1'], []]);
    expect(text).toContain('a1: 1 responses stored with no answer because the two readings disagreed (stated | settled)');
    expect(text).toContain("q3a1: 'B' | 'C'; it closes: \"");
    expect(text).toContain('a2: 0 responses stored with no answer because the two readings disagreed');
  });

  it('keeps to one agent with --agent, lists at most --limit, and refuses an agent the cache lacks', () => {
    expect(auditReport(cache, { agent: 'a2', limit: 10 })).not.toContain('a1:');
    expect(auditReport(cache, { agent: 'a1', limit: 0 })).toContain('... and 1 more (--limit 1 lists them all)');
    expect(() => auditReport(cache, { agent: 'a9', limit: 10 })).toThrow("--agent: unknown agent 'a9' (cache audit.jsonl has a1, a2)");
  });
});

describe('ambiguous reads in the parse report', () => {
  it('are counted per agent and round, apart from the unparsed, with their readings', () => {
    const text = parseReport(cache);
    expect(text).toContain('Ambiguous reads (two answers that disagree, stored as no answer; docs/import.md, "How answers are read"): 1 responses');
    expect(text).toMatch(/\| a2 +\| 50\.0% \(1\/2\) +\|/);
    expect(text).toContain("q2a2: 'B' | 'C': \"");
    expect(text).toContain('Unparsed responses: none');
  });

  it('are told apart, per agent, from the read and from the two readings that disagree, with a sample of those', () => {
    const text = parseReport(cache);
    expect(text).toContain('refused because the stated answer and the value the reply settles on disagree: 1 responses');
    expect(text).toMatch(/\| a1 +\| 66\.7% \(2\/3\) +\| 0\.0% \(0\/3\) +\| 33\.3% \(1\/3\) +\|/);
    expect(text).toMatch(/\| a2 +\| 50\.0% \(1\/2\) +\| 50\.0% \(1\/2\) +\| 0\.0% \(0\/2\) +\|/);
    expect(text).toContain("q3a1: 'B' | 'C': \"");
  });
});
