// Records an import makes before it can write them: which questions are kept, and the agents, are
// known only once every file is read, and the cache lists them first. Each question's records are
// kept as a block, held (`heldRecords`, the library's importDu) or written to a spill file as they
// are made and read back a block at a time (`spilledRecords`, `cache import`: its memory then does
// not grow with the texts it imports).
import { closeSync, openSync, readSync, rmSync, writeSync } from 'node:fs';
import type { CacheLine } from './format.ts';
import { removeOnExit } from '../io/atomic.ts';

export interface RecordStore {
  /** Add the records of `question`, a block. */
  add(question: string, records: CacheLine[]): void;
  /** The records of the questions `kept`, in the order they were added. */
  records(kept: Set<string>): Iterable<CacheLine>;
  /** Let the records go (a spill file is removed). */
  close(): void;
}

export function heldRecords(): RecordStore {
  const blocks: [string, CacheLine[]][] = [];
  return {
    add: (question, records) => void blocks.push([question, records]),
    *records(kept) {
      for (const [question, records] of blocks) if (kept.has(question)) yield* records;
    },
    close: () => {
      blocks.length = 0;
    },
  };
}

/** Records in the file `path` (removed when closed, or at exit), a line each. */
export function spilledRecords(path: string): RecordStore {
  const forget = removeOnExit(path);
  const fd = openSync(path, 'w+');
  const blocks: { question: string; at: number; bytes: number }[] = [];
  let end = 0;
  let closed = false;
  return {
    add(question, records) {
      if (!records.length) return;
      const bytes = Buffer.from(records.map((r) => `${JSON.stringify(r)}\n`).join(''), 'utf8');
      for (let at = 0; at < bytes.length; ) at += writeSync(fd, bytes, at, bytes.length - at, end + at);
      blocks.push({ question, at: end, bytes: bytes.length });
      end += bytes.length;
    },
    *records(kept) {
      for (const { question, at, bytes } of blocks) {
        if (!kept.has(question)) continue;
        const block = Buffer.allocUnsafe(bytes);
        for (let got = 0; got < bytes; ) {
          const n = readSync(fd, block, got, bytes - got, at + got);
          if (n === 0) throw new Error(`${path}: ends before its block at ${at} (${bytes} bytes)`);
          got += n;
        }
        for (const line of block.toString('utf8').split('\n')) if (line) yield JSON.parse(line) as CacheLine;
      }
    },
    close() {
      if (closed) return;
      closed = true;
      closeSync(fd);
      rmSync(path, { force: true });
      forget();
    },
  };
}
