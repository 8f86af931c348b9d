// Content hashes: sha256 of a file read as a stream (a cache may be far larger than memory), in
// lowercase hex, the same as `sha256sum`. A cache's identity is its cache.jsonl, followed by its
// record journal when it has one (recorded responses change what a replay answers). Embeddings are
// not part of it: they derive from the texts and the encoder, which a run names itself.
// A process hashes a file once while it is unchanged (its size, modification time and inode): a
// warm training process asks for the same cache's hash at every run.
import { createHash, type Hash } from 'node:crypto';
import { createReadStream, existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { journalPath } from './journal.ts';
import { cacheFilePath } from './load.ts';
import { checkReadable } from '../io/textFile.ts';

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
    const hash = await feed(createHash('sha256'), cacheFilePath(dir));
    if (existsSync(journalPath(dir))) await feed(hash, journalPath(dir));
    return hash.digest('hex');
  });
}
