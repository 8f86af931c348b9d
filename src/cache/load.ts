// Reading a cache: parse every line, check it against the format, resolve ids, and build the
// in-memory index the environment replays from. Every problem is reported with file, line and
// field. The only write is the derived columnar form (columns.ts), rebuilt when a large cache is
// loaded without a sound one.
import { closeSync, existsSync, openSync } from 'node:fs';
import { COLUMNS_MIN_BYTES, columnsPath, readColumns, sameSource, sourceState, writeColumns } from './columns.ts';
import { join } from 'node:path';
import { emptySymbolicCounts, normalizeAnswer, questionOptions, readAnswer, sameMath, storedAnswer } from '../answer.ts';
import { CACHE_FILE, CacheLine, type ExternalRecord, type HeaderRecord, type ResponseRecord, type SummaryRecord } from './format.ts';
import { JournalLine, journalPath, journalTail } from './journal.ts';
import { checkedLines, zodProblems, type Problem } from '../io/problems.ts';
import { checkReadable, fileLines } from '../io/textFile.ts';
import { CacheError, type Cache, type External, type JournalSummary, type Question, type Response } from './types.ts';
import { InputError } from '../io/errors.ts';
import { runSteps } from '../io/interrupt.ts';

/**
 * The key of a normalized answer to question `q`. Equal strings share a key; so do equivalent MATH
 * answers to the same question: a string new to a MATH question is compared (symbolically where
 * strings differ, see answer/equivalence.ts) with one answer of each key the question has so far.
 */
export function internAnswer(cache: Cache, normalized: string | null, q: number): number {
  if (normalized === null) return -1;
  if (cache.questions[q].answerType !== 'math') return internString(cache, normalized);
  let seen = cache.mathKeys.get(q);
  if (!seen) cache.mathKeys.set(q, (seen = new Map()));
  let k = seen.get(normalized);
  if (k !== undefined) return k;
  const compared = new Set<number>();
  for (const [s, key] of seen) {
    if (compared.has(key)) continue;
    compared.add(key);
    if (sameMath(s, normalized, cache.symbolic)) {
      k = key;
      break;
    }
  }
  k ??= internString(cache, normalized);
  seen.set(normalized, k);
  return k;
}

function internString(cache: Cache, normalized: string): number {
  let k = cache.answerIndex.get(normalized);
  if (k === undefined) {
    k = cache.answerKeys.length;
    cache.answerKeys.push(normalized);
    cache.answerIndex.set(normalized, k);
  }
  return k;
}

/**
 * Parse and check the lines of a cache file. Returns the cache, or every problem found. `parsed`
 * sees each line's JSON (with its line number) as parsed, before it is checked: `cache validate`
 * checks more of the same records without parsing the file again.
 */
export const parseCache = (lines: Iterable<string>, file: string, parsed?: (json: unknown, line: number) => void): { cache?: Cache; problems: Problem[] } =>
  runSteps(parseCacheSteps(lines, file, parsed));

/** Lines a step of parseCacheSteps reads. */
const LINES_A_STEP = 256;

/** parseCache as steps (src/io/interrupt.ts runSteps): it yields the number of lines read every LINES_A_STEP lines, so that `cache validate` can be stopped. */
export function* parseCacheSteps(
  lines: Iterable<string>,
  file: string,
  parsed?: (json: unknown, line: number) => void,
): Generator<number, { cache?: Cache; problems: Problem[] }> {
  const problems: Problem[] = [];
  const problem = (line: number, field: string, message: string) => problems.push({ file, line, field, message });
  const cache: Cache = {
    file,
    header: undefined as unknown as HeaderRecord, // checked below
    agents: [],
    questions: [],
    responses: [],
    externals: [],
    agentIndex: new Map(),
    questionIndex: new Map(),
    responseIndex: new Map(),
    externalIndex: new Map(),
    answerKeys: [],
    answerIndex: new Map(),
    mathKeys: new Map(),
    symbolic: emptySymbolicCounts(),
  };
  const agentLine: number[] = [];
  const questionLine: number[] = [];
  const responseLine: number[] = [];
  const externalLine: number[] = [];
  const isDuplicate = (kind: string, index: Map<string, number>, firstLines: number[], rid: string, line: number) => {
    const seen = index.get(rid);
    if (seen !== undefined) problem(line, 'id', `duplicate ${kind} id '${rid}' (first on line ${firstLines[seen]})`);
    return seen !== undefined;
  };
  // Responses are indexed as they stream in (so parsed records die young), except those whose
  // question or agent comes later in the file: those wait for the end.
  const deferred: { rec: ResponseRecord; line: number }[] = [];
  /** `agent:<id>`, `question:<id>` and `record:<id>` (responses, externals) of lines refused or left out: their problem is reported once, on their line. */
  const rejected = new Set<string>();
  const reject = (json: unknown) => {
    const r = json as { type?: unknown; id?: unknown } | null;
    if (r && typeof r === 'object' && typeof r.type === 'string' && typeof r.id === 'string')
      rejected.add(`${r.type === 'question' || r.type === 'agent' ? r.type : 'record'}:${r.id}`);
  };
  const pendingExternals: { rec: ExternalRecord | SummaryRecord; line: number }[] = [];
  const addResponse = (rec: ResponseRecord, line: number, final: boolean) => {
    if (isDuplicate('response', cache.responseIndex, responseLine, rec.id, line)) return;
    const q = cache.questionIndex.get(rec.question);
    const a = cache.agentIndex.get(rec.agent);
    if (!final && (q === undefined || a === undefined)) return void deferred.push({ rec, line });
    if (rec.round === 1 && (rec.context.length > 0 || rec.prev !== null))
      problem(line, rec.prev !== null ? 'prev' : 'context', 'a round-1 response has no context and no previous response');
    // A record of a question or agent whose own line was refused is left out without a problem of
    // its own: that line's problem says it (one bad price is one problem, not one per response).
    if (q === undefined && !rejected.has(`question:${rec.question}`)) problem(line, 'question', `unknown question '${rec.question}'`);
    if (a === undefined && !rejected.has(`agent:${rec.agent}`)) problem(line, 'agent', `unknown agent '${rec.agent}'`);
    if (q === undefined || a === undefined) return void rejected.add(`record:${rec.id}`);
    const unstored = unstoredAnswer(rec.answer, cache.questions[q]);
    if (unstored) problem(line, 'answer', unstored);
    cache.responseIndex.set(rec.id, cache.responses.length);
    responseLine.push(line);
    cache.responses.push(indexResponse(cache, rec, q, a));
  };

  let line = 0;
  let records = 0;
  for (const text of lines) {
    if (line > 0 && line % LINES_A_STEP === 0) yield line; // the lines read so far
    line++;
    const raw = text.trim();
    if (raw === '') continue;
    let json: unknown;
    try {
      json = JSON.parse(raw);
    } catch (e) {
      problem(line, '', `invalid JSON: ${(e as Error).message}`);
      continue;
    }
    parsed?.(json, line);
    const checked = CacheLine.safeParse(json);
    if (!checked.success) {
      problems.push(...zodProblems(checked.error.issues, file, line));
      reject(json);
      continue;
    }
    // The schemas are strict and add no defaults, so a valid line's parsed JSON *is* the record.
    // Keeping it (rather than zod's copy) makes loading a large cache several times faster.
    const rec = json as CacheLine;
    records++;
    if (rec.type === 'cache') {
      if (cache.header) problem(line, 'type', 'a second cache header');
      else if (records > 1) problem(line, 'type', 'the cache header must be the first line');
      else cache.header = rec;
    } else if (rec.type === 'agent') {
      if (isDuplicate('agent', cache.agentIndex, agentLine, rec.id, line)) continue;
      agentLine.push(line);
      cache.agentIndex.set(rec.id, cache.agents.length);
      cache.agents.push({ ...rec, index: cache.agents.length });
    } else if (rec.type === 'question') {
      if (isDuplicate('question', cache.questionIndex, questionLine, rec.id, line)) continue;
      const gold = normalizeAnswer(rec.gold, rec.answerType);
      if (gold === null) {
        problem(line, 'gold', `gold answer '${rec.gold}' cannot be read as a ${rec.answerType} answer`);
        reject(rec);
        continue;
      }
      questionLine.push(line);
      const question: Question = { ...rec, index: cache.questions.length, goldKey: -1 };
      cache.questionIndex.set(rec.id, question.index);
      cache.questions.push(question);
      question.goldKey = internAnswer(cache, gold, question.index);
    } else if (rec.type === 'external' || rec.type === 'summary') pendingExternals.push({ rec, line });
    else addResponse(rec, line, false);
  }
  if (!cache.header) problem(0, 'type', 'no cache header line ({"type":"cache",...}) found');
  for (const { rec, line } of deferred) addResponse(rec, line, true);
  for (const [k, { rec, line }] of pendingExternals.entries()) {
    if (k > 0 && k % LINES_A_STEP === 0) yield line; // (answers of externals are compared as answers of responses are: a step as long)
    if (isDuplicate(rec.type, cache.externalIndex, externalLine, rec.id, line)) continue;
    const q = cache.questionIndex.get(rec.question);
    if (q === undefined) {
      if (!rejected.has(`question:${rec.question}`)) problem(line, 'question', `unknown question '${rec.question}'`);
      rejected.add(`record:${rec.id}`);
      continue;
    }
    if (cache.responseIndex.has(rec.id)) problem(line, 'id', `id '${rec.id}' is also a response id`);
    const unstored = unstoredAnswer(rec.answer, cache.questions[q]);
    if (unstored) problem(line, 'answer', unstored);
    externalLine.push(line);
    cache.externalIndex.set(rec.id, cache.externals.length);
    const e = rec as External;
    e.index = cache.externals.length;
    e.q = q;
    e.ans = internAnswer(cache, normalizeAnswer(rec.answer, cache.questions[q].answerType), q);
    cache.externals.push(e);
    if (rec.type === 'summary') summaryProblem(cache, rec, q, (field, message) => problem(line, field, message));
  }
  // References are resolved after all ids are known: records may come in any order.
  cache.responses.forEach((r, i) => {
    const refProblem = resolveReferences(cache, r);
    if (refProblem && !(refProblem.id !== undefined && rejected.has(`record:${refProblem.id}`))) problem(responseLine[i], refProblem.field, refProblem.message);
  });

  return problems.length ? { problems } : { cache, problems };
}

/**
 * Why a stored answer is refused, if it is: one that does not parse under its question's answer
 * type (src/answer.ts storedAnswer, the form `cache import` stores: "C", not "**C**" or "banana").
 * Loading refuses it, so every command that reads the cache refuses what `cache validate` does.
 */
function unstoredAnswer(answer: string | null, q: Question): string | undefined {
  if (answer === null || storedAnswer(answer, q.answerType) !== null) return undefined;
  const parsed = readAnswer(answer, q.answerType, q.answerType === 'mcq' ? questionOptions(q.text) : [], q.text).answer;
  return `'${answer}' does not parse as a ${q.answerType} answer; store the parsed form${parsed !== null ? ` ('${parsed}')` : ''} or null`;
}

/** A summary's `of` must name responses to its own question. */
function summaryProblem(cache: Cache, rec: SummaryRecord, q: number, problem: (field: string, message: string) => void): void {
  (rec.of ?? []).forEach((id, j) => {
    const r = cache.responseIndex.get(id);
    if (r === undefined) problem(`of.${j}`, `unknown response id '${id}'`);
    else if (cache.responses[r].q !== q) problem(`of.${j}`, `response '${id}' answers another question (${cache.responses[r].question})`);
  });
}

function indexResponse(cache: Cache, rec: ResponseRecord, q: number, a: number): Response {
  const question = cache.questions[q];
  const ans = internAnswer(cache, normalizeAnswer(rec.answer, question.answerType), q);
  // Extend the freshly parsed record in place: copying 100k records is the bulk of load time.
  const r = rec as Response;
  r.index = cache.responses.length;
  r.q = q;
  r.a = a;
  r.ans = ans;
  r.correct = ans === question.goldKey;
  r.ctx = [];
  r.ext = [];
  r.prevIndex = -1;
  return r;
}

/** Fill `ctx` and `prevIndex`; return the first broken reference, if any. */
function resolveReferences(cache: Cache, r: Response): { field: string; message: string; id?: string } | undefined {
  for (let j = 0; j < r.context.length; j++) {
    const c = cache.responseIndex.get(r.context[j]);
    const field = `context.${j}`;
    if (c === undefined) {
      const e = cache.externalIndex.get(r.context[j]);
      if (e === undefined) return { field, message: `unknown response, external or summary id '${r.context[j]}'`, id: r.context[j] };
      if (cache.externals[e].q !== r.q)
        return { field, message: `${cache.externals[e].type} '${r.context[j]}' belongs to another question (${cache.externals[e].question})` };
      r.ext.push(e);
      continue;
    }
    const other = cache.responses[c];
    if (other.q !== r.q) return { field, message: `response '${other.id}' answers another question (${other.question})` };
    // An earlier round than t - 1: the answer of an agent that made no call since (a skipped revision).
    const sameRound = other.round === r.round && other.a !== r.a;
    if (other.round >= r.round && !sameRound)
      return {
        field,
        message: `response '${other.id}' is from round ${other.round}: a context holds responses of earlier rounds, or another agent's round-${r.round} response`,
      };
    r.ctx.push(c);
  }
  if (r.prev !== null) {
    const p = cache.responseIndex.get(r.prev);
    if (p === undefined) return { field: 'prev', message: `unknown response id '${r.prev}'`, id: r.prev };
    const other = cache.responses[p];
    // Its latest response: of an earlier round than t - 1 where it made no call since (a skipped revision).
    if (other.q !== r.q || other.a !== r.a || other.round >= r.round)
      return { field: 'prev', message: `response '${other.id}' is not this agent's response of an earlier round to this question` };
    r.prevIndex = p;
  }
  return undefined;
}

/** Add one new response (from the `record` tier) to a loaded cache; throws on a broken reference. */
export function appendResponse(cache: Cache, rec: ResponseRecord): Response {
  const checked = CacheLine.parse(rec) as ResponseRecord;
  const q = cache.questionIndex.get(checked.question);
  const a = cache.agentIndex.get(checked.agent);
  if (q === undefined || a === undefined || cache.responseIndex.has(checked.id))
    throw new InputError(`cannot append response '${checked.id}': unknown question/agent or duplicate id`);
  const r = indexResponse(cache, checked, q, a);
  const broken = resolveReferences(cache, r);
  if (broken) throw new InputError(`cannot append response '${checked.id}': ${broken.field}: ${broken.message}`);
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
 * cache.jsonl, and the columns (re)built from it when the file is large enough to gain from them.
 */
function* columnsOrParse(dir: string, file: string, warn: (message: string) => void): Generator<unknown, Cache> {
  const source = sourceState(file);
  const columns = readColumns(dir, source, file);
  if (columns && 'cache' in columns) return columns.cache;
  yield;
  const { cache, problems } = yield* parseCacheSteps(fileLines(file), file);
  if (!cache) throw new CacheError(problems);
  const readWhole = sameSource(sourceState(file), source);
  if (readWhole && (columns || source.size >= COLUMNS_MIN_BYTES)) {
    const why = columns && ('stale' in columns.refused ? columns.refused.stale : `damaged: ${columns.refused.damaged}`);
    try {
      writeColumns(dir, cache, source);
      if (why) warn(`${columnsPath(dir)}: ${why}; rebuilt from ${file}`);
    } catch (e) {
      warn(`${columnsPath(dir)}: ${why ?? 'missing'}, and could not be written (${(e as Error).message}); ${file} was read instead`);
    }
  }
  return cache;
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
