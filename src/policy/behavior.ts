// The behavior embedding's start (docs/method.md §4): each team member's row is the mean embedding
// of its responses to validation questions, so a policy starts from how each agent writes. A new
// run starts every row so; a transferred policy (docs/transfer.md) starts the newcomer's row so.
import seedrandom from 'seedrandom';
import type { Embeddings } from '../cache/embeddings.ts';
import type { Cache } from '../cache/types.ts';
import { InputError } from '../io/errors.ts';
import { shuffle } from '../shuffle.ts';

/** Rows for `team` (agent indices of `cache`): mean embedding of each member's responses to `initSamples` validation questions (null: all), drawn by `seed`. */
export function behaviorInit(cache: Cache, emb: Embeddings, team: number[], initSamples: number | null, seed: string): Float32Array {
  const D = emb.dim;
  const val = shuffle(
    cache.questions.filter((q) => q.split === 'validation').map((q) => q.index),
    seedrandom(`${seed}|behavior`),
  );
  const chosen = new Set(initSamples === null ? val : val.slice(0, initSamples));
  const out = new Float32Array(team.length * D);
  team.forEach((a, i) => {
    const rs = cache.responses.filter((r) => r.a === a && chosen.has(r.q));
    if (rs.length === 0) throw new InputError(`behavior init: agent '${cache.agents[a].id}' has no responses to validation questions in ${cache.file}`);
    for (const r of rs) {
      const v = emb.response(r.index);
      for (let k = 0; k < D; k++) out[i * D + k] += v[k] / rs.length;
    }
  });
  return out;
}
