// Embeddings per encoder, kept apart from the texts: `<cache>/embeddings/<encoder id>.jsonl`, a
// header line then one line per question or response: {"kind","id","v"} with `v` the vector as
// base64 of little-endian float32. A cache can carry any number of encoders side by side.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import type { Encoder } from '../encoders/index.ts';
import { progress } from '../progress.ts';
import { EMBEDDINGS_DIR } from './format.ts';
import { CacheError, checkedLines, fileLines, type Cache, type Problem } from './load.ts';
import { chunked, writeFileAtomic } from './write.ts';

const EmbeddingsHeader = z.strictObject({ type: z.literal('embeddings'), version: z.literal(1), encoder: z.string(), dim: z.number().int().positive() });
const EmbeddingLine = z.strictObject({ kind: z.enum(['question', 'response']), id: z.string().min(1), v: z.string() });
type EmbeddingsHeader = z.infer<typeof EmbeddingsHeader>;
type EmbeddingLine = z.infer<typeof EmbeddingLine>;

export interface Embeddings {
  encoder: string;
  dim: number;
  /** By question index and by response index; every entry is filled. */
  questions: Float32Array[];
  responses: Float32Array[];
  /** The encoder that made them: responses the record tier adds are embedded with it (embedArrivals). */
  embedder: Encoder;
}

export const embeddingsPath = (dir: string, encoderId: string) => join(dir, EMBEDDINGS_DIR, `${encoderId}.jsonl`);

const toBase64 = (v: Float32Array) => Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('base64');

function fromBase64(s: string, dim: number): Float32Array | undefined {
  const bytes = Buffer.from(s, 'base64');
  if (bytes.length !== dim * 4) return undefined;
  const v = new Float32Array(dim);
  new Uint8Array(v.buffer).set(bytes);
  return v;
}

/** Read stored vectors by `kind:id`; throws a CacheError naming file, line and field. */
function readStored(file: string, encoderId: string, dim: number): Map<string, Float32Array> {
  const stored = new Map<string, Float32Array>();
  if (!existsSync(file)) return stored;
  const problems: Problem[] = [];
  for (const { rec, line } of checkedLines<EmbeddingsHeader | EmbeddingLine>(fileLines(file), file, (line) => (line === 1 ? EmbeddingsHeader : EmbeddingLine), problems)) {
    if ('type' in rec) {
      if (rec.encoder !== encoderId || rec.dim !== dim) problems.push({ file, line, field: 'encoder', message: `holds ${rec.encoder} (dim ${rec.dim}), expected ${encoderId} (dim ${dim})` });
      continue;
    }
    const v = fromBase64(rec.v, dim);
    if (!v) problems.push({ file, line, field: 'v', message: `not ${dim} base64 float32 values` });
    else stored.set(`${rec.kind}:${rec.id}`, v);
  }
  if (problems.length) throw new CacheError(problems);
  return stored;
}

/**
 * The cache's embeddings under `encoder`, computing (with a progress bar) and storing only the
 * texts not yet embedded. The file is rewritten atomically when anything was added.
 */
export async function ensureEmbeddings(dir: string, cache: Cache, encoder: Encoder, batch = 256): Promise<Embeddings> {
  const file = embeddingsPath(dir, encoder.id);
  const stored = readStored(file, encoder.id, encoder.dim);
  const wanted = [
    ...cache.questions.map((q) => ({ key: `question:${q.id}`, text: q.text })),
    ...cache.responses.map((r) => ({ key: `response:${r.id}`, text: r.text })),
  ];
  const missing = wanted.filter((w) => !stored.has(w.key));
  if (missing.length > 0) {
    const bar = progress(`embed ${encoder.id}`, missing.length);
    for (let i = 0; i < missing.length; i += batch) {
      const chunk = missing.slice(i, i + batch);
      const vectors = await encoder.encode(chunk.map((m) => m.text));
      chunk.forEach((m, k) => stored.set(m.key, vectors[k]));
      bar.update(Math.min(missing.length, i + batch));
    }
    bar.stop();
    writeFileAtomic(file, chunked(embeddingLines(encoder, stored)));
  }
  return {
    encoder: encoder.id,
    dim: encoder.dim,
    questions: cache.questions.map((q) => stored.get(`question:${q.id}`)!),
    responses: cache.responses.map((r) => stored.get(`response:${r.id}`)!),
    embedder: encoder,
  };
}

/**
 * Embed the responses added to a loaded cache since `emb` was made (by the record tier), appending
 * their vectors in memory; the embeddings file gets them at the next ensureEmbeddings.
 */
export async function embedArrivals(emb: Embeddings, cache: Cache): Promise<void> {
  if (emb.responses.length >= cache.responses.length) return;
  const arrived = cache.responses.slice(emb.responses.length);
  emb.responses.push(...(await emb.embedder.encode(arrived.map((r) => r.text))));
}

function* embeddingLines(encoder: Encoder, stored: Map<string, Float32Array>): Generator<string> {
  yield JSON.stringify({ type: 'embeddings', version: 1, encoder: encoder.id, dim: encoder.dim });
  for (const [key, v] of stored) {
    const at = key.indexOf(':');
    yield JSON.stringify({ kind: key.slice(0, at), id: key.slice(at + 1), v: toBase64(v) });
  }
}
