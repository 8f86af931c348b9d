// Caches and embeddings kept loaded in a process that uses one cache again and again: a warm
// training process (train/cellWorker.ts) trains cell after cell of a grid on it, and a job compares
// several policies on it. What is kept is read again when its files changed (size, modification
// time or inode of cache.jsonl, of its record journal, of the embeddings file and its binary vectors
// file; embeddings keep only the open vectors file and the pages read, vectorReader.ts), so a kept cache is
// always the one a fresh load would give. Only caches that nothing adds to are kept: a run that
// records (miss = record) appends to its cache in memory and loads its own.
import type { Encoder } from '../encoders/index.ts';
import { embeddingsPath, ensureEmbeddings, type Embeddings } from './embeddings.ts';
import { fileState } from './hash.ts';
import { journalPath } from './journal.ts';
import { cacheFilePath, loadCacheSteps } from './load.ts';
import { vectorsPath } from './vectorsFile.ts';
import type { Cache } from './types.ts';

/** Caches kept at most: a grid over many caches keeps the last ones it used, not all. */
const KEPT = 2;

interface Kept {
  state: string;
  cache: Cache;
  /** What loading it warned about (a torn journal line), said again at every use. */
  warnings: string[];
  embeddings: Map<string, { state: string; embeddings: Embeddings }>;
}
const kept = new Map<string, Kept>();

/** The cache a run or a comparison reads, as steps: kept (keptCacheSteps), except one it records into (`records`), which it loads for itself. */
export const runCacheSteps = (dir: string, records: boolean): Generator<unknown, Cache> => (records ? loadCacheSteps(dir) : keptCacheSteps(dir));

/**
 * The cache in `dir`, as loadCacheSteps gives it: kept from an earlier call while its files are
 * unchanged (its warnings said again); a load it makes stops between its steps (src/io/interrupt.ts).
 */
export function* keptCacheSteps(dir: string, warn: (message: string) => void = console.error): Generator<unknown, Cache> {
  const state = `${fileState(cacheFilePath(dir))}|${fileState(journalPath(dir))}`;
  let k = kept.get(dir);
  kept.delete(dir); // set again below: the most recently used comes last
  if (k?.state === state) for (const w of k.warnings) warn(w);
  else {
    const warnings: string[] = [];
    const cache = yield* loadCacheSteps(dir, (w) => {
      warnings.push(w);
      warn(w);
    });
    k = { state, cache, warnings, embeddings: new Map() };
  }
  kept.set(dir, k);
  while (kept.size > KEPT) kept.delete(kept.keys().next().value!);
  return k.cache;
}

/**
 * The embeddings of a cache under `encoder`, as ensureEmbeddings gives them: kept with a kept
 * cache while the embeddings file is unchanged (for any other cache, ensureEmbeddings itself).
 */
export async function keptEmbeddings(dir: string, cache: Cache, encoder: Encoder): Promise<Embeddings> {
  const k = [...kept.values()].find((x) => x.cache === cache);
  if (!k) return ensureEmbeddings(dir, cache, encoder);
  // The vectors file too: one removed as damaged (vectorReader.ts) is rebuilt, not read again.
  const state = () => `${fileState(embeddingsPath(dir, encoder.id))}|${fileState(vectorsPath(dir, encoder.id))}`;
  const held = k.embeddings.get(encoder.id);
  if (held && held.state === state()) return held.embeddings;
  const embeddings = await ensureEmbeddings(dir, cache, encoder);
  k.embeddings.set(encoder.id, { state: state(), embeddings });
  return embeddings;
}
