// Building a columns file (columnsLayout.ts) as a cache is parsed, one response at a time: its
// numbers go to typed arrays that grow, its id, text and meta to a spill file per lazy column beside
// the columns file, so what a build holds does not grow with the texts (about 100 bytes a response,
// off the heap). Finishing writes the head, the sections and the spilled bytes into the columns file
// in chunks (steps, src/io/interrupt.ts), atomically, with the SHA-256 that closes it.
import { createHash } from 'node:crypto';
import { closeSync, openSync, readSync, rmSync, writeSync } from 'node:fs';
import type { AnswerType } from '../answer.ts';
import { normalizeAnswer } from '../answer.ts';
import { type Head, INT_COLUMNS, LAZY_COLUMNS, type Lazy, MAGIC, NUMBER_COLUMNS, pad8, SECTIONS, type Section, type Source, VERSION } from './columnsLayout.ts';
import type { ResponseRecord } from './format.ts';
import type { Cache } from './types.ts';
import { removeOnExit, writeFileAtomicSteps } from '../io/atomic.ts';

type Typed = Int32Array | Float64Array;
/** A typed array that grows (doubling) as values are put past its end. */
interface Growing<T extends Typed> {
  data: T;
  length: number;
}
const growing = <T extends Typed>(data: T): Growing<T> => ({ data, length: 0 });

function put<T extends Typed>(g: Growing<T>, at: number, value: number): void {
  if (at >= g.data.length) {
    const larger = new (g.data.constructor as new (n: number) => T)(Math.max(2 * g.data.length, at + 1));
    larger.set(g.data);
    g.data = larger;
  }
  g.data[at] = value;
  if (at >= g.length) g.length = at + 1;
}

/** The first `length` values as bytes (zeros past what was put). */
function bytesOf(g: Growing<Typed>, length: number): Uint8Array {
  if (length > g.data.length) put(g, length - 1, 0);
  const view = g.data.subarray(0, length);
  return new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
}

/** Bytes appended to a spill file are gathered to about this many before a write. */
const SPILL_WRITE = 1 << 20;
/** Bytes of a spill file copied into the columns file a step. */
const COPY_STEP = 8 << 20;

/** One lazy column's bytes, in a file beside the columns file while it is built, and its offsets. */
interface Spill {
  path: string;
  fd: number;
  pending: Buffer[];
  pendingBytes: number;
  bytes: number;
  offsets: Growing<Float64Array>;
}

function flush(s: Spill): void {
  const all = Buffer.concat(s.pending);
  for (let at = 0; at < all.length; ) at += writeSync(s.fd, all, at, all.length - at);
  s.pending = [];
  s.pendingBytes = 0;
}

function* spilled(s: Spill): Generator<Uint8Array> {
  flush(s);
  for (let at = 0; at < s.bytes; ) {
    const chunk = Buffer.allocUnsafe(Math.min(COPY_STEP, s.bytes - at));
    const got = readSync(s.fd, chunk, 0, chunk.length, at);
    if (got === 0) throw new Error(`${s.path}: ends at ${at} of ${s.bytes} bytes`);
    at += got;
    yield chunk.subarray(0, got);
  }
}

/** A columns file being built: responses added in index order, their references resolved in any order. */
export interface ColumnsBuild {
  /** Add response i (the number added so far): `q`, `a` its question and agent, `ans` its interned answer, `type` its question's answer type. */
  add(r: ResponseRecord, q: number, a: number, ans: number, type: AnswerType): void;
  /** Response i's context in record order (a response as its index, an external or summary entry as -(index + 1)) and its previous response. */
  resolved(i: number, refs: number[], prevIndex: number): void;
  /** Write the file: the cache's other parts (its responses are the ones added) as parsed from `source`. */
  finish(cache: Cache, source: Source): Generator<unknown, void>;
  /** Remove the spill files (done by finish too; a build given up calls it). */
  close(): void;
}

/** Start building the columns file `path`. */
export function startColumns(path: string): ColumnsBuild {
  const ints = Object.fromEntries(INT_COLUMNS.map((c) => [c, growing(new Int32Array(1024))])) as Record<(typeof INT_COLUMNS)[number], Growing<Int32Array>>;
  const nums = Object.fromEntries(NUMBER_COLUMNS.map((c) => [c, growing(new Float64Array(1024))])) as Record<
    (typeof NUMBER_COLUMNS)[number],
    Growing<Float64Array>
  >;
  const forget: (() => void)[] = [];
  const spills = {} as Record<Lazy, Spill>;
  try {
    for (const c of LAZY_COLUMNS) {
      const spill = `${path}.${process.pid}.${c}.tmp`;
      forget.push(removeOnExit(spill));
      spills[c] = { path: spill, fd: openSync(spill, 'w+'), pending: [], pendingBytes: 0, bytes: 0, offsets: growing(new Float64Array(1024)) };
      put(spills[c].offsets, 0, 0);
    }
  } catch (e) {
    close();
    throw e;
  }
  const answers = new Map<string, number>();
  const ambiguous = new Map<string, number>();
  const disagreements = new Map<string, number>();
  const readings = new Map<string, [AnswerType, string, string | null]>();
  const reading = (type: AnswerType, raw: string | null) => {
    const key = `${type}\0${raw}`;
    if (raw !== null && !readings.has(key)) readings.set(key, [type, raw, normalizeAnswer(raw, type)]);
  };
  const intern = (map: Map<string, number>, key: string) => map.get(key) ?? (map.set(key, map.size), map.size - 1);
  let n = 0;
  let refs = 0;
  let closed = false;
  function close(): void {
    if (closed) return;
    closed = true;
    for (const s of Object.values(spills)) {
      closeSync(s.fd);
      rmSync(s.path, { force: true });
    }
    for (const f of forget) f();
  }
  return {
    add(r, q, a, ans, type) {
      const i = n++;
      put(ints.q, i, q);
      put(ints.a, i, a);
      put(ints.round, i, r.round);
      put(ints.sample, i, r.sample);
      put(ints.ans, i, ans);
      put(ints.prevIndex, i, -1);
      put(ints.answer, i, r.answer === null ? -1 : intern(answers, r.answer));
      put(ints.ambiguous, i, r.ambiguous ? intern(ambiguous, JSON.stringify(r.ambiguous)) : -1);
      put(ints.disagreement, i, r.disagreement ? intern(disagreements, JSON.stringify(r.disagreement)) : -1);
      put(ints.turn, i, r.turn ?? -1);
      put(nums.inTokens, i, r.inTokens);
      put(nums.outTokens, i, r.outTokens);
      put(ints.ctxStart, i, refs);
      refs += r.context.length;
      reading(type, r.answer);
      for (const c of LAZY_COLUMNS) {
        const s = spills[c];
        const bytes = Buffer.from(c === 'meta' ? (r.meta === undefined ? '' : JSON.stringify(r.meta)) : r[c], 'utf8');
        s.pending.push(bytes);
        s.pendingBytes += bytes.length;
        s.bytes += bytes.length;
        put(s.offsets, i + 1, s.bytes);
        if (s.pendingBytes >= SPILL_WRITE) flush(s);
      }
    },
    resolved(i, context, prevIndex) {
      const from = ints.ctxStart.data[i];
      context.forEach((ref, j) => put(ints.ctxRefs, from + j, ref));
      put(ints.prevIndex, i, prevIndex);
    },
    *finish(cache, source) {
      try {
        put(ints.ctxStart, n, refs);
        for (const q of cache.questions) reading(q.answerType, q.gold);
        for (const e of cache.externals) reading(cache.questions[e.q].answerType, e.answer);
        const lengthOf = (name: string) => (name === 'ctxStart' ? n + 1 : name === 'ctxRefs' ? refs : n);
        const sections = SECTIONS.map((name): [string, number, () => Iterable<Uint8Array>] => {
          if (name in ints) {
            const g = ints[name as (typeof INT_COLUMNS)[number]];
            return [name, lengthOf(name) * 4, () => [bytesOf(g, lengthOf(name))]];
          }
          if (name in nums) return [name, n * 8, () => [bytesOf(nums[name as (typeof NUMBER_COLUMNS)[number]], n)]];
          if (name.endsWith('Offsets')) {
            const s = spills[name.slice(0, -'Offsets'.length) as Lazy];
            return [name, (n + 1) * 8, () => [bytesOf(s.offsets, n + 1)]];
          }
          const s = spills[name as Lazy];
          return [name, s.bytes, () => spilled(s)];
        });
        const places: Record<string, Section> = {};
        let offset = 0;
        for (const [name, bytes] of sections) {
          places[name] = { offset, bytes };
          offset += bytes + pad8(bytes);
        }
        const head: Head = {
          version: VERSION,
          source,
          readings: [...readings.values()],
          responses: n,
          sections: places,
          header: cache.header,
          agents: cache.agents,
          questions: cache.questions,
          externals: cache.externals,
          answerKeys: cache.answerKeys,
          mathKeys: [...cache.mathKeys].map(([q, m]) => [q, [...m]]),
          symbolic: cache.symbolic,
          answers: [...answers.keys()],
          ambiguous: [...ambiguous.keys()].map((s) => JSON.parse(s)),
          disagreements: [...disagreements.keys()].map((s) => JSON.parse(s)),
        };
        const headBytes = Buffer.from(JSON.stringify(head), 'utf8');
        const prefix = Buffer.alloc(12);
        prefix.write(MAGIC, 0, 'latin1');
        prefix.writeUInt32LE(headBytes.length, 8);
        function* chunks(): Generator<Uint8Array> {
          const hash = createHash('sha256');
          const hashed = (b: Uint8Array) => (hash.update(b), b);
          yield hashed(prefix);
          yield hashed(headBytes);
          yield hashed(new Uint8Array(pad8(12 + headBytes.length)));
          for (const [, bytes, chunksOf] of sections) {
            for (const b of chunksOf()) yield hashed(b);
            yield hashed(new Uint8Array(pad8(bytes)));
          }
          yield hash.digest();
        }
        yield* writeFileAtomicSteps(path, chunks());
      } finally {
        close();
      }
    },
    close,
  };
}
