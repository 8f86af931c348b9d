// `debate`: live debates on a team of endpoints, an exported policy choosing what each agent reads
// each round (docs/method.md §1, §4), and the transcript written into a cache so that live debates become
// training data. Round 1: every agent answers alone; round t >= 2: the policy decides, for each
// recipient, its candidates in order (own response first, then the others in team order), kept
// responses join the recipient's query state (the `accepted` texts of inference.ts), and the
// recipient answers with the kept responses in its prompt. A policy that decides more than edges
// first decides whether the debate stops (no more calls) and which members revise (one that does
// not makes no call and keeps its response).
//
// Nothing is paid twice: a request is first looked up (same agent, round, shown responses, previous
// response and sample) in the output cache, then in the questions' cache, and a response found
// there is reused. Every paid response is appended to the output cache's file as one line the
// moment it arrives, so a killed debate loses nothing it paid for, and rerunning the same command
// picks up where it stopped.
import { closeSync, existsSync, ftruncateSync, fstatSync, openSync, readSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { z } from 'zod';
import { ANSWER_TYPES } from '../answer.ts';
import { CACHE_FORMAT, CACHE_VERSION, QuestionRecord, ResponseRecord, SPLITS, type CacheLine, type Split } from '../cache/format.ts';
import type { Agent, Cache, Question, Response } from '../cache/types.ts';
import { appendResponse, cacheFilePath, cacheFromRecords, loadCache } from '../cache/load.ts';
import { tokenCounter } from '../cache/tokens.ts';
import { cacheRecords, writeCacheRecords } from '../cache/write.ts';
import { majority } from '../env/debate.ts';
import { replyFields } from '../env/endpoint.ts';
import { recordedResponseId, requestIds, sameRequest } from '../env/requestKey.ts';
import { appendWhole } from '../io/atomic.ts';
import { readJsonLines } from '../io/jsonFile.ts';
import { loadDeployedPolicy, type Text } from '../policy/inference.ts';
import { BudgetExceededError, type BudgetState } from './budget.ts';
import { limiter } from './limiter.ts';
import { round1Messages } from './prompt.ts';
import type { RetryCounts } from './retry.ts';
import { loadTeamFile, promptsFor, type Caps, type TeamFile } from './team.ts';
import { loadTeamEndpoints } from './teamEndpoints.ts';
import { InputError, SettingsError } from '../io/errors.ts';

/** A line of a questions file (JSONL). */
export const QuestionLine = z.strictObject({
  id: z.string().min(1),
  text: z.string().min(1),
  /** Required: a cache keeps only questions with a gold answer. */
  gold: z.string({ error: 'gold answer missing (a cache needs one to score the debate)' }).min(1),
  answerType: z.enum(ANSWER_TYPES),
  benchmark: z.string().min(1).default('live'),
  split: z.enum(SPLITS).default('test'),
  /** Tokens of the round-1 prompt; counted with the first agent's tokenizer when not given. */
  promptTokens: z.number().int().nonnegative().optional(),
  meta: z.looseObject({}).optional(),
});

export interface LiveDebateOptions {
  /** Team file (endpoints, prompts, prices, limits). */
  team: string;
  /** An exported policy.json (policy.onnx beside it). */
  policy: string;
  /** Cache to write: appended to when it exists, else created. */
  out: string;
  /** The questions: a cache's split, or a questions file (JSONL, QuestionLine). */
  questions: { cache: string; split: Split } | { file: string };
  /** The first N questions only. */
  limit?: number;
  rounds: number;
  /** Round-1 sample index (a second live debate of the same questions takes another one). */
  sample: number;
  /** Overrides of the team file's caps (--budget-usd, --max-calls). */
  caps: Partial<Caps>;
  print: (line: string) => void;
  env?: NodeJS.ProcessEnv;
}

export interface QuestionResult {
  question: Question;
  /** Responses per round, in team order; kept[t-2][i]: agent ids recipient i read at round t. */
  responses: Response[][];
  kept: string[][][];
  /** revised[t-2][i]: member i made its call at round t (a policy with revise decisions may keep its response instead). */
  revised: boolean[][];
  /** The round after which the policy stopped the debate (absent: it did not). */
  stoppedAfter?: number;
  final: string | null;
  correct: boolean;
  paid: number;
  reused: number;
  inTokens: number;
  outTokens: number;
  usd: number;
}

export interface LiveDebateSummary {
  questions: number;
  results: QuestionResult[];
  /** Why the run stopped before the last question (a cap), or null. */
  stopped: string | null;
  budget: BudgetState;
  retries: RetryCounts;
}

/** Drop an unfinished last line (a debate killed while writing one); say so. */
function dropUnfinishedLine(file: string, print: (line: string) => void): void {
  const fd = openSync(file, 'r+');
  try {
    const size = fstatSync(fd).size;
    const tail = Buffer.alloc(Math.min(size, 1 << 20));
    readSync(fd, tail, 0, tail.length, size - tail.length);
    if (size === 0 || tail[tail.length - 1] === 0x0a) return;
    const end = tail.lastIndexOf(0x0a);
    if (end < 0) throw new InputError(`${file}: the last line is unfinished and longer than 1 MB; fix the file by hand`);
    ftruncateSync(fd, size - tail.length + end + 1);
    print(`${file}: removed an unfinished last line (${tail.length - end - 1} bytes), left by an interrupted run`);
  } finally {
    closeSync(fd);
  }
}

/** The output cache, holding the team and every question: created, or loaded and extended. */
function openOutCache(o: LiveDebateOptions, team: TeamFile, teamIds: string[], questions: QuestionRecord[]): Cache {
  const file = cacheFilePath(o.out);
  if (!existsSync(file)) {
    const records: CacheLine[] = [
      {
        type: 'cache',
        format: CACHE_FORMAT,
        version: CACHE_VERSION,
        name: basename(resolve(o.out)),
        source: 'recorded',
        meta: { producer: 'debate', team: basename(o.team) },
      },
      ...teamIds.map((id): CacheLine => {
        const a = team.agents[id];
        return { type: 'agent', id, model: a.endpoint.model, priceIn: a.price.in / 1e6, priceOut: a.price.out / 1e6 };
      }),
      ...questions,
    ];
    writeCacheRecords(o.out, records);
    return cacheFromRecords(records, file);
  }
  dropUnfinishedLine(file, o.print);
  const cache = loadCache(o.out);
  const added = questions.filter((q) => {
    const at = cache.questionIndex.get(q.id);
    if (at === undefined) return true;
    const had = cache.questions[at];
    if (had.text !== q.text || had.gold !== q.gold)
      throw new InputError(
        `${file}: question '${q.id}' is already there with another text or gold answer ` +
          `than in ${'cache' in o.questions ? o.questions.cache : o.questions.file}`,
      );
    return false;
  });
  if (added.length === 0) return cache;
  writeCacheRecords(o.out, [...cacheRecords(cache), ...added]);
  return loadCache(o.out);
}

// A loaded record without the loader's index fields.
const questionRecord = QuestionRecord.strip();
const responseRecord = ResponseRecord.strip();

export async function liveDebate(o: LiveDebateOptions): Promise<LiveDebateSummary> {
  const policy = await loadDeployedPolicy(o.policy);
  const teamIds = policy.artifact.team;
  if (!(Number.isInteger(o.rounds) && o.rounds >= 1 && o.rounds <= policy.artifact.shape.rounds))
    throw new SettingsError(`rounds: ${o.rounds} is outside 1..${policy.artifact.shape.rounds}, the rounds policy ${o.policy} was trained for`);
  const team = loadTeamFile(o.team);
  const missing = teamIds.filter((id) => !team.agents[id]);
  if (missing.length) throw new SettingsError(`${o.team}: agents: no endpoint for ${missing.join(', ')} of the policy's team (${teamIds.join(', ')})`);

  // The questions, as question records.
  let source: Cache | undefined;
  let questions: QuestionRecord[];
  if ('cache' in o.questions) {
    source = loadCache(o.questions.cache);
    questions = source.questions.filter((q) => q.split === (o.questions as { split: Split }).split).map((q) => questionRecord.parse(q));
  } else {
    const first = team.agents[teamIds[0]];
    const count = tokenCounter(first.endpoint.encoding);
    questions = readJsonLines(o.questions.file, QuestionLine).map((q) => ({
      type: 'question',
      ...q,
      promptTokens: q.promptTokens ?? count(round1Messages(promptsFor(first, q.answerType), q.text)),
    }));
  }
  questions = questions.slice(0, o.limit ?? questions.length);
  if (questions.length === 0)
    throw new InputError(`no questions to debate in ${'cache' in o.questions ? `split ${o.questions.split} of ${o.questions.cache}` : o.questions.file}`);

  const out = openOutCache(o, team, teamIds, questions);
  if (source && resolve(source.file) === resolve(out.file)) source = undefined;
  const endpoint = loadTeamEndpoints(o.team, out, o.caps, o.env);
  const members = teamIds.map((id): Agent => {
    const a = out.agentIndex.get(id);
    if (a === undefined) throw new InputError(`${out.file}: no agent '${id}' of the policy's team`);
    return out.agents[a];
  });
  const held = new Map(out.responses.map((r) => [sameRequest(r), r]));
  const inSource = new Map((source?.responses ?? []).map((r) => [sameRequest(r), r]));
  const file = openSync(cacheFilePath(o.out), 'a');

  /** A response to this request: one already held, or a paid call appended to the cache at once. */
  const ask = async (question: Question, agent: Agent, round: number, context: Response[], prev: Response | null, sample: number) => {
    const ids = requestIds({ question, agent, round, context, prev, sample });
    const key = sameRequest(ids);
    const had = held.get(key);
    if (had) return { response: had, paid: false };
    const copy = inSource.get(key);
    let record: ResponseRecord;
    if (copy) record = responseRecord.parse(copy);
    else {
      const reply = await endpoint.respond({ cache: out, question, agent, round, context, prev, sample });
      record = {
        type: 'response',
        id: recordedResponseId(ids),
        ...ids,
        ...replyFields(reply),
      };
    }
    const response = appendResponse(out, record);
    appendWhole(file, cacheFilePath(o.out), JSON.stringify(record) + '\n', false);
    held.set(key, response);
    return { response, paid: !copy };
  };

  /** Every call of a round settles (and its paid response is written) before a failure ends the debate. */
  const settled = async <T>(calls: Promise<T>[]): Promise<T[]> => {
    const results = await Promise.allSettled(calls);
    const failed = results.find((r) => r.status === 'rejected');
    if (failed) throw failed.reason;
    return results.map((r) => (r as PromiseFulfilledResult<T>).value);
  };

  const debateOne = async (question: Question): Promise<QuestionResult> => {
    const result: QuestionResult = {
      question,
      responses: [],
      kept: [],
      revised: [],
      final: null,
      correct: false,
      paid: 0,
      reused: 0,
      inTokens: 0,
      outTokens: 0,
      usd: 0,
    };
    const take = ({ response, paid }: { response: Response; paid: boolean }) => {
      if (paid) {
        const price = team.agents[response.agent].price;
        result.paid++;
        result.inTokens += response.inTokens;
        result.outTokens += response.outTokens;
        result.usd += (response.inTokens * price.in + response.outTokens * price.out) / 1e6;
      } else result.reused++;
      return response;
    };
    let current = (await settled(members.map((a) => ask(question, a, 1, [], null, o.sample)))).map(take);
    result.responses.push(current);
    const accepted: Text[][] = members.map(() => []);
    const { decisions } = policy.artifact.shape;
    for (let t = 2; t <= o.rounds; t++) {
      const shown = Object.fromEntries(members.map((a, i) => [a.id, { text: current[i].text, tokens: current[i].outTokens }]));
      const answers = Object.fromEntries(members.map((a, i) => [a.id, current[i].ans < 0 ? null : out.answerKeys[current[i].ans]]));
      const asked = (recipient: string) => ({
        question: { text: question.text, tokens: question.promptTokens },
        round: t,
        recipient,
        responses: shown,
        accepted: accepted[teamIds.indexOf(recipient)],
        ...(decisions !== 'edges' && { answers }),
      });
      // A stopped debate makes no more calls; a member that does not revise makes none this round.
      if (decisions === 'edges+revise+stop' && (await policy.stop(asked(teamIds[0]))).stop) {
        result.stoppedAfter = t - 1;
        break;
      }
      const revise = await Promise.all(members.map(async (a) => decisions === 'edges' || (await policy.revise(asked(a.id))).revise));
      const made = await Promise.all(members.map((a, i) => (revise[i] ? policy.decide(asked(a.id)) : [])));
      const contexts = made.map((ds) => ds.filter((d) => d.keep).map((d) => current[teamIds.indexOf(d.agent)]));
      contexts.forEach((context, i) => accepted[i].push(...context.map((r) => ({ text: r.text, tokens: r.outTokens }))));
      result.kept.push(contexts.map((context) => context.map((r) => r.agent)));
      result.revised.push(revise);
      const replies = await settled(
        members.map((a, i) => (revise[i] ? ask(question, a, t, contexts[i], current[i], 0).then(take) : Promise.resolve(current[i]))),
      );
      current = replies;
      result.responses.push(current);
    }
    const final = majority(
      current.map((r) => r.ans),
      'lowest-agent',
      Math.random,
    );
    result.final = final < 0 ? null : out.answerKeys[final];
    result.correct = final === question.goldKey;
    return result;
  };

  // Debates run `concurrency` at a time (the team's limiter bounds the calls); results print in question order.
  const pool = limiter(team.concurrency);
  const results: (QuestionResult | undefined)[] = [];
  let printed = 0;
  let stopped: string | null = null;
  let failure: unknown = null;
  const flush = () => {
    for (; printed < results.length && results[printed]; printed++) o.print(formatResult(results[printed]!, out));
  };
  try {
    await Promise.all(
      questions.map((q, k) =>
        pool.run(async () => {
          if (stopped !== null || failure !== null) return;
          try {
            results[k] = await debateOne(out.questions[out.questionIndex.get(q.id)!]);
            flush();
          } catch (e) {
            if (e instanceof BudgetExceededError) stopped ??= e.message;
            else failure ??= e;
          }
        }),
      ),
    );
  } finally {
    closeSync(file);
  }
  const done = results.filter((r): r is QuestionResult => r !== undefined);
  const summary: LiveDebateSummary = { questions: questions.length, results: done, stopped, ...endpoint.stats() };
  o.print(formatSummary(summary, o.out));
  if (failure !== null) throw failure;
  return summary;
}

const fmt = (x: number) => x.toLocaleString('en-US');

export function formatResult(r: QuestionResult, cache: Cache): string {
  const answer = (x: Response) => `${x.agent} ${x.ans < 0 ? '(none)' : cache.answerKeys[x.ans]}`;
  const lines = [`${r.question.id}  gold ${r.question.gold}`];
  r.responses.forEach((round, t) => {
    const kept = (i: number) => (t === 0 ? '' : r.revised[t - 1][i] ? ` [read ${r.kept[t - 1][i].join(', ') || 'nothing'}]` : ' [kept its answer, no call]');
    lines.push(`  round ${t + 1}: ${round.map((x, i) => answer(x) + kept(i)).join(' · ')}`);
  });
  if (r.stoppedAfter !== undefined) lines.push(`  stopped after round ${r.stoppedAfter}: no further calls`);
  lines.push(
    `  final ${r.final ?? '(no parsed answer)'}: ${r.correct ? 'correct' : 'wrong'} · ${r.paid} calls paid, ${r.reused} responses reused · ` +
      `${fmt(r.inTokens)} in + ${fmt(r.outTokens)} out tokens · $${r.usd.toFixed(4)}`,
  );
  return lines.join('\n');
}

export function formatSummary(s: LiveDebateSummary, out: string): string {
  const correct = s.results.filter((r) => r.correct).length;
  const paid = s.results.reduce((n, r) => n + r.paid, 0);
  const reused = s.results.reduce((n, r) => n + r.reused, 0);
  const edges = s.results.flatMap((r) => r.kept.flatMap((round, t) => round.filter((_, i) => r.revised[t][i])));
  const keptEdges = edges.reduce((n, k) => n + k.length, 0);
  const size = s.results[0]?.responses[0].length ?? 0;
  const b = s.budget;
  const retries = Object.entries(s.retries.retries)
    .filter(([, n]) => n > 0)
    .map(([cause, n]) => `${cause} ${n}`);
  return [
    `debated ${s.results.length} of ${s.questions} questions: accuracy ` +
      `${s.results.length ? ((100 * correct) / s.results.length).toFixed(1) : '-'}% (${correct}/${s.results.length})` +
      (edges.length ? `, kept edges ${((100 * keptEdges) / (edges.length * size)).toFixed(1)}%` : ''),
    `calls: ${paid} paid, ${reused} responses reused; ${fmt(b.inTokens)} in + ${fmt(b.outTokens)} out tokens, $${b.usd.toFixed(4)}` +
      ` (caps: ${b.maxUsd === null ? 'no dollar cap' : `$${b.maxUsd}`}, ${b.maxCalls === null ? 'no call cap' : `${b.maxCalls} calls`}); ` +
      `${s.retries.attempts} attempts, retries: ${retries.join(', ') || 'none'}`,
    `transcript in ${cacheFilePath(out)}`,
    ...(s.stopped ? [`stopped at the cap: ${s.stopped}. Rerun with a higher cap to go on; responses already paid for are reused.`] : []),
  ].join('\n');
}
