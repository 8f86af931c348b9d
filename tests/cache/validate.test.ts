import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CacheLine } from '../../src/cache/format.ts';
import { cacheFilePath } from '../../src/cache/load.ts';
import { formatIssue, validateCache } from '../../src/cache/validate.ts';

// A small recorded cache with real-looking prices, texts and token counts (cl100k_base counts).
const TEXT_C = 'Canberra was purpose-built as the capital of Australia. The answer is (C).';
const TEXT_B = 'Melbourne hosted Parliament until 1927. The answer is (B).';
function records(): CacheLine[] {
  return [
    { type: 'cache', format: 'cpp-debate-cache', version: 1, name: 'v', source: 'recorded' },
    { type: 'agent', id: 'a1', model: 'gpt-4o', priceIn: 2.5e-6, priceOut: 1e-5 },
    { type: 'agent', id: 'a2', model: 'gpt-4o-mini', priceIn: 1.5e-7, priceOut: 6e-7 },
    {
      type: 'question',
      id: 'q1',
      text: 'Which city is the capital of Australia? (A) Sydney (B) Melbourne (C) Canberra (D) Perth',
      gold: 'C',
      benchmark: 'mmlu',
      answerType: 'mcq',
      split: 'test',
      promptTokens: 30,
    },
    {
      type: 'question',
      id: 'q2',
      text: 'What is $\\frac{1}{4} + \\frac{1}{4}$?',
      gold: '\\frac{1}{2}',
      benchmark: 'MATH',
      answerType: 'math',
      split: 'test',
      promptTokens: 20,
    },
    {
      type: 'response',
      id: 'q1.a1.r1',
      question: 'q1',
      agent: 'a1',
      round: 1,
      sample: 0,
      context: [],
      prev: null,
      text: TEXT_C,
      answer: 'C',
      inTokens: 30,
      outTokens: 17,
    },
    {
      type: 'response',
      id: 'q1.a2.r1',
      question: 'q1',
      agent: 'a2',
      round: 1,
      sample: 0,
      context: [],
      prev: null,
      text: TEXT_B,
      answer: 'B',
      inTokens: 30,
      outTokens: 14,
    },
    {
      type: 'response',
      id: 'q1.a2.r2',
      question: 'q1',
      agent: 'a2',
      round: 2,
      sample: 0,
      context: ['q1.a2.r1', 'q1.a1.r1'],
      prev: 'q1.a2.r1',
      text: TEXT_C,
      answer: 'C',
      inTokens: 61,
      outTokens: 17,
    },
    {
      type: 'response',
      id: 'q2.a1.r1',
      question: 'q2',
      agent: 'a1',
      round: 1,
      sample: 0,
      context: [],
      prev: null,
      text: 'Adding the quarters gives $\\boxed{0.5}$.',
      answer: 'x = \\frac{1}{2}',
      inTokens: 20,
      outTokens: 12,
    },
  ];
}

function dirOf(edit: (recs: CacheLine[]) => void = () => {}): string {
  const recs = records();
  edit(recs);
  const dir = mkdtempSync(join(tmpdir(), 'cpp-validate-'));
  writeFileSync(cacheFilePath(dir), recs.map((r) => JSON.stringify(r)).join('\n') + '\n');
  return dir;
}
const at = (recs: CacheLine[], id: string) => recs.find((r) => 'id' in r && r.id === id) as Record<string, unknown>;
const issuesOf = (dir: string) => validateCache(dir).issues.map((i) => `${i.severity} ${i.line} ${i.field}: ${i.message}`);

describe('cache validate', () => {
  it('finds nothing in a clean cache (an answer equal as mathematics to what its text states is fine)', () => {
    expect(issuesOf(dirOf())).toEqual([]);
  });

  it('an answer that does not parse under its answerType is an error naming the parsed form', () => {
    const dir = dirOf((r) => void (at(r, 'q1.a1.r1').answer = '**C**'));
    expect(issuesOf(dir)).toEqual([`error 6 answer: '**C**' does not parse as a mcq answer; store the parsed form ('C') or null`]);
    expect(formatIssue(validateCache(dir).issues[0])).toBe(
      `${cacheFilePath(dir)}:6: answer: '**C**' does not parse as a mcq answer; store the parsed form ('C') or null`,
    );
  });

  it('a price above 1e-3 per token is a warning with the figure', () => {
    const dir = dirOf((r) => void (at(r, 'a1').priceIn = 2.5));
    expect(issuesOf(dir)).toEqual([
      'warning 2 priceIn: 2.5 per token is 2,500,000 per million tokens: prices are ' +
        'per token (e.g. 2.5e-6 for $2.50 per million); is this a price per million?',
    ]);
    expect(formatIssue(validateCache(dir).issues[0])).toMatch(new RegExp(`^${cacheFilePath(dir)}:2: priceIn: warning: 2.5 per token`));
  });

  it('a context reference to a missing response is an error', () => {
    expect(issuesOf(dirOf((r) => void (at(r, 'q1.a2.r2').context = ['q1.a2.r1', 'q1.a9.r1'])))).toEqual([
      "error 8 context.1: unknown response, external or summary id 'q1.a9.r1'",
    ]);
  });

  it("a context entry of the response's own round that did not speak earlier (its turn) is a warning: the recorded protocol cannot show it", () => {
    const dir = dirOf((r) => {
      r.push({ ...(at(r, 'q1.a2.r2') as CacheLine & { type: 'response' }), id: 'q1.a1.r2', agent: 'a1', context: ['q1.a1.r1'], prev: 'q1.a1.r1', turn: 1 });
      Object.assign(at(r, 'q1.a2.r2'), { context: ['q1.a2.r1', 'q1.a1.r1', 'q1.a1.r2'], inTokens: 200, turn: 0 });
    });
    expect(issuesOf(dir)).toEqual([
      "warning 8 context.2: response 'q1.a1.r2' of the same round spoke at turn 1, not before this one's 0: the recorded protocol " +
        '(--protocol recorded) cannot show it, and replays this revision from the approximate tiers',
    ]);
    // In turn order it is fine.
    expect(
      issuesOf(
        dirOf((r) => {
          r.push({ ...(at(r, 'q1.a2.r2') as CacheLine & { type: 'response' }), id: 'q1.a1.r2', agent: 'a1', context: ['q1.a1.r1'], prev: 'q1.a1.r1', turn: 0 });
          Object.assign(at(r, 'q1.a2.r2'), { context: ['q1.a2.r1', 'q1.a1.r1', 'q1.a1.r2'], inTokens: 200, turn: 1 });
        }),
      ),
    ).toEqual([]);
  });

  it('token counts far from the text, answers the text does not state and prompts shorter than the question are warnings', () => {
    const dir = dirOf((r) => {
      at(r, 'q1.a1.r1').outTokens = 900;
      at(r, 'q1.a2.r1').answer = 'D';
      at(r, 'q2.a1.r1').inTokens = 5;
    });
    expect(issuesOf(dir)).toEqual([
      'warning 6 outTokens: 900 tokens recorded, but the text has 17 (gpt-tokenizer, cl100k_base)',
      "warning 7 answer: 'D', but the text states 'B'",
      // q1.a2.r2 was shown q1.a1.r1, whose recorded 900 tokens its own inTokens cannot have held
      'warning 8 inTokens: 61 is less than what its prompt held: promptTokens 30 + 914 outTokens of 2 context responses = 944',
      "warning 9 inTokens: 5 is less than what its prompt held: its question's promptTokens (20)",
    ]);
  });

  it("a prompt's tokens are those of its own response's context where responses come before their agent in the file (loaded after the rest)", () => {
    const dir = dirOf((r) => {
      // a2's responses come before a2's record: they load after q2.a1.r1.
      r.push(...r.splice(r.indexOf(at(r, 'a2') as CacheLine), 1));
      r.push(...r.splice(r.indexOf(at(r, 'q2.a1.r1') as CacheLine), 1));
      at(r, 'q1.a2.r2').inTokens = 40;
    });
    expect(issuesOf(dir)).toEqual(['warning 7 inTokens: 40 is less than what its prompt held: promptTokens 30 + 31 outTokens of 2 context responses = 61']);
    // In file order throughout, the same responses.
    expect(issuesOf(dirOf((r) => void (at(r, 'q1.a2.r2').inTokens = 40)))).toEqual([
      'warning 8 inTokens: 40 is less than what its prompt held: promptTokens 30 + 31 outTokens of 2 context responses = 61',
    ]);
  });

  it('a MATH answer that is no mathematics is an error, by the rule import stores by (storedAnswer)', () => {
    const dir = dirOf((r) => void (at(r, 'q2.a1.r1').answer = ', which is 0.5'));
    expect(issuesOf(dir)).toEqual(["error 9 answer: ', which is 0.5' does not parse as a math answer; store the parsed form ('0.5') or null"]);
  });

  it('an ambiguous read is a warning with its readings; so is a stored answer whose text states two that disagree', () => {
    const twoStated = 'So the answer is $\\boxed{0.5}$. Rechecking the sum, the answer is 0.25.';
    const dir = dirOf((r) => {
      Object.assign(at(r, 'q2.a1.r1'), { text: twoStated, answer: null, ambiguous: ['0.5', '0.25'] });
      Object.assign(at(r, 'q1.a2.r1'), { text: `${TEXT_B} On reflection, the answer is (A) or (C).` });
    });
    expect(issuesOf(dir)).toEqual([
      "warning 7 answer: 'B', but the text states two answers that disagree ('A', 'C')",
      "warning 9 ambiguous: ambiguous read: the text states '0.5' and '0.25'; stored as no answer",
    ]);
  });

  it('two readings that disagree are a warning with both; so is a stored answer whose text reads that way (the rule import reads by)', () => {
    const settlesElsewhere = 'The answer is 0.5. Rechecking, each half holds 0.25.';
    const dir = dirOf((r) => {
      Object.assign(at(r, 'q2.a1.r1'), { text: settlesElsewhere, answer: null, disagreement: ['0.5', '0.25'] });
      Object.assign(at(r, 'q1.a2.r1'), { text: `${TEXT_B} Canberra, however, is where parliament sits, so it fits best.` });
    });
    expect(issuesOf(dir)).toEqual([
      "warning 7 answer: 'B', but the two readings of the text disagree (it states 'B', it settles on 'C')",
      "warning 9 disagreement: the two readings disagree: it states '0.5', it settles on '0.25'; stored as no answer",
    ]);
  });
});
