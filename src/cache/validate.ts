// `cache validate`: what would poison training, each with file, line and field.
//   errors (the cache is not valid; the command exits 1): everything loading rejects (format, ids,
//     context references to missing responses, an `answer` that does not parse under its
//     question's answerType: src/answer.ts storedAnswer, the rule `cache import` stores by: "C", not
//     "**C**"; for MATH also well formed: not ", which is 431");
//   warnings (worth a look; exit 0): a price above 1e-3 per token (almost surely a price per
//     million tokens), an ambiguous read (a record marked `ambiguous`, or a stored answer whose text
//     states two that disagree), two readings that disagree (a record marked `disagreement`, or a
//     stored answer whose text's stated and settled readings disagree: readAnswer, as import reads), a stored answer that differs from what its text states, token counts that
//     disagree wildly with the text (more than 3x apart by gpt-tokenizer's cl100k_base count; not
//     checked on simulator caches, whose outTokens are simulated lengths), and a response whose
//     inTokens is below what its prompt held: its question's promptTokens plus the tokens of its
//     context (responses' outTokens, external and summary entries' tokens), and a context entry of
//     the response's own round whose `turn` is not earlier than the response's (the recorded protocol).
//   Summary entries are checked as external ones are (answer, tokens); loading checks their `of`.
//   Embeddings files (embeddings.ts checkEmbeddings): errors for a vector of the wrong dimension, a
//     value that is not finite, two vectors for one text; warnings for texts without a vector and
//     vectors of no text (computed or dropped at the next use).
import { existsSync } from 'node:fs';
import { normalizeAnswer, questionOptions, readAnswer, sameMath, storedAnswer, type AnswerRead, type AnswerType, type McqOption } from '../answer.ts';
import type { CacheLine } from './format.ts';
import { checkEmbeddings } from './embeddings.ts';
import { journalPath } from './journal.ts';
import { formatProblem, type Problem } from '../io/problems.ts';
import type { Cache, Response } from './types.ts';
import { readColumnsSteps, sourceState } from './columns.ts';
import { applyJournal, cacheFilePath, parseCacheSteps } from './load.ts';
import { countLines, fileLines } from '../io/textFile.ts';
import { runSteps } from '../io/interrupt.ts';
import { leftoverTemp } from '../io/lock.ts';
import { tokenCounter } from './tokens.ts';

export interface Issue extends Problem {
  severity: 'error' | 'warning';
}

export const formatIssue = (i: Issue) => formatProblem(i.severity === 'warning' ? { ...i, message: `warning: ${i.message}` } : i);

/** Per-token prices above this are almost surely per-million prices ($1,000 per million tokens). */
export const MAX_PRICE_PER_TOKEN = 1e-3;
/** Token counts further apart than this factor (and `TOKEN_SLACK` tokens) disagree wildly. */
const TOKEN_FACTOR = 3;
const TOKEN_SLACK = 20;
const countTokens = tokenCounter('cl100k_base');

/** A warning when a recorded token count and the text's own count are wildly apart, else null. */
function tokenMismatch(recorded: number, text: string): string | null {
  // Counting is slow on big caches: only texts whose length is far from ~4 characters a token are counted.
  const perToken = text.length / Math.max(1, recorded);
  if (perToken >= 1.5 && perToken <= 8) return null;
  const counted = countTokens(text);
  const far = recorded > TOKEN_FACTOR * counted + TOKEN_SLACK || counted > TOKEN_FACTOR * recorded + TOKEN_SLACK;
  return far ? `${recorded} tokens recorded, but the text has ${counted} (gpt-tokenizer, cl100k_base)` : null;
}

/** Tokens a response's prompt held at least: its question's prompt and every context entry. */
function promptHeld(cache: Cache, r: Response, promptTokens: number): number {
  let tokens = promptTokens;
  for (const c of r.ctx) tokens += cache.responses[c].outTokens;
  for (const e of r.ext) tokens += cache.externals[e].tokens;
  return tokens;
}

/** How promptHeld's tokens add up, said where a response's inTokens is below them (built only then: a string a response cost more than the sum). */
function promptParts(cache: Cache, r: Response, promptTokens: number): string {
  const shown = r.ctx.reduce((s, c) => s + cache.responses[c].outTokens, 0);
  const texts = r.ext.reduce((s, e) => s + cache.externals[e].tokens, 0);
  const parts = [
    `promptTokens ${promptTokens}`,
    ...(r.ctx.length ? [`${shown} outTokens of ${r.ctx.length} context responses`] : []),
    ...(r.ext.length ? [`${texts} tokens of ${r.ext.length} external or summary entries`] : []),
  ];
  return parts.length > 1 ? `${parts.join(' + ')} = ${promptTokens + shown + texts}` : `its question's promptTokens (${promptTokens})`;
}

interface QuestionFacts {
  type: AnswerType;
  /** Its text: the answer readings need its options and expressions. */
  text: string;
  options: McqOption[];
  promptTokens: number;
}

/** How far a validation got, said when it is stopped: lines of cache.jsonl read (loading's checks), then records checked (answers, tokens). */
export interface ValidateProgress {
  lines: number;
  read: number;
  records: number;
  checked: number;
}

export type Validation = { cache?: Cache; issues: Issue[] };

/** Records checked between two stop points: a stop point a record (an await each) cost 20-80 ms of a default cache's validation. */
const CHECKS_STEP = 64;

/** Every error and warning of a cache directory (see the header), in line order, with the cache when it loads. */
export const validateCache = (dir: string): Validation => runSteps(validateSteps(dir));

/**
 * validateCache as steps (src/io/interrupt.ts: `cache validate` stops between them), counting in
 * `progress` how far it got. Its memory does not grow with the file's texts: loading's checks come
 * from the columns file when it is fresh (it was built from a parse of this very cache.jsonl that
 * found no problem), else from one parse; then the records are read again one line at a time for
 * the checks below, each dropped once checked.
 */
export function* validateSteps(dir: string, progress: ValidateProgress = { lines: 0, read: 0, records: 0, checked: 0 }): Generator<unknown, Validation> {
  const file = cacheFilePath(dir);
  if (!existsSync(file)) return { issues: [{ file, line: 0, field: '', message: 'file not found', severity: 'error' }] };
  progress.lines = countLines(file);
  const columns = yield* readColumnsSteps(dir, sourceState(file), file);
  let loaded: { cache?: Cache; problems: Problem[] };
  if (columns && 'cache' in columns) loaded = { cache: columns.cache, problems: [] };
  else {
    const parse = parseCacheSteps(fileLines(file), file);
    let step = parse.next();
    for (; !step.done; step = parse.next()) yield (progress.read = step.value);
    loaded = step.value;
  }
  const { cache, problems } = loaded;
  progress.read = progress.lines;
  progress.records = progress.lines;
  // The record tier's journal (journal.ts) is part of the cache: its lines are checked as loading reads them.
  const journal = cache ? applyJournal(cache, dir) : { problems: [], warnings: [] };
  const issues: Issue[] = [...problems, ...journal.problems].map((p) => ({ ...p, severity: 'error' }));
  for (const message of journal.warnings) issues.push({ file: journalPath(dir), line: 0, field: '', message, severity: 'warning' });
  const say = (severity: Issue['severity'], line: number, field: string, message: string) => issues.push({ file, line, field, message, severity });

  // The questions (answer types, options, prompt tokens): from the cache, or (one that does not load) from the file's question records.
  let simulated = false;
  const questions = new Map<string, QuestionFacts>();
  const addQuestion = (rec: { id: string; text: unknown; answerType: AnswerType; promptTokens: number }) => {
    if (typeof rec.text === 'string')
      questions.set(rec.id, {
        type: rec.answerType,
        text: rec.text,
        options: rec.answerType === 'mcq' ? questionOptions(rec.text) : [],
        promptTokens: rec.promptTokens,
      });
  };
  if (cache) {
    simulated = cache.header.source === 'simulator';
    cache.questions.forEach(addQuestion);
  } else
    for (const { rec } of records(file)) {
      if (rec.type === 'cache') simulated = rec.source === 'simulator';
      else if (rec.type === 'question') addQuestion(rec);
    }

  // A reading depends only on the text and its question: texts repeated within a question are read
  // once (a question's responses stand together in a file; only the current question's are held).
  let reads = { of: undefined as QuestionFacts | undefined, texts: new Map<string, AnswerRead>() };
  const readOf = (text: string, q: QuestionFacts) => {
    if (reads.of !== q) reads = { of: q, texts: new Map() };
    let read = reads.texts.get(text);
    if (!read) reads.texts.set(text, (read = readAnswer(text, q.type, q.options, q.text)));
    return read;
  };
  const checkAnswer = (line: number, rec: { answer: unknown; text: unknown; ambiguous?: unknown; disagreement?: unknown }, q: QuestionFacts | undefined) => {
    const { answer, text } = rec;
    if (!q || (answer !== null && typeof answer !== 'string') || typeof text !== 'string') return; // shape errors come from parseCache
    if (answer !== null && storedAnswer(answer, q.type) === null) return; // an error of loading's (load.ts unstoredAnswer)
    const shown = (r: unknown) => (r === null ? 'no answer' : `'${r}'`);
    if (Array.isArray(rec.ambiguous)) {
      say('warning', line, 'ambiguous', `ambiguous read: the text states ${rec.ambiguous.map(shown).join(' and ')}; stored as ${shown(answer)}`);
      return;
    }
    if (Array.isArray(rec.disagreement)) {
      const [stated, settled] = rec.disagreement;
      say(
        'warning',
        line,
        'disagreement',
        `the two readings disagree: it states ${shown(stated)}, it settles on ${shown(settled)}; stored as ${shown(answer)}`,
      );
      return;
    }
    const read = readOf(text, q);
    if (read.ambiguous && answer !== null) {
      say('warning', line, 'answer', `'${answer}', but the text states two answers that disagree (${read.ambiguous.map(shown).join(', ')})`);
      return;
    }
    if (read.disagreement && answer !== null) {
      const [stated, settled] = read.disagreement;
      say('warning', line, 'answer', `'${answer}', but the two readings of the text disagree (it states ${shown(stated)}, it settles on ${shown(settled)})`);
      return;
    }
    const stored = normalizeAnswer(answer, q.type);
    const stated = normalizeAnswer(read.answer, q.type);
    if (stated === null || stored === stated || (q.type === 'math' && stored !== null && sameMath(stored, stated))) return;
    say('warning', line, 'answer', `${answer === null ? 'null' : `'${answer}'`}, but the text states '${stated}'`);
  };
  // The loaded response of a response record. A cache loads only from a file without a problem, and
  // its responses load in file order, except those whose question or agent came later in the file,
  // which load after the rest (load.ts addResponse): a response whose question and agent records
  // were read before it is the next in order; another is looked up by id. (A loaded response's id
  // is read from the columns file when asked for: comparing each was a read per record.)
  const before = { questions: new Set<string>(), agents: new Set<string>() };
  let next = 0;
  const loadedOf = (rec: { id: string; question: string; agent: string }): Response | undefined => {
    if (!cache) return undefined;
    if (before.questions.has(rec.question) && before.agents.has(rec.agent)) return cache.responses[next++];
    const at = cache.responseIndex.get(rec.id);
    return at === undefined ? undefined : cache.responses[at];
  };

  let checked = 0;
  for (const { line, rec } of records(file)) {
    if (checked % CHECKS_STEP === 0) yield (progress.checked = checked); // the records before this one are checked
    checked++;
    if (rec.type === 'agent') {
      before.agents.add(rec.id);
      for (const field of ['priceIn', 'priceOut'] as const)
        if (typeof rec[field] === 'number' && rec[field] > MAX_PRICE_PER_TOKEN)
          say(
            'warning',
            line,
            field,
            `${rec[field]} per token is ${(rec[field] * 1e6).toLocaleString('en-US')} per million tokens: ` +
              `prices are per token (e.g. 2.5e-6 for $2.50 per million); is this a price per million?`,
          );
    } else if (rec.type === 'question') before.questions.add(rec.id);
    else if (rec.type === 'response') {
      const q = questions.get(rec.question);
      checkAnswer(line, rec, q);
      if (!simulated && typeof rec.text === 'string' && typeof rec.outTokens === 'number') {
        const off = tokenMismatch(rec.outTokens, rec.text);
        if (off) say('warning', line, 'outTokens', off);
      }
      const r = loadedOf(rec);
      if (q && r && typeof rec.inTokens === 'number' && rec.inTokens < promptHeld(cache!, r, q.promptTokens))
        say('warning', line, 'inTokens', `${rec.inTokens} is less than what its prompt held: ${promptParts(cache!, r, q.promptTokens)}`);
      if (cache && rec.turn !== undefined) laterTurns(cache, rec, (field, message) => say('warning', line, field, message));
    } else if (rec.type === 'external' || rec.type === 'summary') {
      checkAnswer(line, rec, questions.get(rec.question));
      if (!simulated && typeof rec.text === 'string' && typeof rec.tokens === 'number') {
        const off = tokenMismatch(rec.tokens, rec.text);
        if (off) say('warning', line, 'tokens', off);
      }
    }
  }
  progress.checked = checked;
  issues.sort((a, b) => a.line - b.line);
  // An interrupted write (a killed cache gen, import or embed) leaves its temporary file: named, so that it is not taken for the cache.
  for (const path of leftoverTemp(dir))
    issues.push({
      file: path,
      line: 0,
      field: '',
      message: 'a temporary file of an interrupted write (its process is gone): not part of the cache; the next command that writes the cache removes it',
      severity: 'warning',
    });
  // The embeddings stored beside the cache: what training and evaluation would read.
  const embeddings = checkEmbeddings(dir, cache);
  issues.push(...embeddings.errors.map((p): Issue => ({ ...p, severity: 'error' })), ...embeddings.warnings.map((p): Issue => ({ ...p, severity: 'warning' })));
  return { cache, issues };
}

/** The records of cache.jsonl one at a time (read 1 MB at a time), with their line numbers (lines that are no JSON object are loading's errors). */
function* records(file: string): Generator<{ line: number; rec: CacheLine }> {
  let line = 0;
  for (const text of fileLines(file, 1 << 20)) {
    line++;
    if (text.trim() === '') continue;
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      continue;
    }
    if (json && typeof json === 'object') yield { line, rec: json as CacheLine };
  }
}

/** A context entry of the response's own round spoken at the same or a later turn: the recorded protocol cannot show it in time. */
function laterTurns(cache: Cache, rec: CacheLine & { type: 'response' }, say: (field: string, message: string) => void): void {
  rec.context.forEach((id, j) => {
    const c = cache.responseIndex.get(id);
    const other = c === undefined ? undefined : cache.responses[c];
    if (other && other.round === rec.round && !(other.turn! < rec.turn!))
      say(
        `context.${j}`,
        `response '${id}' of the same round spoke at turn ${other.turn ?? '(none)'}, not before this one's ${rec.turn}: ` +
          'the recorded protocol (--protocol recorded) cannot show it, and replays this revision from the approximate tiers',
      );
  });
}
