// The behavior embedding's start (src/policy/behavior.ts): each team member's row is the mean of
// its agent's response vectors to the chosen validation questions, whatever the team's order; the
// rows are kept beside the cache (src/policy/keptBehavior.ts) while it and its embeddings are as
// they were.
import { appendFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { embeddingsPath, ensureEmbeddings } from '../../src/cache/embeddings.ts';
import { loadCache } from '../../src/cache/load.ts';
import { writeCacheRecords } from '../../src/cache/write.ts';
import { makeEncoder } from '../../src/encoders/index.ts';
import { behaviorInit } from '../../src/policy/behavior.ts';
import { BEHAVIOR_FILE } from '../../src/policy/keptBehavior.ts';
import { tinyRecords } from '../fixtures/tinyWorld.ts';

describe('behaviorInit', () => {
  it('gives each member the mean of its agent’s responses to validation questions, in the team’s order', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cpp-behavior-'));
    writeCacheRecords(dir, tinyRecords(8));
    const cache = loadCache(dir);
    const emb = await ensureEmbeddings(dir, cache, await makeEncoder('bof'));
    const D = emb.dim;
    const mean = (a: number) => {
      const rs = cache.responses.filter((r) => r.a === a && cache.questions[r.q].split === 'validation');
      return Array.from({ length: D }, (_, k) => rs.reduce((s, r) => s + emb.response(r.index)[k], 0) / rs.length);
    };
    // Rows differ between agents (each writes in its own style), so a row given to the wrong member shows.
    expect(mean(0)).not.toEqual(mean(2));
    for (const team of [
      [2, 0],
      [1, 1, 0],
    ]) {
      const rows = behaviorInit(cache, emb, team, null, '7');
      team.forEach((a, i) => {
        const want = mean(a);
        Array.from(rows.subarray(i * D, (i + 1) * D)).forEach((v, k) => expect(v).toBeCloseTo(want[k], 5));
      });
    }
    // Every validation question chosen once there are at least as many samples as questions.
    expect(behaviorInit(cache, emb, [2, 0], 100, '7')).toEqual(behaviorInit(cache, emb, [2, 0], null, '7'));
  });

  it('is kept beside the cache: the next process takes the rows without reading a vector, until the cache or its embeddings change', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cpp-behavior-kept-'));
    writeCacheRecords(dir, tinyRecords(8));
    const bof = await makeEncoder('bof');
    const fresh = async () => {
      const cache = loadCache(dir);
      return { cache, emb: await ensureEmbeddings(dir, cache, bof) };
    };
    const first = await fresh();
    const made = behaviorInit(first.cache, first.emb, [0, 1, 2], null, '7');
    const file = join(dir, BEHAVIOR_FILE);
    // Rows no mean makes, bound to the cache as it is: taken, for any team, without a vector read.
    const kept = JSON.parse(readFileSync(file, 'utf8'));
    const key = Object.keys(kept)[0];
    kept[key].rows.a3 = kept[key].rows.a3.map(() => 0.25);
    writeFileSync(file, JSON.stringify(kept));
    const next = await fresh();
    const read = vi.spyOn(next.emb, 'response');
    expect(Array.from(behaviorInit(next.cache, next.emb, [2, 0], null, '7'))).toEqual([
      ...new Array(next.emb.dim).fill(0.25),
      ...made.subarray(0, next.emb.dim),
    ]);
    expect(read).not.toHaveBeenCalled();
    // Other samples are another entry: made, not taken.
    behaviorInit(next.cache, next.emb, [2], 2, '7');
    expect(read).toHaveBeenCalled();
    // The embeddings file changed (a blank line appended: the same vectors): made again and said.
    appendFileSync(embeddingsPath(dir, bof.id), '\n');
    const said = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      const after = await fresh();
      expect(behaviorInit(after.cache, after.emb, [0, 1, 2], null, '7')).toEqual(made);
      expect(said.mock.calls.map((c) => String(c[0])).join('\n')).toContain(`${file}: the behavior start (bof-256|all) was made from another`);
    } finally {
      said.mockRestore();
    }
  });
});
