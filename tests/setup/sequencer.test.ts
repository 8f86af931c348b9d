// The suite's file order (tests/setup/sequencer.ts): longest first, by the cached duration where
// vitest has one, else by the measured one; files known to neither after, in the order given.
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { longestFirst, SECONDS } from './sequencer.ts';

const ROOT = resolve(import.meta.dirname, '../..');

describe('the order files start in', () => {
  const slowest = Object.entries(SECONDS).sort((a, b) => b[1] - a[1])[0][0];

  it('on a fresh clone (nothing cached): the measured durations, longest first, then the rest in their order', () => {
    const files = ['tests/z.test.ts', 'tests/a.test.ts', 'tests/jobs/queue.test.ts', slowest];
    expect(longestFirst(files, () => undefined)).toEqual([slowest, 'tests/jobs/queue.test.ts', 'tests/z.test.ts', 'tests/a.test.ts']);
  });

  it("vitest's cached durations, where it has them, over the measured ones", () => {
    // The slowest file measured ran quickly last time: it goes by last time's duration.
    const cached = (f: string) => ({ 'tests/a.test.ts': 1000, 'tests/z.test.ts': 0.5, [slowest]: 0.1 })[f];
    expect(longestFirst(['tests/z.test.ts', slowest, 'tests/b.test.ts', 'tests/a.test.ts'], cached)).toEqual([
      'tests/a.test.ts',
      'tests/z.test.ts',
      slowest,
      'tests/b.test.ts',
    ]);
  });

  it('names files that exist: a renamed file is renamed here too, or it would lose its place', () => {
    expect(Object.keys(SECONDS).length).toBeGreaterThanOrEqual(10);
    expect(Object.keys(SECONDS).filter((f) => !f.endsWith('.test.ts') || !existsSync(join(ROOT, f)))).toEqual([]);
  });
});
