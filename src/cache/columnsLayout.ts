// The layout of `<cache>/cache.columns` (columns.ts writes and checks it, columnsCache.ts serves a
// cache from it): 8 bytes of magic, a uint32 (little-endian) length, a JSON head, the sections
// (each 8-byte aligned), and last the SHA-256 of every byte before it, head included.
import type { AnswerType, SymbolicCounts } from '../answer.ts';
import type { HeaderRecord, ResponseRecord } from './format.ts';
import type { Agent, External, Question } from './types.ts';

export const MAGIC = 'CPPCOLS2';
/** The magic of the layout whose head its checksum did not cover: read as stale, never as damaged. */
export const OLDER_MAGIC = 'CPPCOLS1';
export const VERSION = 3; // 3: the checksum covers the whole file and closes it; the source's first and last blocks' hash
/** Bytes of the SHA-256 that ends the file. */
export const DIGEST_BYTES = 32;

export const INT_COLUMNS = ['q', 'a', 'round', 'sample', 'ans', 'prevIndex', 'answer', 'ambiguous', 'disagreement', 'turn', 'ctxStart', 'ctxRefs'] as const;
export const NUMBER_COLUMNS = ['inTokens', 'outTokens'] as const;
export const LAZY_COLUMNS = ['id', 'text', 'meta'] as const;
export type Lazy = (typeof LAZY_COLUMNS)[number];
/** The sections, in file order: the int columns, the number columns, then each lazy column's offsets and bytes. */
export const SECTIONS = [...INT_COLUMNS, ...NUMBER_COLUMNS, ...LAZY_COLUMNS.flatMap((c) => [`${c}Offsets`, c])];
/** The fields of the head, in file order (the regions a damage is looked for in). */
export const HEAD_FIELDS = [
  'version',
  'source',
  'readings',
  'responses',
  'sections',
  'header',
  'agents',
  'questions',
  'externals',
  'answerKeys',
  'mathKeys',
  'symbolic',
  'answers',
  'ambiguous',
  'disagreements',
] as const satisfies readonly (keyof Head)[];

/**
 * Where each field of a response record (format.ts) is kept: a field the schema gains is a type
 * error here until it has a place (and the round trip of tests/cache/formats.test.ts fails).
 */
export const RESPONSE_FIELDS = {
  type: 'implied',
  id: 'lazy column',
  question: 'q (index of the question)',
  agent: 'a (index of the agent)',
  round: 'int column',
  sample: 'int column',
  context: 'ctxStart and ctxRefs (indices)',
  prev: 'prevIndex',
  turn: 'int column (-1: none)',
  text: 'lazy column',
  answer: 'interned in the head',
  ambiguous: 'interned in the head',
  disagreement: 'interned in the head',
  inTokens: 'number column',
  outTokens: 'number column',
  meta: 'lazy column (JSON)',
} as const satisfies Record<keyof ResponseRecord, string>;

export interface Section {
  offset: number;
  bytes: number;
}

/** What a columns file records of the cache.jsonl it was built from: a write (a rename into place) changes the inode and mtime; `ends` is the SHA-256 of its first and last blocks. */
export interface Source {
  size: number;
  mtimeMs: number;
  ino: number;
  ends: string;
}

export interface Head {
  version: number;
  source: Source;
  /** Distinct stored answers, their type and normalized form: the answers are stored interned, so a reader that normalizes one otherwise makes the file stale. */
  readings: [AnswerType, string, string | null][];
  responses: number;
  sections: Record<string, Section>;
  header: HeaderRecord;
  agents: Agent[];
  questions: Question[];
  externals: External[];
  answerKeys: string[];
  mathKeys: [number, [string, number][]][];
  symbolic: SymbolicCounts;
  /** Distinct stored answers, ambiguous readings and disagreeing readings, referred to by the `answer`, `ambiguous` and `disagreement` columns. */
  answers: string[];
  ambiguous: (string | null)[][];
  disagreements: [string, string | null][];
}

export const pad8 = (n: number) => (8 - (n % 8)) % 8;
