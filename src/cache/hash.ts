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
import { createReadStream, existsSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { writeFileAtomic } from '../io/atomic.ts';
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

/** sha256 of one file. */
export function sha256File(file: string): Promise<string> {
  return once([file], async () => (await feed(createHash('sha256'), file)).digest('hex'));
}

/** sha256 of a cache's content: cache.jsonl, then journal.jsonl when present. */
export function cacheHash(dir: string): Promise<string> {
  return once([cacheFilePath(dir), journalPath(dir)], async () => {
    checkReadable(cacheFilePath(dir));
    const from = JSON.stringify({ cache: sourceState(cacheFilePath(dir)), journal: existsSync(journalPath(dir)) ? sourceState(journalPath(dir)) : null });
    const kept = keptHash(dir);
    if (kept?.from === from) return kept.sha256;
    const hash = await feed(createHash('sha256'), cacheFilePath(dir));
    if (existsSync(journalPath(dir))) await feed(hash, journalPath(dir));
    const sha256 = hash.digest('hex');
    try {
      writeFileAtomic(join(dir, HASH_FILE), [`${JSON.stringify({ sha256, from })}\n`]);
    } catch (e) {
      console.error(`${join(dir, HASH_FILE)}: could not be written (${(e as Error).message}); the next process hashes ${cacheFilePath(dir)} again`);
    }
    return sha256;
  });
}

/** The hash kept beside a cache and what it was computed from; undefined when there is none or it does not parse (it is then recomputed). */
function keptHash(dir: string): { sha256: string; from: string } | undefined {
  const file = join(dir, HASH_FILE);
  if (!existsSync(file)) return undefined;
  try {
    const kept = JSON.parse(readFileSync(file, 'utf8')) as { sha256?: unknown; from?: unknown };
    return typeof kept.sha256 === 'string' && /^[0-9a-f]{64}$/.test(kept.sha256) && typeof kept.from === 'string'
      ? { sha256: kept.sha256, from: kept.from }
      : undefined;
  } catch {
    return undefined;
  }
}
