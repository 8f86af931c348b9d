import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { chatPrefixCounter, tokenCounter } from '../../src/cache/tokens.ts';
import { dylanMathFile } from '../fixtures/dylanMath.ts';

describe('token counts of chat prompts', () => {
  it('every prefix of a recorded transcript counts as the whole prefix does, in either encoding', () => {
    const problems = Object.values(
      JSON.parse(readFileSync(dylanMathFile('geometry_0_199_4_3'), 'utf8')) as Record<string, [{ role: string; content: string }[][]]>,
    );
    for (const encoding of ['cl100k_base', 'o200k_base'] as const) {
      const count = tokenCounter(encoding);
      const prefixes = chatPrefixCounter(encoding);
      let checked = 0;
      for (const [agents] of problems.slice(0, 8))
        for (const transcript of agents) {
          const counts = prefixes(transcript);
          expect(counts).toHaveLength(transcript.length + 1);
          for (let m = 0; m <= transcript.length; m++) expect(counts[m], `the first ${m} messages`).toBe(count(transcript.slice(0, m)));
          checked += counts.length;
        }
      expect(checked).toBeGreaterThan(100);
    }
  });
});
