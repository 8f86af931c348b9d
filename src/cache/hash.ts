// Content hashes: sha256 of a file read as a stream (a cache may be far larger than memory), in
// lowercase hex, the same as `sha256sum`. A cache's identity is its cache.jsonl, followed by its
// record journal when it has one (recorded responses change what a replay answers). Embeddings are
// not part of it: they derive from the texts and the encoder, which a run names itself.
import { createHash, type Hash } from 'node:crypto';
import { createReadStream, existsSync } from 'node:fs';
import { journalPath } from './journal.ts';
import { cacheFilePath } from './load.ts';
import { checkReadable } from '../io/textFile.ts';

async function feed(hash: Hash, file: string): Promise<Hash> {
  checkReadable(file);
  for await (const chunk of createReadStream(file, { highWaterMark: 1 << 20 })) hash.update(chunk as Buffer);
  return hash;
}

/** sha256 of one file. */
export async function sha256File(file: string): Promise<string> {
  return (await feed(createHash('sha256'), file)).digest('hex');
}

/** sha256 of a cache's content: cache.jsonl, then journal.jsonl when present. */
export async function cacheHash(dir: string): Promise<string> {
  const hash = await feed(createHash('sha256'), cacheFilePath(dir));
  if (existsSync(journalPath(dir))) await feed(hash, journalPath(dir));
  return hash.digest('hex');
}
