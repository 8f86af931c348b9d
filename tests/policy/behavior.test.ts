// The behavior embedding's start (src/policy/behavior.ts): each team member's row is the mean of
// its agent's response vectors to the chosen validation questions, whatever the team's order.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ensureEmbeddings } from '../../src/cache/embeddings.ts';
import { loadCache } from '../../src/cache/load.ts';
import { writeCacheRecords } from '../../src/cache/write.ts';
import { makeEncoder } from '../../src/encoders/index.ts';
import { behaviorInit } from '../../src/policy/behavior.ts';
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
    for (const team of [[2, 0], [1, 1, 0]]) {
      const rows = behaviorInit(cache, emb, team, null, '7');
      team.forEach((a, i) => {
        const want = mean(a);
        Array.from(rows.subarray(i * D, (i + 1) * D)).forEach((v, k) => expect(v).toBeCloseTo(want[k], 5));
      });
    }
    // Every validation question chosen once there are at least as many samples as questions.
    expect(behaviorInit(cache, emb, [2, 0], 100, '7')).toEqual(behaviorInit(cache, emb, [2, 0], null, '7'));
  });
});
