// Behavior rows (docs/method.md §4): what an agent does on validation questions, as a few numbers
// read from the cache alone, so that a policy can describe any agent (of a simulated world or an
// imported log) by its behavior rather than by its seat. The team-general policy reads the
// candidate's source's row and the recipient's row through a learned projection
// (PolicyArchitecture `behaviorRows`); nothing in a row names an agent, so a newcomer with the same
// behavior reads the same. The statistics and their order are versioned: `behaviorRows` in a
// policy's shape is the ROWS_VERSION it was trained with.
import type { Cache, Response } from '../cache/types.ts';
import { InputError } from '../io/errors.ts';

/** The version of the statistics below; a policy trained on rows of another version refuses them. */
export const ROWS_VERSION = 1;

/** The statistics of a row, in order (docs/method.md §4 says how each is counted). */
export const ROW_STATS = [
  'accuracy', // share of its round-1 answers that are right
  'revisedAccuracy', // share of its later-round answers that are right
  'changes', // share of its revisions whose answer differs from its previous one
  'netFixes', // (wrong -> right minus right -> wrong) revisions, over its revisions
  'followed', // share of the others' revisions shown its answer, that held another answer before, which take its answer
  'followedWrong', // the same, counting only its wrong answers (a persuasive wrong agent is dangerous)
  'spread', // 1 - share of its most frequent round-1 answer, mean over questions (how far its samples spread)
  'logTokens', // ln(mean output tokens / 200)
  'logPrice', // ln(price per output token / 1e-6) / 3 (0 for a free agent): the cache's currency, as its prices are
] as const;
export const ROW_WIDTH = ROW_STATS.length;

const share = (hits: number, of: number) => (of > 0 ? hits / of : 0);

/** The row of every agent of `cache` (agent index order), from its validation questions; an agent with no validation response is an error naming it. */
export function cacheRows(cache: Cache): Float32Array[] {
  const validation = new Set(cache.questions.filter((q) => q.split === 'validation').map((q) => q.index));
  const byAgent: Response[][] = cache.agents.map(() => []);
  for (const r of cache.responses) if (validation.has(r.q)) byAgent[r.a].push(r);
  const followed = cache.agents.map(() => ({ shown: 0, taken: 0, shownWrong: 0, takenWrong: 0 }));
  for (const r of cache.responses) {
    if (!validation.has(r.q) || r.prevIndex < 0) continue;
    const before = cache.responses[r.prevIndex].ans;
    for (const c of r.ctx) {
      const x = cache.responses[c];
      if (x.a === r.a || x.ans < 0 || x.ans === before) continue;
      const f = followed[x.a];
      f.shown++;
      if (r.ans === x.ans) f.taken++;
      if (!x.correct) {
        f.shownWrong++;
        if (r.ans === x.ans) f.takenWrong++;
      }
    }
  }
  return cache.agents.map((agent, a) => {
    const rs = byAgent[a];
    if (rs.length === 0) throw new InputError(`behavior rows: agent '${agent.id}' has no responses to validation questions in ${cache.file}`);
    const first = rs.filter((r) => r.round === 1);
    const revisions = rs.filter((r) => r.prevIndex >= 0);
    let changed = 0;
    let net = 0;
    for (const r of revisions) {
      const prev = cache.responses[r.prevIndex];
      if (r.ans !== prev.ans) changed++;
      net += Number(r.correct) - Number(prev.correct);
    }
    const answers = new Map<number, Map<number, number>>();
    for (const r of first) {
      const counts = answers.get(r.q) ?? new Map<number, number>();
      counts.set(r.ans, (counts.get(r.ans) ?? 0) + 1);
      answers.set(r.q, counts);
    }
    let spread = 0;
    for (const counts of answers.values()) {
      const values = [...counts.values()];
      spread += 1 - Math.max(...values) / values.reduce((s, n) => s + n, 0);
    }
    const f = followed[a];
    const tokens = rs.reduce((s, r) => s + r.outTokens, 0) / rs.length;
    return Float32Array.of(
      share(first.filter((r) => r.correct).length, first.length),
      share(revisions.filter((r) => r.correct).length, revisions.length),
      share(changed, revisions.length),
      share(net, revisions.length),
      share(f.taken, f.shown),
      share(f.takenWrong, f.shownWrong),
      share(spread, answers.size),
      Math.log(Math.max(tokens, 1) / 200),
      agent.priceOut > 0 ? Math.log(agent.priceOut / 1e-6) / 3 : 0,
    );
  });
}

const rowsOfCache = new WeakMap<Cache, Float32Array[]>();

/** The rows of `team` (agent indices of `cache`), side by side (team.length x ROW_WIDTH); computed once per cache. */
export function teamRows(cache: Cache, team: number[]): Float32Array {
  let rows = rowsOfCache.get(cache);
  if (!rows) rowsOfCache.set(cache, (rows = cacheRows(cache)));
  const out = new Float32Array(team.length * ROW_WIDTH);
  team.forEach((a, i) => out.set(rows[a], i * ROW_WIDTH));
  return out;
}

/** The rows as a checkpoint and an exported policy carry them: agent id -> its numbers. */
export const rowsByAgent = (ids: string[], rows: Float32Array): Record<string, number[]> =>
  Object.fromEntries(ids.map((id, i) => [id, Array.from(rows.subarray(i * ROW_WIDTH, (i + 1) * ROW_WIDTH))]));
