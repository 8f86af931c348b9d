import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { evalJob } from '../../jobs/eval.ts';
import { writeCacheRecords } from '../../src/cache/write.ts';
import { defaultCompute } from '../../src/policy/backends.ts';
import { tinyRecords } from '../fixtures/tinyWorld.ts';

describe('eval with miss = signature', () => {
  it('finishes, leaves the questions some method could not replay out of every row, and names them', async () => {
    // Questions q0..q3 keep only their Full-Debate (mask 7) and own-response (masks 1, 2, 4) revisions.
    const sparse = new Set(['q0', 'q1', 'q2', 'q3']);
    const records = tinyRecords().filter((r) => !(r.type === 'response' && sparse.has(r.question) && r.round === 2 && !/\.(7|1|2|4)$/.test(r.id)));
    const dir = mkdtempSync(join(tmpdir(), 'cpp-miss-'));
    writeCacheRecords(dir, records);
    const run = (methods: ('full' | 'random')[]) =>
      evalJob({
        policies: [],
        cache: dir,
        split: 'train',
        compute: defaultCompute(),
        settings: { rounds: 2, miss: 'signature' },
        methods,
        keepRate: 0.5,
        seeds: 2,
        reference: 'Full-Debate',
      });
    const { table, rows } = await run(['full', 'random']);
    const note = table.match(
      new RegExp(
        String.raw`miss = signature: (\d+) of 18 questions could not be replayed by every method ` +
          String.raw`\(most left by one run: Full-Debate 0, Random pruning \(keep 50%\) [1-9]\d*\) and are left out of every row: (.*)`,
      ),
    );
    expect(note).not.toBeNull();
    const skipped = note![2].split(', ');
    expect(skipped.length).toBe(Number(note![1]));
    expect(skipped.every((q) => sparse.has(q))).toBe(true);
    expect(table).toMatch(new RegExp(`train split, ${18 - skipped.length} questions, 2 rounds, miss = signature`));
    expect(rows.map((r) => r.method)).toEqual(['Full-Debate', 'Random pruning (keep 50%)']);
    expect(rows[1].n).toBe(2);
    // Full-Debate alone replays everything: nothing is left out.
    expect((await run(['full'])).table).not.toMatch(/could not be replayed/);
  }, 120_000);
});
