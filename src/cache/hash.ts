// Content hashes: sha256 of a file read as a stream (a cache may be far larger than memory), in
// lowercase hex, the same as `sha256sum`. A cache's identity is its cache.jsonl, followed by its
// record journal when it has one (recorded responses change what a replay answers). Embeddings are
// not part of it: they derive from the texts and the encoder, which a run names itself.
// A process hashes a file once while it is unchanged (its size, modification time and inode): a
// warm training process asks for the same cache's hash at every run. A cache's hash is also kept
// beside it (`<cache>/cache.sha256`, HASH_FILE) with what it was computed from: cache.jsonl's and
// the journal's size, mtime, inode and the hash of their first and last 64 KiB (columns.ts
// sourceState, the same check that lets the columns file stand for cache.jsonl), so that a cold
// process (each run of `train`, a job's first training processes) does not read the whole cache
// again; a file that differs from them, or that does not parse, is recomputed and rewritten.
import { createHash, type Hash } from 'node:crypto';
import { createReadStream, existsSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { keepEntry, keptEntries } from '../io/jsonFile.ts';
import { sourceState } from './columns.ts';
import { journalPath } from './journal.ts';
import { cacheFilePath } from './load.ts';
import { checkReadable } from '../io/textFile.ts';

export const HASH_FILE = 'cache.sha256';

async function feed(hash: Hash, file: string): Promise<Hash> {
  checkReadable(file);
  for await (const chunk of createReadStream(file, { highWaterMark: 1 << 20 })) hash.update(chunk as Buffer);
  return hash;
}

/** What tells a file's content apart without reading it: size, modification time, inode; '-' when there is none. */
export function fileState(file: string): string {
  if (!existsSync(file)) return '-';
  const s = statSync(file, { bigint: true });
  return `${s.size}:${s.mtimeNs}:${s.ino}`;
}

const hashed = new Map<string, { state: string; hash: Promise<string> }>();
/** `compute`'s hash of `files`, or the one computed earlier in this process while every file is unchanged. */
function once(files: string[], compute: () => Promise<string>): Promise<string> {
  const key = files.map((f) => resolve(f)).join('\0');
  const state = files.map(fileState).join('|');
  const held = hashed.get(key);
  if (held?.state === state) return held.hash;
  const hash = compute();
  hashed.set(key, { state, hash });
  hash.catch(() => hashed.get(key)?.hash === hash && hashed.delete(key)); // a failed read is tried anew
  return hash;
}

/**
 * sha256 of one file. `keep`: the hash is also kept in the `cache.sha256` of the file's folder
 * (keptSha256), for a file of a cache that a later process hashes again (provenance's cache.jsonl
 * and embeddings files).
 */
export function sha256File(file: string, keep = false): Promise<string> {
  return once([file], () => (keep ? keptSha256(dirname(file), basename(file), [file]) : hashOf([file])));
}

let keeping = true;
/** A process that only plans (`--dry-run`, `--print-config`) writes nothing: hashes are read from `cache.sha256` but no longer kept there. */
export function keepNoHashes(): void {
  keeping = false;
}

/** sha256 of a cache's content: cache.jsonl, then journal.jsonl when present; kept in `<dir>/cache.sha256`. */
export function cacheHash(dir: string): Promise<string> {
  return once([cacheFilePath(dir), journalPath(dir)], () => keptSha256(dir, 'content', [cacheFilePath(dir), journalPath(dir)]));
}

/** sha256 of `files` one after the other; a missing one but the first is left out (a journal not there). */
async function hashOf(files: string[]): Promise<string> {
  const hash = createHash('sha256');
  for (const [i, file] of files.entries()) if (i === 0 || existsSync(file)) await feed(hash, file);
  return hash.digest('hex');
}

/**
 * hashOf(`files`), taken from `<dir>/cache.sha256` (entry `name`) when it was computed from the
 * files as they are now (sourceState of each: size, mtime, inode, end blocks); else computed and
 * kept there (atomically; entries of other names are kept too, one lost to a concurrent write is
 * recomputed at its next use). An entry that does not parse is recomputed.
 */
async function keptSha256(dir: string, name: string, files: string[]): Promise<string> {
  checkReadable(files[0]);
  const from = JSON.stringify(files.map((f) => (existsSync(f) ? sourceState(f) : null)));
  const file = join(dir, HASH_FILE);
  const kept = keptEntries(file);
  const entry = kept[name] as { sha256?: unknown; from?: unknown } | undefined;
  if (entry?.from === from && typeof entry.sha256 === 'string' && /^[0-9a-f]{64}$/.test(entry.sha256)) return entry.sha256;
  const sha256 = await hashOf(files);
  if (keeping) keepEntry(file, name, { sha256, from }, `hashes ${files[0]}`);
  return sha256;
}
