// Reading a cache: parse every line, check it against the format, resolve ids, and build the
// in-memory index the environment replays from. Every problem is reported with file, line and
// field. The only write is the derived columnar form (columns.ts), rebuilt when a large cache is
// loaded without a sound one.
import { closeSync, existsSync, openSync } from 'node:fs';
import { COLUMNS_MIN_BYTES, columnsPath, readColumnsSteps, sameSource, sourceState } from './columns.ts';
import type { Source } from './columnsLayout.ts';
import { startColumns } from './columnsWriter.ts';
import { join } from 'node:path';
import { normalizeAnswer } from '../answer.ts';
import { CACHE_FILE, CacheLine, type ResponseRecord } from './format.ts';
import { JournalLine, journalPath, journalTail } from './journal.ts';
import { internAnswer, parseCache, parseCacheSteps, parseIntoColumnsSteps, resolveRefs } from './parse.ts';
import { checkedLines, type Problem } from '../io/problems.ts';
import { checkReadable, fileLines } from '../io/textFile.ts';
import { CacheError, type Cache, type JournalSummary, type Response } from './types.ts';
import { InputError } from '../io/errors.ts';
import { runSteps } from '../io/interrupt.ts';

export { internAnswer, parseCache, parseCacheSteps } from './parse.ts';

/** Add one new response (from the `record` tier) to a loaded cache; throws on a broken reference. */
export function appendResponse(cache: Cache, rec: ResponseRecord): Response {
  const checked = CacheLine.parse(rec) as ResponseRecord;
  const q = cache.questionIndex.get(checked.question);
  const a = cache.agentIndex.get(checked.agent);
  if (q === undefined || a === undefined || cache.responseIndex.has(checked.id))
    throw new InputError(`cannot append response '${checked.id}': unknown question/agent or duplicate id`);
  const referenced = { cache, q: (i: number) => cache.responses[i].q, a: (i: number) => cache.responses[i].a, round: (i: number) => cache.responses[i].round };
  const got = resolveRefs(referenced, { context: checked.context, prev: checked.prev, q, a, round: checked.round }, true)!;
  if ('problem' in got) throw new InputError(`cannot append response '${checked.id}': ${got.problem.field}: ${got.problem.message}`);
  const r = checked as Response;
  r.index = cache.responses.length;
  r.q = q;
  r.a = a;
  r.ans = internAnswer(cache, normalizeAnswer(r.answer, cache.questions[q].answerType), q);
  r.correct = r.ans === cache.questions[q].goldKey;
  r.ctx = got.refs.filter((ref) => ref >= 0);
  r.ext = got.refs.filter((ref) => ref < 0).map((ref) => -ref - 1);
  r.prevIndex = got.prevIndex;
  cache.responseIndex.set(r.id, r.index);
  cache.responses.push(r);
  return r;
}

export function cacheFilePath(dir: string): string {
  return join(dir, CACHE_FILE);
}

/** Load `<dir>/cache.jsonl`, then the record tier's journal; throws a CacheError naming file, line and field of every problem. */
export const loadCache = (dir: string, warn: (message: string) => void = console.error): Cache => runSteps(loadCacheSteps(dir, warn));

/** loadCache as steps (src/io/interrupt.ts): a command run by stoppableSteps can be stopped while it loads a cache. */
export function* loadCacheSteps(dir: string, warn: (message: string) => void = console.error): Generator<unknown, Cache> {
  const file = cacheFilePath(dir);
  if (!existsSync(file)) throw new CacheError([{ file, line: 0, field: '', message: 'file not found' }]);
  checkReadable(file); // a folder in its place is named as such (the columns' source check would read it first)
  const cache = yield* columnsOrParse(dir, file, warn);
  yield;
  const journal = applyJournal(cache, dir);
  if (journal.problems.length) throw new CacheError(journal.problems);
  journal.warnings.forEach(warn);
  return cache;
}

/**
 * The cache from its columns file (columns.ts) when that is fresh and sound; else parsed from
 * cache.jsonl: a large one into new columns as it is parsed (its texts are never all held), then
 * served from them; a small one (where parsing is as quick as reading columns) held whole.
 */
function* columnsOrParse(dir: string, file: string, warn: (message: string) => void): Generator<unknown, Cache> {
  const source = sourceState(file);
  const columns = yield* readColumnsSteps(dir, source, file);
  if (columns && 'cache' in columns) return columns.cache;
  yield;
  const why = columns && ('stale' in columns.refused ? columns.refused.stale : `damaged: ${columns.refused.damaged}`);
  if (columns || source.size >= COLUMNS_MIN_BYTES) {
    let built: Cache | string;
    try {
      built = yield* parsedIntoColumns(dir, file, source);
    } catch (e) {
      if (e instanceof CacheError) throw e;
      built = `${why ?? 'missing'}, and could not be written (${(e as Error).message})`;
    }
    if (typeof built !== 'string') {
      if (why) warn(`${columnsPath(dir)}: ${why}; rebuilt from ${file}`);
      return built;
    }
    warn(`${columnsPath(dir)}: ${built}; ${file} was read instead`);
  }
  const { cache, problems } = yield* parseCacheSteps(fileLines(file), file);
  if (!cache) throw new CacheError(problems);
  return cache;
}

/** Bytes of cache.jsonl read at once by a parse into columns: its text is held while its lines are parsed. */
const LINES_CHUNK = 1 << 20;

/**
 * Parse `file` (whose state was `source` before; its problems named as `name`'s) into new columns
 * of `dir` and serve the cache from them (unless not `served`); throws a CacheError for its problems, or why the columns could not be written or read back
 * (`file` changed while it was read).
 */
export function parsedIntoColumns(dir: string, file: string, source: Source, name?: string): Generator<unknown, Cache>;
export function parsedIntoColumns(dir: string, file: string, source: Source, name: string, served: boolean): Generator<unknown, Cache | undefined>;
export function* parsedIntoColumns(dir: string, file: string, source: Source, name = file, served = true): Generator<unknown, Cache | undefined> {
  const build = startColumns(columnsPath(dir));
  try {
    const { cache, problems } = yield* parseIntoColumnsSteps(fileLines(file, LINES_CHUNK), name, build);
    if (!cache) throw new CacheError(problems);
    if (!sameSource(sourceState(file), source)) throw new Error(`${file} changed while it was read`);
    yield* build.finish(cache, source);
  } finally {
    build.close();
  }
  if (!served) return undefined;
  const read = yield* readColumnsSteps(dir, source, name);
  if (!read || !('cache' in read)) throw new Error(`${columnsPath(dir)} not read back: ${read ? JSON.stringify(read.refused) : 'missing'}`);
  return read.cache;
}

/**
 * Add the responses of `<dir>/journal.jsonl` to a parsed cache, in journal order. A torn last line
 * (a write cut by a crash) is dropped with a warning; a response already in the cache with the
 * same content (a compaction interrupted before the journal was cleared) is skipped; one with other
 * content (two runs recording the same request at once) keeps the first, with a warning.
 */
export function applyJournal(cache: Cache, dir: string): { problems: Problem[]; warnings: string[] } {
  const file = journalPath(dir);
  const problems: Problem[] = [];
  const warnings: string[] = [];
  if (!existsSync(file)) return { problems, warnings };
  const fd = openSync(file, 'r');
  const end = journalTail(fd);
  closeSync(fd);
  const intents = new Map<string, string>();
  const summary: JournalSummary = { file, responses: 0, bytes: end.size, unanswered: new Map() };
  const torn = (text: string, line: number) => {
    if (!end.torn || text !== end.tail) return false;
    warnings.push(
      `${file}:${line}: dropped a torn last line (${Buffer.byteLength(text)} bytes, a write interrupted by a crash; the next recording run cuts it off)`,
    );
    return true;
  };
  for (const { rec, line } of checkedLines(fileLines(file), file, () => JournalLine, problems, torn)) {
    if (rec.type === 'intent') {
      intents.set(rec.id, rec.key);
      continue;
    }
    const seen = cache.responseIndex.get(rec.id);
    if (seen !== undefined) {
      const r = cache.responses[seen];
      const same = r.text === rec.text && r.answer === rec.answer && r.inTokens === rec.inTokens && r.outTokens === rec.outTokens;
      if (!same) warnings.push(`${file}:${line}: response '${rec.id}' was recorded twice with different replies (two runs asked at once?); the first is kept`);
      continue;
    }
    try {
      appendResponse(cache, rec);
      summary.responses++;
    } catch (e) {
      problems.push({ file, line, field: '', message: (e as Error).message.replace(/^cannot append response '[^']*': /, '') });
    }
  }
  for (const [id, key] of intents) if (!cache.responseIndex.has(id)) summary.unanswered.set(id, key);
  cache.journal = summary;
  return { problems, warnings };
}

/** Build a cache from records in memory (tests, generators); throws like `loadCache`. */
export function cacheFromRecords(records: CacheLine[], file = '<memory>'): Cache {
  const { cache, problems } = parseCache(
    records.map((r) => JSON.stringify(r)),
    file,
  );
  if (!cache) throw new CacheError(problems);
  return cache;
}
