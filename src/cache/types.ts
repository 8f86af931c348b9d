// A loaded cache in memory (load.ts builds it): the records of format.ts with the indexes the
// environment replays from, and the error that names every problem of a cache file.
import type { AgentRecord, ExternalRecord, HeaderRecord, QuestionRecord, ResponseRecord, SummaryRecord } from './format.ts';
import type { SymbolicCounts } from '../answer.ts';
import { InputError } from '../io/errors.ts';
import { formatProblem, type Problem } from '../io/problems.ts';

/** A cache file that does not check: every problem, each naming the file, line and field. */
export class CacheError extends InputError {
  constructor(readonly problems: Problem[]) {
    const shown = problems.slice(0, 20).map(formatProblem);
    if (problems.length > 20) shown.push(`... and ${problems.length - 20} more`);
    super(`invalid cache (${problems.length} problem${problems.length === 1 ? '' : 's'}):\n  ${shown.join('\n  ')}`);
  }
}

export interface Agent extends AgentRecord {
  index: number;
}

export interface Question extends QuestionRecord {
  index: number;
  /** Interned normalized gold answer. */
  goldKey: number;
}

export interface Response extends ResponseRecord {
  index: number;
  q: number;
  a: number;
  /** Interned normalized answer, -1 when unparsed. */
  ans: number;
  correct: boolean;
  /** Context as response indices, in record order (external and summary entries are in `ext`). */
  ctx: number[];
  /** Context entries that are not responses of this cache (external solutions, summaries), as indices into `Cache.externals`. */
  ext: number[];
  /** Index of the agent's own previous response, -1 if none. */
  prevIndex: number;
}

/**
 * A context entry that is not a response of this cache: an external solution or a summary. Both
 * are shown texts with a token count and a parsed answer; the environment treats them alike (never
 * a candidate, never an exact hit, a peer of source "external" to the signature and tier-3 model).
 */
export type External = (ExternalRecord | SummaryRecord) & {
  index: number;
  q: number;
  /** Interned normalized answer, -1 when unparsed. */
  ans: number;
};

export interface Cache {
  file: string;
  header: HeaderRecord;
  agents: Agent[];
  questions: Question[];
  responses: Response[];
  /** External solutions and summaries, in file order. */
  externals: External[];
  agentIndex: Map<string, number>;
  questionIndex: Map<string, number>;
  responseIndex: Map<string, number>;
  externalIndex: Map<string, number>;
  /** Interned normalized answers: `answerKeys[k]` is the string of key k. */
  answerKeys: string[];
  answerIndex: Map<string, number>;
  /** Per MATH question, each normalized answer seen and its key: equivalent answers share one key. */
  mathKeys: Map<number, Map<string, number>>;
  /** MATH answer comparisons that needed the symbolic path while interning, and how many found equal. */
  symbolic: SymbolicCounts;
  /** What the record tier's journal added (journal.ts), when the cache has one. */
  journal?: JournalSummary;
}

export interface JournalSummary {
  file: string;
  /** Responses the journal added to cache.jsonl's. */
  responses: number;
  /** Size of the journal when read: lines after it were appended later (by another process). */
  bytes: number;
  /** Intents (response id -> request key) whose reply was not journaled: calls that may have been paid. */
  unanswered: Map<string, string>;
}
