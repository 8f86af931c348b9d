// Parsing a cache file: every line parsed and checked against the format, ids resolved, answers
// interned; every problem named by file, line and field. One parse, two places its responses go:
// held as records (`parseCacheSteps`: a small cache, a cache in memory), or into a columns file as
// they are parsed (`parseIntoColumnsSteps`: a large one, whose texts are then never all held). What
// the checks keep of each response is its numbers (question, agent, round) and its id's index.
import { emptySymbolicCounts, normalizeAnswer, questionOptions, readAnswer, sameMath, storedAnswer } from '../answer.ts';
import type { ColumnsBuild } from './columnsWriter.ts';
import { CacheLine, type ExternalRecord, type HeaderRecord, type ResponseRecord, type SummaryRecord } from './format.ts';
import { zodProblems, type Problem } from '../io/problems.ts';
import { runSteps } from '../io/interrupt.ts';
import type { Cache, External, Question, Response } from './types.ts';

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

/** Where a parse puts each response it has checked (index: the number put before it), and its references once resolved. */
interface ResponseSink {
  add(rec: ResponseRecord, q: number, a: number, ans: number): void;
  /** Its context in record order (a response as its index, an external or summary entry as -(index + 1)) and its previous response. */
  resolved(i: number, refs: number[], prevIndex: number): void;
}

/** The responses held: each parsed record extended in place (copying 100k records is the bulk of load time). */
const heldIn = (cache: Cache): ResponseSink => ({
  add(rec, q, a, ans) {
    const r = rec as Response;
    r.index = cache.responses.length;
    r.q = q;
    r.a = a;
    r.ans = ans;
    r.correct = ans === cache.questions[q].goldKey;
    r.ctx = [];
    r.ext = [];
    r.prevIndex = -1;
    cache.responses.push(r);
  },
  resolved(i, refs, prevIndex) {
    const r = cache.responses[i];
    for (const ref of refs)
      if (ref >= 0) r.ctx.push(ref);
      else r.ext.push(-ref - 1);
    r.prevIndex = prevIndex;
  },
});

/**
 * Parse and check the lines of a cache file. Returns the cache, or every problem found. `parsed`
 * sees each line's JSON (with its line number) as parsed, before it is checked.
 */
export const parseCache = (lines: Iterable<string>, file: string, parsed?: (json: unknown, line: number) => void): { cache?: Cache; problems: Problem[] } =>
  runSteps(parseCacheSteps(lines, file, parsed));

/** parseCache as steps (src/io/interrupt.ts runSteps): it yields the number of lines read every LINES_A_STEP lines, so that `cache validate` can be stopped. */
export const parseCacheSteps = (
  lines: Iterable<string>,
  file: string,
  parsed?: (json: unknown, line: number) => void,
): Generator<number, { cache?: Cache; problems: Problem[] }> => parseSteps(lines, file, heldIn, parsed);

/**
 * The parse of parseCacheSteps with each response put into the columns file `build` as it is
 * parsed, not held: the cache it returns has no responses (they are in the columns once `build`
 * finishes). Its problems are parseCache's.
 */
export const parseIntoColumnsSteps = (lines: Iterable<string>, file: string, build: ColumnsBuild): Generator<number, { cache?: Cache; problems: Problem[] }> =>
  parseSteps(lines, file, (cache) => ({
    add: (rec, q, a, ans) => build.add(rec, q, a, ans, cache.questions[q].answerType),
    resolved: build.resolved,
  }));

/** Lines a step of the parse reads. */
const LINES_A_STEP = 256;
/** References resolved (or problems sorted) a step, at the end of the parse. */
const REFS_A_STEP = 4096;

/** What a response's references resolve to; a problem (with the id it names, when unknown); undefined: an id not known yet. */
type Resolution = { refs: number[]; prevIndex: number } | { problem: { field: string; message: string; id?: string } } | undefined;

/** What resolving references reads of a cache: its indexes and each response's question, agent and round. */
export interface Referenced {
  cache: Cache;
  q: (i: number) => number;
  a: (i: number) => number;
  round: (i: number) => number;
}

/**
 * Resolve the context and previous response of a response of question `q`, agent `a`, round
 * `round`; the first broken reference is the problem. Not `final`, an id that is no response yet
 * leaves it unresolved (it may be a later response, or an external entry, indexed last).
 */
export function resolveRefs(
  { cache, q: qOf, a: aOf, round: roundOf }: Referenced,
  r: { context: string[]; prev: string | null; q: number; a: number; round: number },
  final: boolean,
): Resolution {
  const refs: number[] = [];
  for (let j = 0; j < r.context.length; j++) {
    const id = r.context[j];
    const c = cache.responseIndex.get(id);
    const field = `context.${j}`;
    if (c === undefined) {
      if (!final) return undefined;
      const e = cache.externalIndex.get(id);
      if (e === undefined) return { problem: { field, message: `unknown response, external or summary id '${id}'`, id } };
      if (cache.externals[e].q !== r.q)
        return { problem: { field, message: `${cache.externals[e].type} '${id}' belongs to another question (${cache.externals[e].question})` } };
      refs.push(-e - 1);
      continue;
    }
    if (qOf(c) !== r.q) return { problem: { field, message: `response '${id}' answers another question (${cache.questions[qOf(c)].id})` } };
    // An earlier round than t - 1: the answer of an agent that made no call since (a skipped revision).
    const sameRound = roundOf(c) === r.round && aOf(c) !== r.a;
    if (roundOf(c) >= r.round && !sameRound)
      return {
        problem: {
          field,
          message: `response '${id}' is from round ${roundOf(c)}: a context holds responses of earlier rounds, or another agent's round-${r.round} response`,
        },
      };
    refs.push(c);
  }
  let prevIndex = -1;
  if (r.prev !== null) {
    const p = cache.responseIndex.get(r.prev);
    if (p === undefined) return final ? { problem: { field: 'prev', message: `unknown response id '${r.prev}'`, id: r.prev } } : undefined;
    // Its latest response: of an earlier round than t - 1 where it made no call since (a skipped revision).
    if (qOf(p) !== r.q || aOf(p) !== r.a || roundOf(p) >= r.round)
      return { problem: { field: 'prev', message: `response '${r.prev}' is not this agent's response of an earlier round to this question` } };
    prevIndex = p;
  }
  return { refs, prevIndex };
}

/** Int32 values that grow as they are pushed (a response's question, agent, round and line, off the heap). */
function ints(): { push: (v: number) => void; at: (i: number) => number } {
  let data = new Int32Array(1024);
  let n = 0;
  return {
    push: (v) => {
      if (n === data.length) {
        const larger = new Int32Array(2 * n);
        larger.set(data);
        data = larger;
      }
      data[n++] = v;
    },
    at: (i) => data[i],
  };
}

function* parseSteps(
  lines: Iterable<string>,
  file: string,
  sinkOf: (cache: Cache) => ResponseSink,
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
  const sink = sinkOf(cache);
  // What the checks keep of every response: its question, agent, round and line.
  const qs = ints();
  const as = ints();
  const rounds = ints();
  const responseLine = ints();
  let responses = 0;
  const referenced: Referenced = { cache, q: qs.at, a: as.at, round: rounds.at };
  const agentLine: number[] = [];
  const questionLine: number[] = [];
  const externalLine: number[] = [];
  const isDuplicate = (kind: string, index: Map<string, number>, firstLine: (i: number) => number, rid: string, line: number) => {
    const seen = index.get(rid);
    if (seen !== undefined) problem(line, 'id', `duplicate ${kind} id '${rid}' (first on line ${firstLine(seen)})`);
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
  // References are resolved as a response comes when every id it names is a response already;
  // the others once all ids are known (records may come in any order). Their problems are said
  // after every other, in the order of the responses.
  const unresolved: { i: number; context: string[]; prev: string | null }[] = [];
  const refProblems: { i: number; field: string; message: string; id?: string }[] = [];
  const settle = (i: number, got: NonNullable<Resolution>) => {
    if ('problem' in got) refProblems.push({ i, ...got.problem });
    else sink.resolved(i, got.refs, got.prevIndex);
  };
  const addResponse = (rec: ResponseRecord, line: number, final: boolean) => {
    if (isDuplicate('response', cache.responseIndex, responseLine.at, rec.id, line)) return;
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
    const question = cache.questions[q];
    const unstored = unstoredAnswer(rec.answer, question);
    if (unstored) problem(line, 'answer', unstored);
    const i = responses++;
    cache.responseIndex.set(rec.id, i);
    responseLine.push(line);
    qs.push(q);
    as.push(a);
    rounds.push(rec.round);
    sink.add(rec, q, a, internAnswer(cache, normalizeAnswer(rec.answer, question.answerType), q));
    const got = resolveRefs(referenced, { context: rec.context, prev: rec.prev, q, a, round: rec.round }, false);
    if (got) settle(i, got);
    else unresolved.push({ i, context: rec.context, prev: rec.prev });
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
      if (isDuplicate('agent', cache.agentIndex, (k) => agentLine[k], rec.id, line)) continue;
      agentLine.push(line);
      cache.agentIndex.set(rec.id, cache.agents.length);
      cache.agents.push({ ...rec, index: cache.agents.length });
    } else if (rec.type === 'question') {
      if (isDuplicate('question', cache.questionIndex, (k) => questionLine[k], rec.id, line)) continue;
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
    if (isDuplicate(rec.type, cache.externalIndex, (e) => externalLine[e], rec.id, line)) continue;
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
    if (rec.type === 'summary') summaryProblem(referenced, rec, q, (field, message) => problem(line, field, message));
  }
  for (const [k, { i, context, prev }] of unresolved.entries()) {
    if (k % REFS_A_STEP === REFS_A_STEP - 1) yield line;
    settle(i, resolveRefs(referenced, { context, prev, q: qs.at(i), a: as.at(i), round: rounds.at(i) }, true)!);
  }
  refProblems.sort((x, y) => x.i - y.i);
  for (const { i, field, message, id } of refProblems) if (!(id !== undefined && rejected.has(`record:${id}`))) problem(responseLine.at(i), field, message);

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
function summaryProblem({ cache, q: qOf }: Referenced, rec: SummaryRecord, q: number, problem: (field: string, message: string) => void): void {
  (rec.of ?? []).forEach((id, j) => {
    const r = cache.responseIndex.get(id);
    if (r === undefined) problem(`of.${j}`, `unknown response id '${id}'`);
    else if (qOf(r) !== q) problem(`of.${j}`, `response '${id}' answers another question (${cache.questions[qOf(r)].id})`);
  });
}
