// The identity of a cache's content: sha256 of its cache.jsonl, read as a stream (a cache may be
// far larger than memory), in lowercase hex, the same as `sha256sum <dir>/cache.jsonl`. Embeddings
// are not part of it: they derive from the texts and the encoder, which a run names itself.
import { createHash } from 'node:crypto';
import { createReadStream, existsSync } from 'node:fs';
import { cacheFilePath } from './load.ts';

export async function cacheHash(dir: string): Promise<string> {
  const file = cacheFilePath(dir);
  if (!existsSync(file)) throw new Error(`${file}: file not found`);
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}
