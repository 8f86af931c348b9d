// Embeddings per encoder, kept apart from the texts: `<cache>/embeddings/<encoder id>.jsonl`, a
// header line (encoder id, dimension, format version 2), then one line per distinct text:
// {"sha256": <hash of the text>, "v": <base64 of little-endian float32>}. A vector is found by the
// hash of its text under its encoder (the file), never by a record id, so an edited or regenerated
// text gets a vector of its own and a stale one is never used; vectors of texts the cache no longer
// holds are dropped at the next write. A file of format version 1 (keyed by record id) is
// recomputed. A cache can carry any number of encoders side by side.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import type { Encoder } from '../encoders/index.ts';
import { lockFolderWaiting } from '../io/lock.ts';
import { onInterrupt, stopPoint } from '../io/interrupt.ts';
import { progress } from '../progress.ts';
import { fileLines } from '../io/textFile.ts';
import { EMBEDDINGS_DIR } from './format.ts';
import { checkedLines, type Problem } from '../io/problems.ts';
import { CacheError, type Cache } from './types.ts';
import { writeFileAtomic } from '../io/atomic.ts';
import { float32FromBase64 } from '../io/float32.ts';
import { chunked } from './write.ts';

const VERSION = 2;
const sha256 = z.string().regex(/^[0-9a-f]{64}$/, 'not a sha256 (64 hex digits)');
const EmbeddingsHeader = z.strictObject({
  type: z.literal('embeddings'),
  version: z.literal([1, VERSION]),
  encoder: z.string().min(1),
  dim: z.number().int().positive(),
});
// `v` is checked where it is decoded (src/io/float32.ts).
const EmbeddingLine = z.strictObject({ sha256, v: z.string() });
/** A line of a version-1 file (keyed by record id): read only to be replaced. */
const OldLine = z.strictObject({ kind: z.enum(['question', 'response']), id: z.string().min(1), v: z.string() });
type EmbeddingsHeader = z.infer<typeof EmbeddingsHeader>;
type EmbeddingLine = z.infer<typeof EmbeddingLine>;
type OldLine = z.infer<typeof OldLine>;

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

/** The key of a text's vector: sha256 of its UTF-8 bytes. */
export const textKey = (text: string) => createHash('sha256').update(text).digest('hex');

const toBase64 = (v: Float32Array) => Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('base64');

/** A stored vector, or why it is not one. */
function fromBase64(s: string, dim: number): Float32Array | string {
  const v = float32FromBase64(s, dim);
  if (v instanceof Float32Array) return v;
  if ('notBase64' in v) return 'not base64';
  if ('index' in v) return `value ${v.index} is ${v.value}: vectors hold finite numbers only`;
  return v.bytes % 4
    ? `${v.bytes} bytes, not float32 values (the header's dim is ${dim}: ${dim * 4} bytes)`
    : `${v.bytes / 4} float32 values, the header's dim is ${dim}`;
}

interface Stored {
  header?: EmbeddingsHeader;
  /** Vectors by text hash, with the line each is on. */
  vectors: Map<string, Float32Array>;
  lines: Map<string, number>;
}

/** Read an embeddings file; every problem (file, line, field) goes to `problems`. */
function readFile(file: string, problems: Problem[]): Stored {
  const out: Stored = { vectors: new Map(), lines: new Map() };
  if (!existsSync(file)) return out;
  for (const { rec, line } of checkedLines<EmbeddingsHeader | EmbeddingLine | OldLine>(
    fileLines(file),
    file,
    (line) => (line === 1 ? EmbeddingsHeader : out.header?.version === 1 ? OldLine : EmbeddingLine),
    problems,
  )) {
    if ('type' in rec) {
      out.header = rec;
      continue;
    }
    if (out.header?.version !== VERSION || !('sha256' in rec)) continue;
    const seen = out.lines.get(rec.sha256);
    if (seen !== undefined) {
      problems.push({ file, line, field: 'sha256', message: `a second vector for the same text (first on line ${seen}): one vector per text` });
      continue;
    }
    const v = fromBase64(rec.v, out.header.dim);
    if (typeof v === 'string') problems.push({ file, line, field: 'v', message: v });
    else {
      out.vectors.set(rec.sha256, v);
      out.lines.set(rec.sha256, line);
    }
  }
  if (!out.header && out.lines.size === 0 && problems.length === 0)
    problems.push({ file, line: 1, field: 'type', message: 'empty file: no embeddings header' });
  return out;
}

/** The stored vectors under `encoder` (none when the file is of the older format); a CacheError names every problem. */
function readStored(file: string, encoder: Encoder): { vectors: Map<string, Float32Array>; outdated: boolean } {
  const problems: Problem[] = [];
  const stored = readFile(file, problems);
  const h = stored.header;
  if (h && (h.encoder !== encoder.id || h.dim !== encoder.dim))
    problems.push({ file, line: 1, field: 'encoder', message: `holds ${h.encoder} (dim ${h.dim}), expected ${encoder.id} (dim ${encoder.dim})` });
  if (problems.length) throw new CacheError(problems.map((p) => ({ ...p, message: `${p.message} (delete the file to compute the embeddings anew)` })));
  return { vectors: stored.vectors, outdated: h !== undefined && h.version !== VERSION };
}

/**
 * The cache's embeddings under `encoder`, computing (with a progress bar, `batch` texts at a time)
 * and storing only the texts without a vector. The file is rewritten atomically, with the cache
 * folder locked (a process writing it meanwhile is waited for), when a text was embedded or a
 * vector went stale; `locked`: the caller holds that lock already (`cache embed` holds it throughout).
 */
export async function ensureEmbeddings(dir: string, cache: Cache, encoder: Encoder, o: { batch?: number; locked?: boolean } = {}): Promise<Embeddings> {
  const batch = o.batch ?? 256;
  const file = embeddingsPath(dir, encoder.id);
  const { vectors, outdated } = readStored(file, encoder);
  const keys = { questions: cache.questions.map((q) => textKey(q.text)), responses: cache.responses.map((r) => textKey(r.text)) };
  const texts = new Map<string, string>();
  cache.questions.forEach((q, i) => texts.set(keys.questions[i], q.text));
  cache.responses.forEach((r, i) => texts.set(keys.responses[i], r.text));
  const missing = [...texts.keys()].filter((k) => !vectors.has(k));
  const stale = [...vectors.keys()].filter((k) => !texts.has(k)).length;
  if (outdated) console.error(`${file}: embeddings of format version 1 (matched by record id, not by text): recomputing them`);
  /** Write the vectors computed so far (another process's stored ones stand: same texts, same encoder). */
  const save = async () => {
    const unlock = o.locked ? () => {} : await lockFolderWaiting(dir, `the ${encoder.id} embeddings`, 600);
    try {
      for (const [k, v] of readStored(file, encoder).vectors) if (texts.has(k)) vectors.set(k, v);
      const known = [...texts.keys()].filter((k) => vectors.has(k));
      writeFileAtomic(
        file,
        chunked(
          embeddingLines(
            encoder,
            known.map((k) => [k, vectors.get(k)!]),
          ),
        ),
      );
      return known.length;
    } finally {
      unlock();
    }
  };
  if (missing.length > 0) {
    const bar = progress(`embed ${encoder.id}`, missing.length);
    // Stopped (Ctrl-C, SIGTERM) between batches: what was embedded is kept, the rest is embedded at the next use.
    let kept = 0;
    const unregister = onInterrupt({
      finish: async () => void (kept = await save()),
      say: () => [`${file}: kept the vectors of ${kept} of ${texts.size} texts; the rest are embedded at the next use (cache embed, train)`],
    });
    try {
      for (let i = 0; i < missing.length; i += batch) {
        const chunk = missing.slice(i, i + batch);
        const computed = await encoder.encode(chunk.map((k) => texts.get(k)!));
        chunk.forEach((k, j) => vectors.set(k, computed[j]));
        bar.update(Math.min(missing.length, i + batch));
        await stopPoint();
      }
    } finally {
      unregister();
    }
    bar.stop();
  }
  if (missing.length > 0 || stale > 0 || outdated) await save();
  return {
    encoder: encoder.id,
    dim: encoder.dim,
    questions: keys.questions.map((k) => vectors.get(k)!),
    responses: keys.responses.map((k) => vectors.get(k)!),
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

function* embeddingLines(encoder: Encoder, vectors: [string, Float32Array][]): Generator<string> {
  yield JSON.stringify({ type: 'embeddings', version: VERSION, encoder: encoder.id, dim: encoder.dim });
  for (const [k, v] of vectors) yield JSON.stringify({ sha256: k, v: toBase64(v) });
}

/**
 * `cache validate` of the embeddings files of a cache: errors (the header, a vector's dimension, a
 * value that is not finite, two vectors for one text) and warnings (a file of the older format,
 * texts without a vector, vectors of no text: recomputed or dropped at the next use).
 */
export function checkEmbeddings(dir: string, cache: Cache | undefined): { errors: Problem[]; warnings: Problem[] } {
  const folder = join(dir, EMBEDDINGS_DIR);
  const errors: Problem[] = [];
  const warnings: Problem[] = [];
  if (!existsSync(folder)) return { errors, warnings };
  for (const name of readdirSync(folder)
    .filter((f) => f.endsWith('.jsonl'))
    .sort()) {
    const file = join(folder, name);
    const stored = readFile(file, errors);
    const h = stored.header;
    if (!h) continue;
    if (`${h.encoder}.jsonl` !== name)
      errors.push({ file, line: 1, field: 'encoder', message: `${h.encoder}, but the file is named for ${name.replace(/\.jsonl$/, '')}` });
    if (h.version !== VERSION) {
      warnings.push({ file, line: 1, field: 'version', message: `format version ${h.version} (matched by record id): recomputed at the next use` });
      continue;
    }
    if (!cache) continue;
    const texts = new Set([...cache.questions.map((q) => textKey(q.text)), ...cache.responses.map((r) => textKey(r.text))]);
    const without = [...texts].filter((k) => !stored.vectors.has(k)).length;
    const stale = [...stored.lines].filter(([k]) => !texts.has(k));
    if (without)
      warnings.push({
        file,
        line: 0,
        field: '',
        message: `${without} of the cache's ${texts.size} texts have no vector yet: computed at the next use (cache embed)`,
      });
    if (stale.length)
      warnings.push({
        file,
        line: stale[0][1],
        field: 'sha256',
        message: `${stale.length} vectors of texts the cache no longer holds (first on this line): dropped at the next write`,
      });
  }
  return { errors, warnings };
}
