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
  // Two passes over the responses, none per member: the counts, then each agent's sum in response
  // order (the order its vectors' pages lie in), so each page is read once, not once a member.
  const inTeam = new Uint8Array(cache.agents.length);
  for (const a of team) inTeam[a] = 1;
  const counts = new Int32Array(cache.agents.length);
  for (const r of cache.responses) if (inTeam[r.a] && chosen.has(r.q)) counts[r.a]++;
  for (const a of team)
    if (counts[a] === 0) throw new InputError(`behavior init: agent '${cache.agents[a].id}' has no responses to validation questions in ${cache.file}`);
  const sums = new Float32Array(cache.agents.length * D);
  for (const r of cache.responses) {
    if (!inTeam[r.a] || !chosen.has(r.q)) continue;
    const v = emb.response(r.index);
    for (let k = 0; k < D; k++) sums[r.a * D + k] += v[k] / counts[r.a];
  }
  const out = new Float32Array(team.length * D);
  team.forEach((a, i) => {
    out.set(sums.subarray(a * D, (a + 1) * D), i * D);
  });
  return out;
}
