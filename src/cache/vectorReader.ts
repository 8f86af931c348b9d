// A text's vector read by its slot from the binary vectors file (vectorsFile.ts) when a step asks
// for it: the page of PAGE_ROWS rows holding it is read at its offset, checked against its SHA-256,
// and kept among at most KEPT_BYTES of pages, so what a run holds of the vectors does not grow with
// the number of distinct texts. A page that does not match its SHA-256 is an error naming the file
// and the page; the file is removed, so that the next run rebuilds it from the embeddings file.
import { closeSync, existsSync, fstatSync, readSync, rmSync, statSync } from 'node:fs';
import { hash } from 'node:crypto';
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

/**
 * The vector of a slot of `file`, read from its page; `jsonl` is the embeddings file it is rebuilt
 * from. The pages share one block of frames, a frame read into again when its page is the oldest
 * kept: a page read is a positional read into its frame, no new buffer, so reading the pages of a
 * 3.4 GB file many times over makes no garbage. A returned row is a view: read it at once (every
 * caller copies or sums it), since its frame holds another page after `keptBytes` more are read.
 */
export function vectorReader(file: VectorsFile, jsonl: string, keptBytes = KEPT_BYTES): (slot: number) => Float32Array {
  const { dim, pageRows, slots } = file;
  const pages = Math.ceil(slots / pageRows);
  const pageValues = dim * pageRows;
  const frames = Math.min(pages, Math.max(1, Math.floor(keptBytes / (4 * pageValues))));
  const block = new Float32Array(frames * pageValues);
  const bytes = new Uint8Array(block.buffer);
  /** frameOf[p]: the frame holding page p, -1 when none; pageIn[f]: the page frame f holds. */
  const frameOf = new Int32Array(pages).fill(-1);
  const pageIn = new Int32Array(frames).fill(-1);
  let oldest = 0;
  const load = (p: number): number => {
    const f = oldest;
    if (pageIn[f] >= 0) frameOf[pageIn[f]] = -1;
    pageIn[f] = -1;
    const at = 4 * pageValues * f;
    const frame = bytes.subarray(at, at + 4 * Math.min(pageRows, slots - p * pageRows) * dim);
    const read = readSync(file.fd, frame, 0, frame.length, 4 * pageValues * p);
    const digest = hash('sha256', frame, 'buffer');
    if (read !== frame.length || !digest.equals(file.digests.subarray(32 * p, 32 * p + 32))) damaged(file, jsonl, p, pages);
    pageIn[f] = p;
    frameOf[p] = f;
    oldest = (oldest + 1) % frames;
    return f;
  };
  const reader = (slot: number): Float32Array => {
    if (!(slot >= 0 && slot < slots)) throw new RangeError(`${file.path}: slot ${slot} of ${slots}`);
    const p = Math.floor(slot / pageRows);
    const f = frameOf[p] >= 0 ? frameOf[p] : load(p);
    const at = f * pageValues + (slot - p * pageRows) * dim;
    return block.subarray(at, at + dim);
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
