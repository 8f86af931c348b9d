// What a training run is: the hash of what its result depends on, its resolved settings and the
// content of its cache (src/cache/hash.ts cacheHash). Jobs reuse or resume a run folder only when
// both match what they ask for, and otherwise name each difference; a grid on a queue names its
// cells by the same hash and by the compute settings the grid gives a cell (where it trains).
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { cacheHash, sha256File } from '../src/cache/hash.ts';
import { cacheFilePath } from '../src/cache/load.ts';
import { COMPUTE_SETTINGS } from '../src/policy/backends.ts';
import { resolveConfig, type TrainConfig } from './config.ts';

/**
 * Settings that say where a run lives and how it computes, not what it learns: the out folder and
 * the cache path (where, not what: the content hash stands for the cache), and engine, threads
 * and backend, which a resumed run may switch and on which the engines train to the same decisions
 * (docs/training.md, "Policy engines").
 */
const NOT_IDENTITY: readonly string[] = ['out', 'cache', ...COMPUTE_SETTINGS];

const learned = (settings: Partial<TrainConfig>) => Object.fromEntries(Object.entries(resolveConfig(settings)).filter(([k]) => !NOT_IDENTITY.includes(k)));

/**
 * A grid cell's identity on a queue: sha256 of its resolved settings but NOT_IDENTITY, of its
 * cache's content hash, and of the compute settings `settings` gives (engine, threads, backend: a
 * variant `{engine: onnx-cuda}` trains elsewhere than one that leaves its engine to the worker, so
 * two such cells are two jobs). Compute settings absent from `settings` are not part of it: a
 * worker fills them with its own.
 */
export function cellIdentity(settings: Partial<TrainConfig>, cacheContent: string): string {
  const compute = Object.fromEntries(COMPUTE_SETTINGS.filter((k) => settings[k] !== undefined).map((k) => [k, settings[k]]));
  // Keys sorted at every level, so that the order a file wrote them in does not matter.
  const canonical = JSON.stringify({ settings: learned(settings), ...(Object.keys(compute).length && { compute }), cache: cacheContent }, (_, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : 1))) : v,
  );
  return createHash('sha256').update(canonical).digest('hex');
}

/**
 * Each way a saved run differs from the run asked for: a setting (`batchSize 6 there, 3 asked`;
 * settings added to the trainer since the run was saved take their defaults on both sides), or the
 * cache content. Empty when their identities are equal.
 */
export function identityDifferences(
  saved: { config: Partial<TrainConfig>; cacheHash?: string },
  asked: { settings: Partial<TrainConfig>; cacheHash: string },
): string[] {
  const there = learned(saved.config) as Record<string, unknown>;
  const wanted = learned(asked.settings) as Record<string, unknown>;
  const differ = Object.keys(wanted)
    .filter((k) => JSON.stringify(there[k]) !== JSON.stringify(wanted[k]))
    .map((k) => `${k} ${JSON.stringify(there[k])} there, ${JSON.stringify(wanted[k])} asked`);
  const cache = asked.settings.cache ?? resolveConfig(asked.settings).cache;
  if (saved.cacheHash === undefined)
    differ.push(`the content of the cache it trained on is not recorded (saved before runs recorded it), so it cannot be told from ${cache}'s`);
  else if (saved.cacheHash !== asked.cacheHash)
    differ.push(
      `cache content sha256 ${saved.cacheHash.slice(0, 12)} there, ${asked.cacheHash.slice(0, 12)} in ${cache}${resolveConfig(asked.settings).teams.length ? ' and its teams caches' : ''} now`,
    );
  return differ;
}

/**
 * The content hash of the cache a run of `settings` is identified by: cache.jsonl and its record
 * journal (src/cache/hash.ts), except for a run that records (miss = record), whose journal grows
 * with what the run itself asks: cache.jsonl alone. A run that trains across teams (`teams`) also
 * depends on each team's cache: its hash is then the sha256 of the run cache's and theirs, in
 * order, so a team cache regenerated under the same path is another run. Memoized per cache by the
 * function returned, so a grid hashes each cache once. '' for a cache not there yet (a plan of a
 * cache to generate).
 */
export function runContentHashes(): (settings: Partial<TrainConfig>) => Promise<string> {
  const memo = new Map<string, Promise<string>>();
  const contentOf = (cache: string, record: boolean) => {
    const key = `${record}\0${cache}`;
    if (!memo.has(key)) memo.set(key, !existsSync(cacheFilePath(cache)) ? Promise.resolve('') : record ? sha256File(cacheFilePath(cache)) : cacheHash(cache));
    return memo.get(key)!;
  };
  return async (settings) => {
    const { cache, miss, teams } = resolveConfig(settings);
    const own = await contentOf(cache, miss === 'record');
    if (teams.length === 0) return own;
    const theirs = await Promise.all(teams.map((team) => contentOf(team, false)));
    return createHash('sha256')
      .update(JSON.stringify([own, ...theirs]))
      .digest('hex');
  };
}
