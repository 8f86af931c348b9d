// Embeddings per encoder, kept apart from the texts: `<cache>/embeddings/<encoder id>.jsonl`, a
// header line (encoder id, dimension, format version 2), then one line per distinct text:
// {"sha256": <hash of the text>, "v": <base64 of little-endian float32>}. A vector is found by the
// hash of its text under its encoder (the file), never by a record id, so an edited or regenerated
// text gets a vector of its own and a stale one is never used; vectors of texts the cache no longer
// holds are dropped at the next write. A file of format version 1 (keyed by record id) is
// recomputed. A cache can carry any number of encoders side by side.
// Embedding streams (embeddingsFile.ts): texts are read from the cache as they are embedded, and
// vectors are appended to the file as they are made (whole lines, fsynced, under the cache's lock),
// so a stopped or killed embedding keeps what it made and the next use embeds only the rest.
// Training and evaluation read the vectors from their binary form (vectorsFile.ts) while it is bound
// to today's cache and embeddings file, by slot as steps ask (vectorReader.ts): no JSON vector is
// parsed, no text hashed, and what is held does not grow with the cache.
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Encoder } from '../encoders/index.ts';
import { lockFolderWaiting } from '../io/lock.ts';
import { onInterrupt, stopPoint } from '../io/interrupt.ts';
import { progress } from '../progress.ts';
import { EMBEDDINGS_DIR } from './format.ts';
import type { Problem } from '../io/problems.ts';
import { CacheError, type Cache } from './types.ts';
import { float32FromBase64 } from '../io/float32.ts';
import { vectorReader } from './vectorReader.ts';
import { openVectors, vectorsPath, vectorsWriter, type VectorsWriter } from './vectorsFile.ts';
import { appendedSince, appendLines, keepOnly, scanFile, startedFor, startFile, textIndex, VERSION, vectorLine, type TextIndex } from './embeddingsFile.ts';

export { textKey } from './embeddingsFile.ts';

export interface Embeddings {
  encoder: string;
  dim: number;
  /** The vector of question i (by its index in the cache; texts alike share one vector): a view, read and never written. */
  question(i: number): Float32Array;
  /** The vector of response j, the same way; responses the record tier adds are embedded with `embedder` (embedArrivals). */
  response(j: number): Float32Array;
  /** Responses with a vector: the cache's when they were read, and those embedArrivals added since. */
  readonly responses: number;
  /** Vectors of responses added since (embedArrivals), held in memory. */
  arrived: Float32Array[];
  /** The encoder that made them. */
  embedder: Encoder;
}

export const embeddingsPath = (dir: string, encoderId: string) => join(dir, EMBEDDINGS_DIR, `${encoderId}.jsonl`);

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

/** Pending vector lines are appended once they hold about this many characters (and at the end, or a stop). */
const APPEND_CHARS = 1 << 20;
/** Appends of one file by this process, one after the other (two encoders' or two jobs' embeddings never take the cache's lock at once). */
const appending = new Map<string, Promise<unknown>>();

/**
 * Embed the texts of `cache` that have no vector under `encoder` yet (with a progress bar, `batch`
 * texts at a time), appending their vectors to the embeddings file as they are made; each stored
 * and each new vector is handed to `keep` by its text's slot. Texts are read from the cache when
 * they are embedded, so memory grows with the number of texts (their keys), not with their
 * length nor with the vectors (unless `keep` holds them). Appends take the cache folder's lock
 * (a process writing it meanwhile is waited for); `locked`: the caller holds it already (`cache
 * embed` holds it throughout). Vectors of texts the cache no longer holds are dropped at the end.
 */
export async function embedCache(
  dir: string,
  cache: Cache,
  encoder: Encoder,
  o: { batch?: number; locked?: boolean } = {},
  keep: (slot: number, v: Float32Array) => void = () => {},
): Promise<{ index: TextIndex; embedded: number }> {
  const batch = o.batch ?? 256;
  const file = embeddingsPath(dir, encoder.id);
  const index = textIndex(cache);
  const have = new Uint8Array(index.size);
  const lineOf = new Int32Array(index.size);
  const problems: Problem[] = [];
  let stale = 0;
  const take = (slot: number, v: string, line: number, dim = encoder.dim) => {
    const vector = fromBase64(v, dim);
    if (typeof vector === 'string') problems.push({ file, line, field: 'v', message: vector });
    else {
      have[slot] = 1;
      lineOf[slot] = line;
      keep(slot, vector);
    }
  };
  const scan = scanFile(file, problems, ({ binary, v, line }, { dim }) => {
    const slot = index.slots.get(binary);
    if (slot === undefined) stale++;
    else if (have[slot])
      problems.push({ file, line, field: 'sha256', message: `a second vector for the same text (first on line ${lineOf[slot]}): one vector per text` });
    else take(slot, v, line, dim);
  });
  const h = scan.header;
  if (h && h.version === VERSION && (h.encoder !== encoder.id || h.dim !== encoder.dim))
    problems.push({ file, line: 1, field: 'encoder', message: `holds ${h.encoder} (dim ${h.dim}), expected ${encoder.id} (dim ${encoder.dim})` });
  if (problems.length) throw new CacheError(problems.map((p) => ({ ...p, message: `${p.message} (delete the file to compute the embeddings anew)` })));
  if (h && h.version !== VERSION) console.error(`${file}: embeddings of format version 1 (matched by record id, not by text): recomputing them`);
  let fresh = !h || h.version !== VERSION; // the file is started anew (its header) at the first append
  let end = scan.end;
  // Two processes embedding one cache at once (a job's cold training processes) start at different
  // texts (by process id), so that each takes up the other's appended vectors instead of repeating them.
  const unmade: number[] = [];
  for (let slot = 0; slot < index.size; slot++) if (!have[slot]) unmade.push(slot);
  const first = unmade.length ? process.pid % unmade.length : 0;
  const missing = unmade.slice(first).concat(unmade.slice(0, first));

  /** Under the cache's lock: what another process appended since `end` is taken, then `pending` that is still missing is appended. */
  const locked = async (work: () => void) => {
    const before = appending.get(file) ?? Promise.resolve();
    const mine = before.then(async () => {
      const unlock = o.locked ? () => {} : await lockFolderWaiting(dir, `the ${encoder.id} embeddings`, 600);
      try {
        work();
      } finally {
        unlock();
      }
    });
    appending.set(
      file,
      mine.catch(() => {}),
    );
    return mine;
  };
  let pending: { slot: number; line: string }[] = [];
  let pendingChars = 0;
  const flush = () =>
    locked(() => {
      if (fresh) {
        if (!startedFor(file, encoder)) startFile(file, encoder); // else another process started it: its lines are taken up below
        fresh = false;
        end = 0;
      }
      const since = appendedSince(file, end);
      const appended = new Set<number>();
      for (const l of since.lines) {
        const slot = index.slots.get(l.binary);
        if (slot === undefined) continue;
        appended.add(slot);
        if (!have[slot]) take(slot, l.v, 0);
      }
      const lines = pending.filter((p) => !appended.has(p.slot)).map((p) => p.line);
      pending = [];
      pendingChars = 0;
      end = lines.length ? appendLines(file, lines) : since.end;
      if (problems.length) throw new CacheError(problems);
    });

  let embedded = 0;
  if (missing.length > 0) {
    const bar = progress(`embed ${encoder.id}`, missing.length);
    // Stopped (Ctrl-C, SIGTERM) between batches: what was embedded is kept, the rest is embedded at the next use.
    const unregister = onInterrupt({
      finish: () => flush(),
      say: () => [
        `${file}: kept the vectors of ${have.reduce((s, x) => s + x, 0)} of ${index.size} texts; the rest are embedded at the next use (cache embed, train)`,
      ],
    });
    try {
      for (let i = 0; i < missing.length; i += batch) {
        const chunk = missing.slice(i, i + batch).filter((slot) => !have[slot]);
        const texts = chunk.map(index.textOf);
        const computed = await encoder.encode(texts);
        chunk.forEach((slot, j) => {
          have[slot] = 1;
          keep(slot, computed[j]);
          const line = vectorLine(texts[j], computed[j]);
          pending.push({ slot, line });
          pendingChars += line.length;
        });
        embedded += chunk.length;
        if (pendingChars >= APPEND_CHARS) await flush();
        bar.update(Math.min(missing.length, i + batch));
        await stopPoint();
      }
      await flush();
    } finally {
      unregister();
    }
    bar.stop();
  } else if (fresh && h) await flush(); // an older file with nothing to embed (an empty cache): its header renewed
  if (stale > 0)
    await locked(() => {
      appendedSince(file, end); // a torn last line cut off
      keepOnly(file, (binary) => index.slots.has(binary));
    });
  return { index, embedded };
}

/** Embeddings whose question and response vectors are rows of `row`, by slot. */
function bySlot(encoder: Encoder, questions: Int32Array, responses: Int32Array, row: (slot: number) => Float32Array): Embeddings {
  const arrived: Float32Array[] = [];
  return {
    encoder: encoder.id,
    dim: encoder.dim,
    question: (i) => row(questions[i]),
    response: (j) => (j < responses.length ? row(responses[j]) : arrived[j - responses.length]),
    get responses() {
      return responses.length + arrived.length;
    },
    arrived,
    embedder: encoder,
  };
}

/**
 * The cache's embeddings under `encoder`, embedding (embedCache) only the texts without a vector.
 * The vectors are read from the binary vectors file (vectorsFile.ts) when it is bound to today's
 * cache and embeddings file, a page at a time as they are asked for (vectorReader.ts): no JSON
 * vector is parsed, no text hashed, and what is held does not grow with the number of distinct
 * texts. Otherwise the file is (re)built, a stale or damaged one said, its rows written as the
 * embeddings file is read and the missing texts embedded; only when it cannot be written are the
 * vectors held in memory (one per distinct text).
 */
export async function ensureEmbeddings(dir: string, cache: Cache, encoder: Encoder, o: { batch?: number; locked?: boolean } = {}): Promise<Embeddings> {
  const file = embeddingsPath(dir, encoder.id);
  const path = vectorsPath(dir, encoder.id);
  const fromFile = () => {
    const stored = openVectors(dir, file, cache, encoder);
    return stored && 'vectors' in stored ? bySlot(encoder, stored.vectors.questions, stored.vectors.responses, vectorReader(stored.vectors, file)) : stored;
  };
  const stored = existsSync(file) ? fromFile() : undefined;
  if (stored && 'question' in stored) return stored;
  if (stored) console.error(`${path}: ${stored.refused}; rebuilt from ${file}`);
  let writer: VectorsWriter | undefined;
  const notWritten = (e: unknown) => console.error(`${path}: could not be written (${(e as Error).message}); the next run reads ${file} again`);
  try {
    writer = vectorsWriter(dir, file, encoder);
  } catch (e) {
    notWritten(e);
  }
  const held: Float32Array[] = [];
  let index: TextIndex;
  try {
    ({ index } = await embedCache(dir, cache, encoder, o, writer ? writer.set : (slot, v) => void (held[slot] = v)));
  } catch (e) {
    writer?.abandon();
    throw e;
  }
  if (!writer) return bySlot(encoder, index.questions, index.responses, (slot) => held[slot]);
  try {
    writer.finish(index);
    const written = fromFile();
    if (written && 'question' in written) return written;
    throw new Error(written ? written.refused : 'gone once written');
  } catch (e) {
    notWritten(e);
    // Every vector is in the embeddings file by now: read again, held in memory.
    await embedCache(dir, cache, encoder, o, (slot, v) => void (held[slot] = v));
    return bySlot(encoder, index.questions, index.responses, (slot) => held[slot]);
  }
}

/**
 * Embed the responses added to a loaded cache since `emb` was made (by the record tier), holding
 * their vectors in memory; the embeddings file gets them at the next ensureEmbeddings.
 */
export async function embedArrivals(emb: Embeddings, cache: Cache): Promise<void> {
  if (emb.responses >= cache.responses.length) return;
  const arrived = cache.responses.slice(emb.responses);
  emb.arrived.push(...(await emb.embedder.encode(arrived.map((r) => r.text))));
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
  let index: TextIndex | undefined;
  for (const name of readdirSync(folder)
    .filter((f) => f.endsWith('.jsonl'))
    .sort()) {
    const file = join(folder, name);
    index ??= cache && textIndex(cache);
    // Each vector is decoded to be checked and dropped: the file is read a line at a time.
    const lineOf = new Int32Array(index?.size ?? 0);
    const staleLines = new Map<string, number>();
    let scratch = new Float32Array(0); // a vector the scan did not decode is decoded into it: 56,000 arrays made and dropped took 3x the decoding
    const scan = scanFile(
      file,
      errors,
      ({ binary, v, line, values }, { dim }) => {
        const slot = index?.slots.get(binary);
        const first = slot === undefined ? staleLines.get(binary) : lineOf[slot] || undefined;
        if (first !== undefined) {
          errors.push({ file, line, field: 'sha256', message: `a second vector for the same text (first on line ${first}): one vector per text` });
          return;
        }
        if (slot === undefined) staleLines.set(binary, line);
        else lineOf[slot] = line;
        if (values) return; // decoded whole by the scan
        if (scratch.length !== dim) scratch = new Float32Array(dim);
        if (!(float32FromBase64(v, dim, scratch) instanceof Float32Array)) errors.push({ file, line, field: 'v', message: fromBase64(v, dim) as string });
      },
      true,
    );
    const h = scan.header;
    if (!h) continue;
    if (`${h.encoder}.jsonl` !== name)
      errors.push({ file, line: 1, field: 'encoder', message: `${h.encoder}, but the file is named for ${name.replace(/\.jsonl$/, '')}` });
    if (h.version !== VERSION) {
      warnings.push({ file, line: 1, field: 'version', message: `format version ${h.version} (matched by record id): recomputed at the next use` });
      continue;
    }
    if (scan.torn)
      warnings.push({ file, line: 0, field: '', message: `a torn last line (${scan.torn} bytes, an append cut by a crash): cut off at the next use` });
    if (!index) continue;
    const without = lineOf.reduce((n, l) => n + (l === 0 ? 1 : 0), 0);
    if (without)
      warnings.push({
        file,
        line: 0,
        field: '',
        message: `${without} of the cache's ${index.size} texts have no vector yet: computed at the next use (cache embed)`,
      });
    if (staleLines.size)
      warnings.push({
        file,
        line: staleLines.values().next().value!, // lines are met in order: the first is the earliest
        field: 'sha256',
        message: `${staleLines.size} vectors of texts the cache no longer holds (first on this line): dropped at the next write`,
      });
  }
  return { errors, warnings };
}
