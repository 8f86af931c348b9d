// Importing multiple-choice debates (Du et al.'s MMLU layout) in the reply styles that were misread: the
// option first, "**Answer:** C", options listed before one is chosen, two options named at the end.
// What is stored is what a reader takes from each reply, the import passes cache validate, and the
// ambiguous reads are counted per agent and round in the import report, which also says how many
// rounds each team's own debates reach (a two-agent debate going on to round 3 is not the three's).
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importReport } from '../../eval/importReport.ts';
import { importDu, type DuImportOptions } from '../../src/cache/importDu.ts';
import { formatIssue, validateCache } from '../../src/cache/validate.ts';
import { writeCacheRecords } from '../../src/cache/write.ts';
import { mathImport, mmluRevision, said, twoRoundDebate, user } from '../fixtures/duLayout.ts';

const mmlu: DuImportOptions = { ...mathImport, name: 'mmlu', benchmark: 'MMLU', answerType: 'mcq' };

// Du et al.'s MMLU question prompt (gen_mmlu.py): the options inline after the question.
const ask = (question: string, options: string[]) =>
  'Can you answer the following question as accurately as possible? ' +
  `${question}: ${options.map((o, i) => `${'ABCD'[i]}) ${o}`).join(', ')} Explain your answer, putting the answer in the form (X) at the end of your response.`;

describe("Du et al.'s MMLU debates (3 agents, 2 rounds, multiple choice) in the reply styles that were misread", () => {
  const capital = ask('Which city is the capital of Australia?', ['Sydney', 'Melbourne', 'Canberra', 'Perth']);
  const organelle = ask('Which organelle produces most of the ATP in a eukaryotic cell?', ['Ribosome', 'Mitochondrion', 'Golgi apparatus', 'Nucleus']);
  const planet = ask('Which planet is known as the Red Planet?', ['Venus', 'Mars', 'Jupiter', 'Saturn']);
  const debate = twoRoundDebate(mmluRevision);
  const dir = mkdtempSync(join(tmpdir(), 'du-mmlu-'));
  const file = join(dir, 'mmlu_agents3_rounds2.json');
  writeFileSync(
    file,
    JSON.stringify({
      [capital]: debate(
        capital,
        'C',
        [
          'C) Canberra. It was purpose-built as a compromise between Sydney and Melbourne.',
          'Let me go through the options:\nA) Sydney: the largest city.\nB) Melbourne: the seat of Parliament until 1927.\n' +
            'C) Canberra: a planned city.\nD) Perth: on the west coast.\n\nParliament first sat in Melbourne, so the answer is (B).',
          'Both cities have a claim, so the answer is (A) or (C).',
        ],
        [
          'Canberra has been the seat of government since 1927.\n\n**Answer:** C',
          '(C) The capital is Canberra, chosen in 1908 as a compromise between Sydney and Melbourne.',
          'My answer is **A** and **C**.',
        ],
      ),
      [organelle]: debate(
        organelle,
        'B',
        [
          '(B)\n\nMitochondria carry out oxidative phosphorylation, which makes most of the ATP.',
          'The options are:\n(A) Ribosome\n(B) Mitochondrion\n(C) Golgi apparatus\n(D) Nucleus',
          'Options (A) and (C) do not make ATP and (D) holds the DNA, which leaves (B).',
        ],
        ['My answer remains (B).', 'Final answer: (B) (D)', 'The answer is (B).'],
      ),
      // Two agents debating three rounds, where the three-agent debates stop at two.
      [planet]: [
        [
          [user(planet), said('B) Mars.'), mmluRevision('The answer is (C).'), said('The answer is (B).'), mmluRevision('The answer is (B).'), said('(B)')],
          [user(planet), said('The answer is (C).'), mmluRevision('B) Mars.'), said('The answer is (B).'), mmluRevision('The answer is (B).'), said('(B)')],
        ],
        'B',
      ],
    }),
  );
  const result = importDu([file], mmlu);
  const out = mkdtempSync(join(tmpdir(), 'du-mmlu-cache-'));
  writeCacheRecords(out, result.records);
  const { cache, issues } = validateCache(out);
  const answers = (q: number, t: number) => [1, 2, 3].map((a) => cache!.responses[cache!.responseIndex.get(`mmlu_agents3_rounds2/${q}/a${a}/r${t}`)!]);

  it('finds every peer answer and stores what a reader takes from each reply, none where it names two', () => {
    expect(result.problems).toEqual([]);
    expect(result.peers).toMatchObject({ revisionPrompts: 10, withoutPeers: 0, shown: 16 });
    expect(answers(1, 1).map((r) => r.answer)).toEqual(['C', 'B', null]); // the option first; a list, then (B); "(A) or (C)"
    expect(answers(1, 2).map((r) => r.answer)).toEqual(['C', 'C', null]); // "**Answer:** C"; "(C) The ..."; "**A** and **C**"
    expect(answers(2, 1).map((r) => r.answer)).toEqual(['B', null, 'B']); // "(B)" alone first; the options listed, none chosen
    expect(answers(2, 2).map((r) => r.answer)).toEqual(['B', null, 'B']); // "Final answer: (B) (D)"
    expect([...answers(1, 1), ...answers(1, 2), ...answers(2, 2)].filter((r) => r.ambiguous).map((r) => [r.id, r.ambiguous])).toEqual([
      ['mmlu_agents3_rounds2/1/a3/r1', ['A', 'C']],
      ['mmlu_agents3_rounds2/1/a3/r2', ['A', 'C']],
      ['mmlu_agents3_rounds2/2/a2/r2', ['B', 'D']],
    ]);
    expect(answers(2, 1)[1].ambiguous).toBeUndefined();
  });

  it('passes cache validate, warning on each ambiguous read, and the import report counts them per agent and round', () => {
    expect(issues.filter((i) => i.severity === 'error')).toEqual([]);
    expect(issues.map(formatIssue).filter((i) => i.includes('ambiguous read'))).toHaveLength(3);
    const report = importReport(cache!);
    expect(report).toContain('Ambiguous reads (two answers that disagree, stored as no answer; docs/import.md, "How answers are read"): 3 responses');
    expect(report).toMatch(/\| a2 +\| 0\.0% \(0\/3\) +\| 33\.3% \(1\/3\) +\| 0\.0% \(0\/1\) +\|/);
    expect(report).toMatch(/\| a3 +\| 50\.0% \(1\/2\) +\| 50\.0% \(1\/2\) +\| - +\|/);
    expect(report).toContain("mmlu_agents3_rounds2/2/a2/r2: 'B' | 'D': \"");
  });

  it("tells, per team, the deepest round its own debates recorded: what --rounds can replay, not the whole cache's deepest", () => {
    const report = importReport(cache!);
    expect(report).toMatch(/\| a1,a2 +\| +3 \| .*\| +3 \|\n/);
    expect(report).toMatch(/\| a1,a2,a3 +\| +2 \| .*\| +2 \|\n/);
  });
});
