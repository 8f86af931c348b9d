import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { countTokens } from 'gpt-tokenizer/encoding/cl100k_base';
import { describe, expect, it } from 'vitest';
import { storedAnswer } from '../../src/answer.ts';
import { formatImportProblem, importDu, type DuImportOptions } from '../../src/cache/importDu.ts';
import { shownSolutions } from '../../src/cache/peerMarkers.ts';
import type { Cache } from '../../src/cache/types.ts';
import { cacheFromRecords } from '../../src/cache/load.ts';
import { writeCacheRecords } from '../../src/cache/write.ts';
import { formatIssue, validateCache } from '../../src/cache/validate.ts';
import { evalJob } from '../../jobs/eval.ts';
import { resolveConfig } from '../../train/config.ts';
import { runFiles } from '../../train/runFolder.ts';
import { train } from '../../train/trainer.ts';
import { dylanMathFile, dylanMathFiles } from '../fixtures/dylanMath.ts';
import { arithmeticRevision, mathImport, said, twoRoundDebate, user } from '../fixtures/duLayout.ts';
import { METHOD } from '../fixtures/method.ts';

// Real recorded debates: DyLAN's MATH files, committed as fixtures (tests/fixtures/dylan-math/).
const ALGEBRA = dylanMathFile('algebra_1_248_4_3');

const responseOf = (cache: Cache, id: string) => {
  const i = cache.responseIndex.get(id);
  if (i === undefined) throw new Error(`no response ${id}`);
  return cache.responses[i];
};

describe('importing real DyLAN MATH debates', () => {
  const result = importDu([ALGEBRA], mathImport);
  const cache = cacheFromRecords(result.records, 'algebra');

  it('imports every problem of the file into a valid cache, one agent per transcript position', () => {
    expect(result.problems).toEqual([]);
    expect(result.imported).toBe(100);
    expect(cache.agents.map((a) => [a.id, a.model, a.priceIn * 1e6, a.priceOut * 1e6])).toEqual([
      ['a1', 'gpt-3.5-turbo', 0.5, 1.5],
      ['a2', 'gpt-3.5-turbo', 0.5, 1.5],
      ['a3', 'gpt-3.5-turbo', 0.5, 1.5],
      ['a4', 'gpt-3.5-turbo', 0.5, 1.5],
    ]);
  });

  it('reads problem 1 (three agents, one round) as checked by hand', () => {
    const q = cache.questions[cache.questionIndex.get('algebra_1_248_4_3/1')!];
    expect(q.text).toBe('If $\\displaystyle\\frac{n+5}{n-3} = 2$ what is the value of $n$?');
    expect(q.gold).toBe('11');
    expect(q.meta).toMatchObject({ level: 1, subject: 'Algebra' });
    // "...which simplifies to $n = 11$. Therefore, the value of $n$ is $11$." and two "... is 11."
    for (const a of ['a1', 'a2', 'a3']) {
      const r = responseOf(cache, `algebra_1_248_4_3/1/${a}/r1`);
      expect(r.answer).toBe('11');
      expect(r.correct).toBe(true);
    }
    expect(cache.responseIndex.has('algebra_1_248_4_3/1/a1/r2')).toBe(false);
  });

  it('reads problem 13 (four agents, two rounds): answers, and what each agent was shown', () => {
    const id = (a: string, t: number) => `algebra_1_248_4_3/13/${a}/r${t}`;
    const answers = (t: number) => ['a1', 'a2', 'a3', 'a4'].map((a) => responseOf(cache, id(a, t)).answer);
    // a2 concluded "there are no solutions to this problem": no answer, counted as unparsed.
    expect(answers(1)).toEqual(['2, 11, 14, 15', null, '6, 11, 16, 29', '7, 8, 9, 24.5']);
    expect(answers(2)).toEqual(['6, 14, 40, 60', '6, 11, 16, 29', '6, 11, 16, 29', '6, 11, 16, 29']);
    expect(responseOf(cache, id('a3', 2)).correct).toBe(false); // gold 7,9,12,13
    // Own previous response first; then the agents before it this round, the ones after it last round.
    expect(responseOf(cache, id('a1', 2)).context).toEqual([id('a1', 1), id('a2', 1), id('a3', 1), id('a4', 1)]);
    expect(responseOf(cache, id('a2', 2)).context).toEqual([id('a2', 1), id('a1', 2), id('a3', 1), id('a4', 1)]);
    expect(responseOf(cache, id('a4', 2)).context).toEqual([id('a4', 1), id('a1', 2), id('a2', 2), id('a3', 2)]);
    expect(responseOf(cache, id('a2', 2)).prev).toBe(id('a2', 1));
  });

  it('loses no shown solution: each is a matched response or an external entry', () => {
    const text = JSON.parse(readFileSync(ALGEBRA, 'utf8')) as Record<string, [{ role: string; content: string }[][]]>;
    let shown = 0,
      kept = 0,
      external = 0;
    Object.values(text).forEach(([agents], k) =>
      agents.forEach((transcript, i) =>
        transcript.forEach((m, j) => {
          if (m.role !== 'user' || j < 3) return;
          const r = responseOf(cache, `algebra_1_248_4_3/${k + 1}/a${i + 1}/r${(j + 1) / 2}`);
          shown += shownSolutions(m.content).length;
          kept += r.context.length - 1; // all but the own previous response
          external += r.ext.length;
        }),
      ),
    );
    expect(shown).toBeGreaterThan(300);
    expect(kept).toBe(shown);
    expect(result.peers).toMatchObject({ shown, withoutPeers: 0 });
    expect(external).toBeGreaterThan(0);
    expect(cache.externals.every((e) => e.text.length > 0 && e.tokens === countTokens(e.text))).toBe(true);
  });

  it('counts tokens with the tokenizer; a revision prompt holds the chat history', () => {
    const r1 = responseOf(cache, 'algebra_1_248_4_3/13/a2/r1');
    const r2 = responseOf(cache, 'algebra_1_248_4_3/13/a2/r2');
    expect(r1.outTokens).toBe(countTokens(r1.text));
    expect(r1.outTokens).not.toBe(Math.round(r1.text.length / 4));
    expect(r2.inTokens).toBeGreaterThan(r1.inTokens + r1.outTokens);
    expect(cache.questions[cache.questionIndex.get('algebra_1_248_4_3/13')!].promptTokens).toBe(r1.inTokens);
  });

  it('assigns splits by a seeded rule, or from a file', { timeout: 120_000 }, () => {
    const splits = (c: Cache) => c.questions.map((q) => q.split).join();
    expect(splits(cacheFromRecords(importDu([ALGEBRA], mathImport).records))).toBe(splits(cache));
    expect(splits(cacheFromRecords(importDu([ALGEBRA], { ...mathImport, splitSeed: 1 }).records))).not.toBe(splits(cache));
    expect(cache.questions.filter((q) => q.split === 'test').length).toBe(20);
    const fromFile = importDu([ALGEBRA], { ...mathImport, splits: Object.fromEntries(cache.questions.map((q) => [q.id, q.index < 10 ? 'test' : 'train'])) });
    expect(cacheFromRecords(fromFile.records).questions.filter((q) => q.split === 'test').length).toBe(10);
  });

  it('trains and evaluates a policy on the imported cache like on the default world', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'du-train-'));
    writeCacheRecords(join(dir, 'cache'), result.records);
    const config = resolveConfig({
      ...METHOD,
      cache: join(dir, 'cache'),
      agents: ['a1', 'a2'],
      out: join(dir, 'run'),
      epochs: 1,
      batchSize: 16,
      hidden: 16,
      backend: 'cpu',
    });
    await train(config, { log: () => {} });
    const { rows } = await evalJob({
      policies: [runFiles(config.out).best],
      cache: join(dir, 'cache'),
      split: 'test',
      compute: { engine: 'auto', backend: 'cpu', threads: 1 },
      settings: { agents: ['a1', 'a2'] },
      methods: ['full', 'none'],
      seeds: 1,
      reference: 'Full-Debate',
    });
    expect(rows.map((r) => r.method)).toEqual(['Full-Debate', 'No-communication', expect.stringMatching(/^CPP FuseGLU/)]);
    const [, none, cpp] = rows;
    // A trained policy: it prunes, and is above No-communication. Measured (20 test questions): CPP
    // 70% against No-communication's 60% and Full-Debate's 65%, keeping 64% of the edges at 93.5%
    // of Full-Debate's cost: a margin of 2 questions.
    expect(cpp.keptPct).toBeLessThan(100);
    expect(cpp.costPct).toBeLessThan(100);
    expect(cpp.accuracy).toBeGreaterThan(none.accuracy);
  }, 120_000);

  // Measured 94.9% (1998 of 2105). The two readings refuse final answers where the stated answer and
  // the value the reply settles on disagree; reading the question's own quantities refuses an
  // expression in an unknown, or a relation, where the question asks for a value (36 final answers
  // such as "9+4(b-a)(c-a)" or "f(3) \geq 8", each where the gold answer is a number: 2033 read
  // without that rule). The rest state no single answer ("either 12 or 28", "there is no
  // solution", comments on the other agents) and stay unparsed rather than guessed (docs/import.md,
  // "How answers are read"). Every stored answer parses under its type, and every dropped reading is reported.
  it('parses at least 94.9% of the final answers of all 700 recorded debates, stores only what parses, and records each disagreement', {
    timeout: 300_000,
  }, () => {
    const result = importDu(dylanMathFiles(), mathImport);
    const all = cacheFromRecords(result.records);
    expect(all.questions.length).toBe(700);
    const last = new Map<string, number>();
    for (const r of all.responses) last.set(`${r.q}|${r.a}`, r.ans);
    const finals = [...last.values()];
    expect(finals.filter((a) => a >= 0).length / finals.length).toBeGreaterThanOrEqual(0.949);
    for (const r of [...all.responses, ...all.externals]) if (r.answer !== null) expect(storedAnswer(r.answer, 'math')).toBe(r.answer);
    expect(result.dropped.map((d) => d.id)).toContain('precalculus_0_251_4_3/28/a2/r1'); // "\text{all negative real numbers except }0"
    expect(all.responses.filter((r) => r.ambiguous).map((r) => r.id)).toEqual(
      expect.arrayContaining(['geometry_0_199_4_3/74/a4/r2', 'prealgebra_7_631_4_3/99/a2/r2']),
    );
    // The shipped data imports into a cache that cache validate accepts (warnings: its ambiguous reads).
    const out = mkdtempSync(join(tmpdir(), 'du-all-'));
    writeCacheRecords(out, result.records);
    const issues = validateCache(out).issues;
    expect(issues.filter((i) => i.severity === 'error')).toEqual([]);
    expect(issues.filter((i) => i.field === 'ambiguous')).toHaveLength(all.responses.filter((r) => r.ambiguous).length);
    // Two readings that disagree: stored as no answer, with both readings, and warned by cache validate.
    const disagreed = [...all.responses, ...all.externals].filter((r) => r.disagreement);
    expect(disagreed.length).toBeGreaterThan(0);
    for (const r of disagreed) expect(r.answer).toBeNull();
    expect(all.responses.find((r) => r.id === 'counting_and_probability_0_219_4_3/24/a1/r1')?.disagreement).toEqual(['\\frac{1}{12}', '60']);
    expect(issues.filter((i) => i.field === 'disagreement')).toHaveLength(disagreed.length);
  });
});

describe('importing malformed records', () => {
  const dir = mkdtempSync(join(tmpdir(), 'du-'));
  const sys = { role: 'system', content: 'Debate.' };
  const shown = (...s: string[]) =>
    user(
      `These are the solutions to the problem from other agents: ` +
        `\n\n${s.map((x) => `One agent solution: \`\`\`${x}\`\`\``).join('\n\n')}\n\nCan you give an updated answer?`,
    );
  const good = [
    [
      [sys, user('Problem: 1+1?\nAnswer:'), said('So $\\boxed{2}$.'), shown('It is $\\boxed{3}$.'), said('Still $\\boxed{2}$.')],
      [sys, user('Problem: 1+1?\nAnswer:'), said('It is $\\boxed{3}$.'), shown('Still $\\boxed{2}$.'), said('The answer is 2.')],
    ],
    '2',
    1,
    'Prealgebra',
  ];
  const file = join(dir, 'bad.json');
  writeFileSync(
    file,
    JSON.stringify({
      'Problem: 1+1?\nAnswer:': good,
      'Problem: no gold?\nAnswer:': [[[sys, user('Problem: no gold?\nAnswer:'), said('$\\boxed{1}$')]]],
      'Problem: cut short?\nAnswer:': [
        [
          [sys, user('Problem: cut short?\nAnswer:'), said('$\\boxed{4}$'), shown('$\\boxed{5}$'), said('$\\boxed{5}$')],
          [sys, user('Problem: cut short?\nAnswer:'), said('$\\boxed{5}$'), shown('$\\boxed{4}$')],
        ],
        '5',
      ],
      'Problem: empty?\nAnswer:': [
        [
          [sys, user('Problem: empty?\nAnswer:'), said('  ')],
          [sys, user('Problem: empty?\nAnswer:'), said('$\\boxed{7}$')],
        ],
        '7',
      ],
    }),
  );
  writeFileSync(join(dir, 'broken.json'), '{"Problem: x": [');
  const result = importDu([file, join(dir, 'broken.json'), join(dir, 'missing.json')], mathImport);
  const messages = result.problems.map(formatImportProblem);

  it('names the file, problem and field of each problem', () => {
    expect(messages).toEqual([
      expect.stringMatching(/bad\.json: problem 2: 1: gold answer missing; problem skipped/),
      expect.stringMatching(/bad\.json: problem 3: 0\.1\.3: transcript of agent 2 ends with a user message: cut short, its last round is missing/),
      expect.stringMatching(/bad\.json: problem 4: 0\.0\.2\.content: empty response of agent 1 at round 1: imported with no answer/),
      expect.stringMatching(/broken\.json: invalid JSON/),
      expect.stringMatching(/missing\.json: file not found/),
    ]);
  });

  it('imports the rest into a valid cache', () => {
    const cache = cacheFromRecords(result.records);
    expect(result.imported).toBe(3);
    expect(cache.questions.map((q) => q.id)).toEqual(['bad/1', 'bad/3', 'bad/4']);
    expect(responseOf(cache, 'bad/1/a2/r2').answer).toBe('2');
    expect(responseOf(cache, 'bad/1/a2/r2').context).toEqual(['bad/1/a2/r1', 'bad/1/a1/r2']); // a1 answered first this round
    expect(responseOf(cache, 'bad/1/a1/r2').context).toEqual(['bad/1/a1/r1', 'bad/1/a2/r1']);
    expect(responseOf(cache, 'bad/3/a1/r2').answer).toBe('5');
    expect(cache.responseIndex.has('bad/3/a2/r2')).toBe(false);
    const empty = responseOf(cache, 'bad/4/a1/r1');
    expect([empty.answer, empty.ans]).toEqual([null, -1]);
  });
});

describe('Du et al.\'s arithmetic debates (3 agents, 2 rounds, "One agent response", numeric answers)', () => {
  // A hand-made file in the layout of Du et al.'s arithmetic task (gen_math.py), not recorded data.
  const dir = mkdtempSync(join(tmpdir(), 'du-arith-'));
  const ask = (e: string) => `What is the result of ${e}? Make sure to state your answer at the end of the response.`;
  const debate = twoRoundDebate(arithmeticRevision);
  const q1 = ask('12*40+79');
  const q2 = ask('5+8*25');
  const q3 = ask('4*20');
  const file = join(dir, 'math_agents3_rounds2.json');
  writeFileSync(
    file,
    JSON.stringify({
      [q1]: debate(
        q1,
        559,
        [
          'First 12*40 = 480, then 480+79 = 559. The answer is 559.',
          'Multiplying first: 12 * 40 = 480. Adding 79 gives 569. The answer is 569.',
          'The answer is 12*40+79 = 559.',
        ],
        [
          'All agents but one agree. Therefore, the updated answer is: 12*40+79 = 559',
          'I made an addition error: 480+79 = 559, not 569. Therefore, the updated answer is: 12 * 40 + 79 = 559.',
          'My answer remains 559.',
        ],
      ),
      [q2]: debate(
        q2,
        205,
        ['8*25 = 200, and 5+200 = 205. The answer is **205**.', 'Working left to right, 5+8 = 13 and 13*25 = 325. The answer is 325.', 'The result is 205.'],
        [
          'The other agents confirm it: the answer is **205**.',
          'I forgot the order of operations: 8*25 = 200 first, then 5+200 = 205. The answer is 205.',
          'Having checked again, the answer remains the same: 205',
        ],
      ),
      [q3]: debate(
        q3,
        80,
        ['4*20 = 80. The answer is 80.', 'The answer is 80.', '4 times 20 is 80.'],
        [
          'Everyone agrees, so the answer remains the same: 80',
          'The answer remains the same: 80',
          'I have no new information. I need to recompute this before I can answer.',
        ],
      ),
    }),
  );
  const arith: DuImportOptions = { ...mathImport, answerType: 'numeric', benchmark: 'arithmetic' };
  const result = importDu([file], arith);
  const cache = cacheFromRecords(result.records);
  const id = (q: number, a: number, t: number) => `math_agents3_rounds2/${q}/a${a}/r${t}`;

  it('recognises every peer answer and matches each to the response it quotes', () => {
    expect(result.problems).toEqual([]);
    expect(result.peers).toMatchObject({ revisionPrompts: 9, withoutPeers: 0, shown: 18 });
    expect(responseOf(cache, id(1, 2, 2)).context).toEqual([id(1, 2, 1), id(1, 1, 1), id(1, 3, 1)]);
    expect(cache.externals).toEqual([]);
  });

  it('reads the last stated result, bold numbers and "remains the same: N"', () => {
    const answers = (q: number, t: number) => [1, 2, 3].map((a) => responseOf(cache, id(q, a, t)).answer);
    expect(answers(1, 1)).toEqual(['559', '569', '559']);
    expect(answers(1, 2)).toEqual(['559', '559', '559']); // "EXPR = 559" is 559, not 12
    expect(answers(2, 1)).toEqual(['205', '325', '205']);
    expect(answers(2, 2)).toEqual(['205', '205', '205']);
    expect(answers(3, 2)).toEqual(['80', '80', null]);
    expect(responseOf(cache, id(1, 2, 2)).correct).toBe(true);
    expect(responseOf(cache, id(2, 2, 1)).correct).toBe(false);
  });

  it('stores only what parses, marks what is ambiguous, and its import passes cache validate (was: exit 1)', () => {
    // The styles that stored ", which is 431" and ".", and a boxed result contradicted later.
    const q4 = ask('7*8-68');
    const q5 = ask('431*1');
    const styles = join(dir, 'styles.json');
    writeFileSync(
      styles,
      JSON.stringify({
        [q4]: debate(
          q4,
          -12,
          ['7*8 = 56, and 56 - 68 = -12. The answer is -12.', 'The answer is 7*8-68.', 'The answer is $\\boxed{-12}$. Rechecking, the answer is 12.'],
          [
            'Computing again: 7*8 = 56 and 56 - 68 = -12, so the result is -12. The updated answer remains the same.',
            'The other agents are right: 56 - 68 = -12. My answer: -12.',
            'The answer is -12.',
          ],
        ),
        [q5]: debate(
          q5,
          431,
          ['The answer is 431.', 'The answer is 431.', 'The answer is 431.'],
          ['I checked the other agents, and the answer remains the same, which is 431.', 'My answer remains 431.', 'The answer is 431.'],
        ),
      }),
    );
    const result = importDu([styles], arith);
    const out = mkdtempSync(join(tmpdir(), 'du-styles-'));
    writeCacheRecords(out, result.records);
    const { cache: imported, issues } = validateCache(out);
    expect(issues.filter((i) => i.severity === 'error')).toEqual([]);
    const ids = (q: number, t: number) => [1, 2, 3].map((a) => `styles/${q}/a${a}/r${t}`);
    const answers = (q: number, t: number) => ids(q, t).map((id) => responseOf(imported!, id).answer);
    expect(answers(1, 1)).toEqual(['-12', null, null]);
    expect(answers(1, 2)).toEqual(['-12', '-12', '-12']); // "... is -12. The updated answer remains the same."
    expect(answers(2, 2)).toEqual(['431', '431', '431']); // "remains the same, which is 431"
    expect(result.dropped).toEqual([{ id: 'styles/1/a2/r1', question: 'styles/1', agent: 'a2', round: 1, reading: '7*8-68' }]);
    expect(responseOf(imported!, 'styles/1/a3/r1').ambiguous).toEqual(['-12', '12']);
    expect(issues.map(formatIssue).filter((i) => i.includes('ambiguous read'))).toHaveLength(1);
  });

  it('stops when no revision prompt shows a recognised peer answer, unless allowed', () => {
    const other = join(dir, 'other.json');
    const peer = (s: string) => user(`Another debater wrote <<${s}>>. Update your answer.`);
    writeFileSync(
      other,
      JSON.stringify({
        [q3]: [
          [
            [user(q3), said('The answer is 80.'), peer('The answer is 81.'), said('The answer is 80.')],
            [user(q3), said('The answer is 81.'), peer('The answer is 80.'), said('The answer is 80.')],
          ],
          80,
        ],
      }),
    );
    expect(() => importDu([other], arith)).toThrow(/no peer answer recognised in any of the 2 revision prompts.*--peer-marker.*--allow-no-peers/s);
    const allowed = importDu([other], { ...arith, allowNoPeers: true });
    expect(allowed.peers).toMatchObject({ revisionPrompts: 2, withoutPeers: 2, shown: 0 });
    expect(cacheFromRecords(allowed.records).responses.find((r) => r.round === 2)!.context).toEqual(['other/1/a1/r1']);
    const marked = importDu([other], { ...arith, peerMarker: 'Another debater wrote <<(.*?)>>' });
    expect(marked.peers).toMatchObject({ revisionPrompts: 2, withoutPeers: 0, shown: 2 });
    expect(cacheFromRecords(marked.records).responses.find((r) => r.id === 'other/1/a1/r2')!.context).toEqual(['other/1/a1/r1', 'other/1/a2/r1']);
    expect(() => importDu([other], { ...arith, peerMarker: '(' })).toThrow(/--peer-marker: '\(' is not a valid regular expression/);
  });

  it('finds the peer answers of each known layout', () => {
    expect(
      shownSolutions('These are the solutions: \n\nAgent solution 1: ```It is 4.```\n\nAgent solution 2: ```It is 5.```\n\nUsing the reasoning ...'),
    ).toEqual(['It is 4.', 'It is 5.']);
    expect(shownSolutions('One agent solution: ```A```\n\n One agent response: ```B``` Use these.')).toEqual(['A', 'B']);
    expect(shownSolutions('Can you double check that your answer is correct?')).toEqual([]);
  });
});
