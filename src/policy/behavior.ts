// The behavior embedding's start (docs/method.md §4): each team member's row is the mean embedding
// of its responses to validation questions, so a policy starts from how each agent writes. A new
// run starts every row so; a transferred policy (docs/transfer.md) starts the newcomer's row so.
import seedrandom from 'seedrandom';
import type { Embeddings } from '../cache/embeddings.ts';
import type { Cache } from '../cache/types.ts';
import { InputError } from '../io/errors.ts';
import { shuffle } from '../shuffle.ts';
import { keptBehaviorRows } from './keptBehavior.ts';

/** Rows for `team` (agent indices of `cache`): mean embedding of each member's responses to `initSamples` validation questions (null: all), drawn by `seed`; kept beside the cache (keptBehavior.ts). */
export function behaviorInit(cache: Cache, emb: Embeddings, team: number[], initSamples: number | null, seed: string): Float32Array {
  const D = emb.dim;
  const rows = keptBehaviorRows(cache, emb.encoder, D, initSamples, seed, () => agentRows(cache, emb, initSamples, seed));
  const out = new Float32Array(team.length * D);
  team.forEach((a, i) => {
    const row = rows.get(a);
    if (!row) throw new InputError(`behavior init: agent '${cache.agents[a].id}' has no responses to validation questions in ${cache.file}`);
    out.set(row, i * D);
  });
  return out;
}

/** Each agent's mean embedding of its responses to the chosen validation questions, for every agent that has some. */
function agentRows(cache: Cache, emb: Embeddings, initSamples: number | null, seed: string): Map<number, Float32Array> {
  const D = emb.dim;
  const val = shuffle(
    cache.questions.filter((q) => q.split === 'validation').map((q) => q.index),
    seedrandom(`${seed}|behavior`),
  );
  const chosen = new Set(initSamples === null ? val : val.slice(0, initSamples));
  // Two passes over the responses, none per agent: the counts, then each agent's sum in response
  // order (the order its vectors' pages lie in), so each page is read once, not once an agent.
  const counts = new Int32Array(cache.agents.length);
  for (const r of cache.responses) if (chosen.has(r.q)) counts[r.a]++;
  const sums = new Float32Array(cache.agents.length * D);
  for (const r of cache.responses) {
    if (!chosen.has(r.q)) continue;
    const v = emb.response(r.index);
    for (let k = 0; k < D; k++) sums[r.a * D + k] += v[k] / counts[r.a];
  }
  const rows = new Map<number, Float32Array>();
  counts.forEach((n, a) => {
    if (n > 0) rows.set(a, sums.subarray(a * D, (a + 1) * D));
  });
  return rows;
}
