// Settings that fail their schema are said as sentences naming where they are (a flag, a file and
// field), what the value must be and what was found: never zod's raw issue list.
import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { parseSettings } from '../../src/io/problems.ts';

describe('setting problems as sentences', () => {
  const schema = z.strictObject({
    workers: z.number().int().min(1),
    rate: z.number().min(0).max(1),
    mode: z.enum(['a', 'b']),
    seeds: z.array(z.number()).min(1),
    name: z.string().min(1),
    rounds: z.number().int().min(2, 'a debate needs at least 2 rounds'),
  });
  const flag = (path: string) => `--${path}`;

  it('one line per problem: where, what it must be, what was found', () => {
    expect(() => parseSettings(schema, { workers: 0.5, rate: 2, mode: 'c', seeds: [], name: '', rounds: 1 }, flag)).toThrow(
      [
        '--workers: must be a whole number (found 0.5)',
        '--rate: must be at most 1 (found 2)',
        '--mode: must be one of "a", "b" (found "c")',
        '--seeds: needs at least 1 entry (found [])',
        '--name: must not be empty (found "")',
        '--rounds: a debate needs at least 2 rounds (found 1)',
      ].join('\n'),
    );
    expect(() => parseSettings(schema, { workers: 1, rate: 0, mode: 'a', seeds: [0], name: 'n', rounds: 2, extra: 1 }, (p) => `grid.json: ${p}`)).toThrow(
      'grid.json: extra: unknown field',
    );
    expect(parseSettings(schema, { workers: 1, rate: 0, mode: 'a', seeds: [0], name: 'n', rounds: 2 }, flag).workers).toBe(1);
  });
});
