// A text's vector read by its slot from the binary vectors file (vectorsFile.ts) when a step asks
// for it: the page of PAGE_ROWS rows holding it is read at its offset, checked against its SHA-256,
// and kept among at most KEPT_BYTES of pages, so what a run holds of the vectors does not grow with
// the number of distinct texts. A page that does not match its SHA-256 is an error naming the file
// and the page; the file is removed, so that the next run rebuilds it from the embeddings file.
import { closeSync, existsSync, fstatSync, readSync, rmSync, statSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { InputError } from '../io/errors.ts';
import type { VectorsFile } from './vectorsFile.ts';

/**
 * Bytes of pages a reader keeps (256 MiB). A file whose rows fit (the default world's, about 30 MB)
 * is read a page at a time as steps ask and then held whole: no page is read twice. A larger one
 * (3.4 GB at 100,000 questions) holds this much, the page read longest ago making room first:
 * steps draw questions at random, so no kept page is likelier than another to be asked again.
 */
export const KEPT_BYTES = 256 * 2 ** 20;

/** The file a reader reads is closed once nothing holds the reader. */
const closing = new FinalizationRegistry<number>((fd) => closeSync(fd));

/** The vector of a slot of `file` (a view: read, never written), read from its page; `jsonl` is the embeddings file it is rebuilt from. */
export function vectorReader(file: VectorsFile, jsonl: string, keptBytes = KEPT_BYTES): (slot: number) => Float32Array {
  const { dim, pageRows, slots } = file;
  const pages = Math.ceil(slots / pageRows);
  const held: (Float32Array | undefined)[] = new Array(pages);
  const kept = new Int32Array(Math.min(pages, Math.max(1, Math.floor(keptBytes / (4 * dim * pageRows))))).fill(-1);
  let oldest = 0;
  const load = (p: number): Float32Array => {
    const page = new Float32Array(Math.min(pageRows, slots - p * pageRows) * dim);
    const bytes = new Uint8Array(page.buffer);
    const read = readSync(file.fd, bytes, 0, bytes.length, 4 * dim * pageRows * p);
    const digest = createHash('sha256').update(bytes).digest();
    if (read !== bytes.length || !digest.equals(file.digests.subarray(32 * p, 32 * p + 32))) damaged(file, jsonl, p, pages);
    if (kept[oldest] >= 0) held[kept[oldest]] = undefined;
    kept[oldest] = p;
    oldest = (oldest + 1) % kept.length;
    held[p] = page;
    return page;
  };
  const reader = (slot: number): Float32Array => {
    if (!(slot >= 0 && slot < slots)) throw new RangeError(`${file.path}: slot ${slot} of ${slots}`);
    const p = Math.floor(slot / pageRows);
    const page = held[p] ?? load(p);
    const at = (slot - p * pageRows) * dim;
    return page.subarray(at, at + dim);
  };
  closing.register(reader, file.fd);
  return reader;
}

/** A page that does not check: the file is removed (unless another process already replaced it) and the run stops, saying so. */
function damaged(file: VectorsFile, jsonl: string, p: number, pages: number): never {
  let removed: string;
  try {
    if (!existsSync(file.path)) removed = `already removed: the next run rebuilds it from ${jsonl}`;
    else if (statSync(file.path).ino === fstatSync(file.fd).ino) {
      rmSync(file.path);
      removed = `removed: the next run rebuilds it from ${jsonl}`;
    } else removed = 'already replaced by another process';
  } catch (e) {
    removed = `could not be removed (${(e as Error).message}): remove it, and the next run rebuilds it from ${jsonl}`;
  }
  const first = p * file.pageRows;
  throw new InputError(
    `${file.path}: page ${p + 1} of ${pages} (rows ${first}-${Math.min(file.slots, first + file.pageRows) - 1}) does not match its SHA-256: damaged; ${removed}`,
  );
}
