// Import recorded debates in the layout of Du et al.'s debate code (also DyLAN's):
//   { "<prompt>": [agents, gold, ...extra], ... }   agents = one chat transcript per agent,
//   [system?, user, assistant, user, assistant, ...]: assistant message t is the round-t response.
// Each later user message lists the solutions the agent was shown, each after a marker of its code
// base ("One agent solution: ```...```", "One agent response: ```...```", DyLAN's "Agent solution 2:
// ```...```", or the user's --peer-marker); its own previous answer is in its chat history. A
// response's context is therefore its own previous response plus every shown solution, matched to
// the recorded responses by text; a shown solution that matches none (an agent dropped from the
// team) becomes an `external` entry. How many revision prompts showed no recognised peer answer is
// counted; when none does at all, the import stops (unless allowed): the markers do not fit.
// A malformed problem is reported (file, problem, field) and skipped or trimmed; the rest imports.
import { basename, extname } from 'node:path';
import seedrandom from 'seedrandom';
import { z } from 'zod';
import { normalizeAnswer, questionOptions, readAnswer, type AnswerType, type McqOption } from '../answer.ts';
import {
  CACHE_FORMAT,
  CACHE_VERSION,
  MAX_PRICE,
  SPLITS,
  type CacheLine,
  type ExternalRecord,
  type QuestionRecord,
  type ResponseRecord,
  type Split,
} from './format.ts';
import { zodProblems } from '../io/problems.ts';
import { readTextFile } from '../io/textFile.ts';
import { assignSplits } from './splits.ts';
import { assignTurns } from './turns.ts';
import { chatPrefixCounter, tokenCounter, type Encoding } from './tokens.ts';
import { InputError, SettingsError } from '../io/errors.ts';
import { runSteps } from '../io/interrupt.ts';
import { PEER_MARKERS, peerMarker, shownSolutions, type PeerStats } from './peerMarkers.ts';
import { heldRecords, type RecordStore } from './recordSpill.ts';

/** Price per million tokens of one model (at most a million: the cache's bound of 1 per token). */
const perMillion = z
  .number()
  .nonnegative()
  .max(MAX_PRICE * 1e6);
export const ModelPrice = z.strictObject({ in: perMillion, out: perMillion });
export const PriceFile = z.record(z.string(), ModelPrice);

export interface DuImportOptions {
  name: string;
  /** Model of each transcript position; the last one also serves every later position. */
  models: string[];
  /** Prices per million tokens, by model. */
  prices: Record<string, z.infer<typeof ModelPrice>>;
  encoding: Encoding;
  benchmark: string;
  answerType: AnswerType;
  splitSeed: number;
  trainFraction: number;
  validationFraction: number;
  /** Question id -> split; overrides the seeded rule for the questions it names (all, or an error). */
  splits?: Record<string, Split>;
  /** A peer-answer marker of the user's (see `peerMarker`), tried with the built-in PEER_MARKERS. */
  peerMarker?: string;
  /** Import even when no revision prompt shows a recognised peer answer (a debate without peers). */
  allowNoPeers?: boolean;
}

/** A problem found while importing: which file, which problem (1-based, 0 = the file), which field. */
export interface ImportProblem {
  file: string;
  problem: number;
  field: string;
  message: string;
}

export const formatImportProblem = (p: ImportProblem) => `${p.file}${p.problem ? `: problem ${p.problem}` : ''}: ${p.field ? `${p.field}: ` : ''}${p.message}`;

const Message = z.looseObject({ role: z.enum(['system', 'user', 'assistant']), content: z.string() });
const DuProblem = z
  .tuple([z.array(z.array(Message)).min(1, 'no agent transcripts'), z.union([z.string(), z.number()], { error: 'gold answer missing' })])
  .rest(z.unknown());

/** The problem statement inside a few-shot prompt ("...Problem: X\nAnswer:"), else the whole prompt. */
function problemText(prompt: string): string {
  const at = prompt.lastIndexOf('Problem:');
  if (at < 0) return prompt.trim();
  return (
    prompt
      .slice(at + 'Problem:'.length)
      .replace(/\s*Answer:\s*$/, '')
      .trim() || prompt.trim()
  );
}

const squash = (s: string) => s.replace(/\s+/g, ' ').trim();

interface Recorded {
  agent: number;
  round: number;
  record: ResponseRecord;
  /** The user message it answers (which lists the solutions shown). */
  user: string;
}

/** A reading dropped because it does not parse under the answer type: the record stores null. */
export interface DroppedReading {
  /** The response or external entry, and its question. */
  id: string;
  question: string;
  /** Its agent, or null for a shown solution (an external entry). */
  agent: string | null;
  round: number | null;
  reading: string;
}

export interface DuImport<Records = CacheLine[]> {
  /** Header, agents, questions, external entries, responses. */
  records: Records;
  problems: ImportProblem[];
  /** Problems read, and imported. */
  read: number;
  imported: number;
  peers: PeerStats;
  /** Readings not stored, of the imported questions. */
  dropped: DroppedReading[];
}

/** How `answerFields` reads a problem's texts: its answer type, options and question text. */
export interface Reading {
  type: AnswerType;
  options: McqOption[];
  question: string;
}

/** The answer fields of a record from what its text states (src/answer.ts readAnswer): the answer, and the readings of an ambiguous read or a disagreement. */
export function answerFields(text: string, r: Reading, drop: (reading: string) => void) {
  const read = readAnswer(text, r.type, r.options, r.question);
  if (read.dropped !== undefined) drop(read.dropped);
  return { answer: read.answer, ...(read.ambiguous && { ambiguous: read.ambiguous }), ...(read.disagreement && { disagreement: read.disagreement }) };
}

/** Read Du-layout files into cache records; problems are collected, never thrown (except a missing price). */
export function importDu(files: string[], o: DuImportOptions): DuImport {
  const result = runSteps(importDuSteps(files, o));
  return { ...result, records: [...result.records] };
}

/** How far an import got: files read whole (the one being read is not counted), and problems read. */
export interface ImportProgress {
  files: number;
  problems: number;
}

/**
 * importDu as steps, one a problem (src/io/interrupt.ts: `cache import` stops between them), counting
 * in `progress` how far it got. Each problem's external entries and responses go to `stored` as it
 * is read (held, or spilled to files: src/cache/recordSpill.ts); the records returned read them
 * from there, the caller closes them.
 */
export function* importDuSteps(
  files: string[],
  o: DuImportOptions,
  progress: ImportProgress = { files: 0, problems: 0 },
  stored: { externals: RecordStore; responses: RecordStore } = { externals: heldRecords(), responses: heldRecords() },
): Generator<unknown, DuImport<Iterable<CacheLine>>> {
  if (!(o.trainFraction >= 0 && o.validationFraction >= 0 && o.trainFraction + o.validationFraction <= 1))
    throw new SettingsError(`train fraction ${o.trainFraction} and validation fraction ${o.validationFraction} must be >= 0 and add up to at most 1`);
  // Texts recur within a problem (the prompt every agent is given, a reply in its agent's next
  // prompt and as its output): each is counted once per problem.
  const counter = tokenCounter(o.encoding);
  let counted = new Map<string, number>();
  const count = (text: string) => {
    let n = counted.get(text);
    if (n === undefined) counted.set(text, (n = counter(text)));
    return n;
  };
  const prompts = chatPrefixCounter(o.encoding, count);
  const markers = [...PEER_MARKERS.map((p) => p.marker), ...(o.peerMarker !== undefined ? [peerMarker(o.peerMarker)] : [])];
  const peers: PeerStats = { revisionPrompts: 0, withoutPeers: 0, shown: 0, markers: markers.map((m) => m.source) };
  let firstRevision: string | undefined;
  const problems: ImportProblem[] = [];
  const questions: QuestionRecord[] = [];
  const dropped: DroppedReading[] = [];
  let read = 0;
  let positions = 0;

  for (const [done, file] of files.entries()) {
    progress.files = done;
    const stem = basename(file, extname(file));
    let json: unknown;
    try {
      // Read as every text file is (src/io/textFile.ts): a folder, a missing file or bytes that are not UTF-8 are errors naming it.
      const text = readTextFile(file);
      try {
        json = JSON.parse(text);
      } catch (e) {
        throw new InputError(`${file}: invalid JSON: ${(e as Error).message}`);
      }
    } catch (e) {
      // The message names the file (and line) itself: the problem says them once.
      const message = (e as Error).message;
      problems.push({
        file,
        problem: 0,
        field: '',
        message: message.startsWith(file)
          ? message
              .slice(file.length)
              .replace(/^:(\d+): /, 'line $1: ')
              .replace(/^: /, '')
          : message,
      });
      continue;
    }
    if (typeof json !== 'object' || json === null || Array.isArray(json)) {
      problems.push({ file, problem: 0, field: '', message: 'expected one JSON object mapping each prompt to [agent transcripts, gold answer, ...]' });
      continue;
    }
    const importProblem = (prompt: string, value: unknown, k: number) => {
      read++;
      counted = new Map();
      const problem = k + 1;
      const say = (field: string, message: string) =>
        problems.push({ file, problem, field, message: `${message} (prompt "${problemText(prompt).slice(0, 50)}...")` });
      const parsed = DuProblem.safeParse(value);
      if (!parsed.success) {
        for (const p of zodProblems(parsed.error.issues, file, 0)) say(p.field, `${p.message}; problem skipped`);
        return;
      }
      const [agents, goldValue, ...extra] = parsed.data;
      const gold = String(goldValue).trim();
      if (gold === '' || normalizeAnswer(gold, o.answerType) === null)
        return say('1', `gold answer '${gold}' cannot be read as a ${o.answerType} answer; problem skipped`);
      const qid = `${stem}/${problem}`;
      // Options cited by their text; the question's expressions and unknowns (a restatement is no answer).
      const reading: Reading = { type: o.answerType, options: o.answerType === 'mcq' ? questionOptions(prompt) : [], question: problemText(prompt) };

      // Rounds of each transcript: assistant message t answers the user message before it.
      const recorded: Recorded[] = [];
      agents.forEach((transcript, i) => {
        const inTokens = prompts(transcript); // the prompt before each message
        let t = 0;
        let expect: 'user' | 'assistant' = 'user';
        for (let m = 0; m < transcript.length; m++) {
          const { role, content } = transcript[m];
          if (role === 'system' && m === 0) continue;
          if (role !== expect) {
            say(`0.${i}.${m}.role`, `expected a ${expect} message, found ${role}; transcript of agent ${i + 1} cut after round ${t}`);
            return;
          }
          if (role === 'user') {
            expect = 'assistant';
            continue;
          }
          expect = 'user';
          t++;
          const id = `${qid}/a${i + 1}/r${t}`;
          if (content.trim() === '') say(`0.${i}.${m}.content`, `empty response of agent ${i + 1} at round ${t}: imported with no answer`);
          const record: ResponseRecord = {
            type: 'response',
            id,
            question: qid,
            agent: `a${i + 1}`,
            round: t,
            sample: 0,
            context: [],
            prev: t > 1 ? `${qid}/a${i + 1}/r${t - 1}` : null,
            text: content,
            ...answerFields(content, reading, (r) => dropped.push({ id, question: qid, agent: `a${i + 1}`, round: t, reading: r })),
            inTokens: inTokens[m],
            outTokens: count(content),
          };
          recorded.push({ agent: i, round: t, record, user: transcript[m - 1].content });
        }
        if (expect === 'assistant')
          say(`0.${i}.${transcript.length - 1}`, `transcript of agent ${i + 1} ends with a user message: cut short, its last round is missing`);
        if (t === 0) say(`0.${i}`, `agent ${i + 1} has no response; left out`);
      });
      if (recorded.length === 0) return say('0', 'no responses; problem skipped');

      // Contexts: own previous response, then every shown solution, matched by text.
      const external = new Map<string, string>();
      const externals: ExternalRecord[] = [];
      for (const { agent, round, record, user } of recorded) {
        if (round === 1) continue;
        record.context.push(record.prev!);
        const candidates = recorded.filter((r) => r.agent !== agent && (r.round === round - 1 || r.round === round));
        const shownHere = shownSolutions(user, markers);
        peers.revisionPrompts++;
        peers.shown += shownHere.length;
        if (!shownHere.length) peers.withoutPeers++;
        firstRevision ??= user;
        for (const shown of shownHere) {
          const same = candidates.filter((r) => r.record.text.trim() === shown);
          const close = same.length ? same : candidates.filter((r) => squash(r.record.text) === squash(shown));
          // Identical texts: the protocol's choice (earlier agents' current round, later agents' previous round).
          const match = close.find((r) => r.round === (r.agent < agent ? round : round - 1)) ?? close[0];
          if (match) {
            if (!record.context.includes(match.record.id)) record.context.push(match.record.id);
            continue;
          }
          let eid = external.get(shown);
          if (!eid) {
            const id = `${qid}/shown/${external.size + 1}`;
            external.set(shown, (eid = id));
            externals.push({
              type: 'external',
              id,
              question: qid,
              text: shown,
              ...answerFields(shown, reading, (r) => dropped.push({ id, question: qid, agent: null, round: null, reading: r })),
              tokens: count(shown),
            });
          }
          record.context.push(eid);
        }
      }

      assignTurns(recorded.map((r) => r.record));
      const first = agents.find((t) => t.some((m) => m.role === 'assistant'))!;
      const firstAssistant = first.findIndex((m) => m.role === 'assistant');
      positions = Math.max(positions, agents.length);
      const [level, subject] = extra;
      questions.push({
        type: 'question',
        id: qid,
        text: problemText(prompt),
        gold,
        benchmark: o.benchmark,
        answerType: o.answerType,
        split: 'train', // assigned below, once every question is known
        promptTokens: prompts(first)[firstAssistant],
        meta: { file: basename(file), problem, ...(level !== undefined && { level }), ...(subject !== undefined && { subject }) },
      });
      stored.externals.add(qid, externals);
      stored.responses.add(
        qid,
        recorded.map((r) => r.record),
      );
    };
    for (const [k, [prompt, value]] of Object.entries(json).entries()) {
      importProblem(prompt, value, k);
      yield (progress.problems = read);
    }
  }
  progress.files = files.length;

  if (peers.revisionPrompts > 0 && peers.shown === 0 && !o.allowNoPeers)
    throw new InputError(
      `no peer answer recognised in any of the ${peers.revisionPrompts} revision prompts (markers tried: ${peers.markers.join(' | ')}); ` +
        `the first one reads: "${firstRevision!.replace(/\s+/g, ' ').slice(0, 200)}...". Give ` +
        `--peer-marker REGEX for this layout, or --allow-no-peers if the agents were shown no peer answers`,
    );
  const seeded = assignSplits(questions.length, o.trainFraction, o.validationFraction, seedrandom(`${o.splitSeed}|splits`));
  questions.forEach((q, i) => {
    q.split = o.splits ? o.splits[q.id] : seeded[i];
    if (!q.split) {
      problems.push({ file: '(split file)', problem: 0, field: q.id, message: `no split given for question '${q.id}'; question skipped` });
    }
  });
  const kept = new Set(questions.filter((q) => q.split).map((q) => q.id));

  const agents = Array.from({ length: positions }, (_, i) => {
    const model = o.models[Math.min(i, o.models.length - 1)];
    const price = o.prices[model];
    if (!price) throw new SettingsError(`no price for model '${model}': give --price-in/--price-out or a --prices file naming it (prices per million tokens)`);
    return { type: 'agent' as const, id: `a${i + 1}`, model, priceIn: price.in / 1e6, priceOut: price.out / 1e6 };
  });
  const header: CacheLine = {
    type: 'cache',
    format: CACHE_FORMAT,
    version: CACHE_VERSION,
    name: o.name,
    source: 'imported',
    meta: { format: 'du', files: files.map((f) => basename(f)), encoding: o.encoding, splitSeed: o.splits ? null : o.splitSeed },
  };
  const records = function* (): Generator<CacheLine> {
    yield header;
    yield* agents;
    yield* questions.filter((q) => kept.has(q.id));
    yield* stored.externals.records(kept);
    yield* stored.responses.records(kept);
  };
  return { records: records(), problems, read, imported: kept.size, peers, dropped: dropped.filter((d) => kept.has(d.question)) };
}

export const SplitFile = z.record(z.string(), z.enum(SPLITS));
