// The behavior start's rows kept beside the cache (`<cache>/behavior.json`), so that a process that
// starts a policy on a cache started before takes each agent's row instead of reading every
// validation response's vector again (92,956 pages of the binary vectors at 100,000 questions: about
// 5 s of a run's setup). An entry is keyed by the encoder and the samples (all validation questions,
// or a count and the seed that draws them) and bound to what the rows are made from: cache.jsonl
// and its journal as they are now (recordsBinding in columns.ts, as the kept fit) and the embeddings file the
// vectors come from. An entry bound to other files is never used: the rows are made again, the
// entry replaced, and a line says so. JSON keeps every float32 exactly.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { recordsBinding, sourceState } from '../cache/columns.ts';
import { embeddingsPath } from '../cache/embeddings.ts';
import type { Cache } from '../cache/types.ts';
import { keepEntry, keptEntries } from '../io/jsonFile.ts';

export const BEHAVIOR_FILE = 'behavior.json';

interface Entry {
  from: string;
  /** Each agent's row (by agent id), for every agent with responses to the chosen questions. */
  rows: Record<string, number[]>;
}

/** What a cache's behavior rows under `encoder` are bound to now, or undefined for a cache not read from a folder (nothing is kept). */
function binding(cache: Cache, encoder: string): string | undefined {
  const records = recordsBinding(cache);
  const embeddings = embeddingsPath(dirname(cache.file), encoder);
  if (records === undefined || !existsSync(embeddings)) return undefined;
  return `${records}|${JSON.stringify(sourceState(embeddings))}`;
}

const behaviorPath = (cache: Cache) => join(dirname(cache.file), BEHAVIOR_FILE);
const keyOf = (encoder: string, initSamples: number | null, seed: string) => (initSamples === null ? `${encoder}|all` : `${encoder}|${initSamples}|${seed}`);

/**
 * Each agent's row of `cache` under `encoder` and the samples: the kept rows when bound to the
 * cache and embeddings as they are, else `make`'s (kept for the next process). A stale entry, or a
 * folder that cannot be written, is said.
 */
export function keptBehaviorRows(
  cache: Cache,
  encoder: string,
  dim: number,
  initSamples: number | null,
  seed: string,
  make: () => Map<number, Float32Array>,
): Map<number, Float32Array> {
  const from = binding(cache, encoder);
  if (from === undefined) return make();
  const file = behaviorPath(cache);
  const key = keyOf(encoder, initSamples, seed);
  const entry = (keptEntries(file) as Record<string, Entry | undefined>)[key];
  if (entry?.from === from && isRows(entry.rows, dim)) {
    const rows = new Map<number, Float32Array>();
    for (const [id, row] of Object.entries(entry.rows)) {
      const a = cache.agentIndex.get(id);
      if (a !== undefined) rows.set(a, Float32Array.from(row));
    }
    return rows;
  }
  if (entry)
    console.error(`${file}: the behavior start (${key}) was made from another ${cache.file} or ${embeddingsPath(dirname(cache.file), encoder)}: made again`);
  const rows = make();
  const kept: Entry = { from, rows: Object.fromEntries([...rows].map(([a, row]) => [cache.agents[a].id, Array.from(row)])) };
  keepEntry(file, key, kept, 'makes the behavior start');
  return rows;
}

const isRows = (rows: unknown, dim: number): rows is Record<string, number[]> =>
  !!rows && typeof rows === 'object' && Object.values(rows).every((r) => Array.isArray(r) && r.length === dim && r.every((v) => Number.isFinite(v)));
