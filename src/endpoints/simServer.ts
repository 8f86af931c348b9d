// `serve`: the simulator of a simulated cache behind a local OpenAI-compatible HTTP server
// (POST /v1/chat/completions with `usage`, GET /v1/models), so that recording through it exercises
// exactly the client a real endpoint gets. The model name selects the agent. A prompt is read back
// into the request it encodes (prompt.ts): the question whose text the first user message holds;
// the round, one more than the assistant turns; the agent's previous response, its last assistant
// turn; and the shown responses, the "One agent solution" blocks of the last user message. The
// reply is the simulator's for that request.
//
// Texts are matched, as the Du importer matches shown solutions, to the cache's responses (sample 0
// first), then to the replies this server has served (the latest first). Each request has one
// identity: the cache's response when the cache holds one to the same request, else the reply
// served under its recordedResponseId (env/requestKey.ts), the id the record tier and `debate` give
// what they are served. A text several responses share (the simulator's short texts repeat) is
// resolved with the request's Idempotency-Key, a hash of the ids the client meant: of the
// candidate readings, the one whose key it is; without a key, or when none fits, the first reading
// is taken and counted as ambiguous. A client that records what it is served under
// recordedResponseId and sends its request key is therefore answered exactly as the in-process
// simulator answers the same records, in every round.
//
// Faults, drawn per attempt from a seeded stream: 429 with Retry-After and 500 before the request
// is processed (not paid); after it is processed (paid), a dropped connection or a malformed body,
// plus added latency. A repeated Idempotency-Key gets the first reply again and is not a new paid
// call, so a client that retries with the same key never pays twice.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import seedrandom from 'seedrandom';
import { z } from 'zod';
import { shownSolutions } from '../cache/peerMarkers.ts';
import type { Cache, Question, Response } from '../cache/types.ts';
import { InputError } from '../io/errors.ts';
import { profileLookup, replyFields, simulatorEndpoint } from '../sim/simulator.ts';
import { WorldConfig } from '../sim/world.ts';
import { recordedResponseId, requestKey, sameRequest, type RequestIds } from '../env/requestKey.ts';

export interface Faults {
  /** Share of attempts answered 429 with a Retry-After of retryAfterS seconds (decimals allowed). */
  rate429: number;
  retryAfterS: number;
  /** Share of attempts answered 500. */
  rate500: number;
  /** Share of processed attempts whose connection is dropped before the reply is sent. */
  rateDrop: number;
  /** Share of processed attempts answered with a truncated JSON body. */
  rateMalformed: number;
  /** Milliseconds added before each processed reply. */
  latencyMs: number;
  /** Seed of the fault draws. */
  seed: number;
}

export const NO_FAULTS: Faults = { rate429: 0, retryAfterS: 1, rate500: 0, rateDrop: 0, rateMalformed: 0, latencyMs: 0, seed: 0 };

export interface ServeOptions extends Faults {
  /** Port on 127.0.0.1; 0 takes a free one. */
  port: number;
  /** When set, requests must carry `Authorization: Bearer <key>`. */
  key?: string;
  /** Called for every attempt (tests measure retry timing with it). */
  onAttempt?: (a: { key: string | null; at: number; outcome: Outcome }) => void;
}

export type Outcome = 'paid' | 'replayed' | 'rate-limited' | 'server-error' | 'dropped' | 'malformed' | 'rejected';

export interface ServeStats {
  attempts: number;
  /** Replies computed (a paid call each); `replayed`: replies repeated for a known Idempotency-Key. */
  paid: number;
  replayed: number;
  rateLimited: number;
  serverErrors: number;
  dropped: number;
  malformed: number;
  /** Requests refused as invalid (4xx other than 429). */
  rejected: number;
  /** Prompts with a text several responses share, read by their Idempotency-Key. */
  resolvedByKey: number;
  /** Prompts with a text several responses share that the Idempotency-Key did not resolve (the first reading was taken). */
  ambiguous: number;
}

export interface SimServer {
  /** Base URL for an OpenAI client: http://127.0.0.1:PORT/v1 */
  url: string;
  port: number;
  stats: ServeStats;
  close(): Promise<void>;
}

const ChatRequest = z.looseObject({
  model: z.string().min(1),
  messages: z.array(z.looseObject({ role: z.enum(['system', 'user', 'assistant']), content: z.string({ error: 'serve reads text content only' }) })).min(1),
  seed: z.number().int().nonnegative().optional(),
  stream: z.literal(false, { error: 'serve does not stream' }).optional(),
});

/** A response the server can match a text to: one of the cache's, or one it served. */
type Known = Pick<Response, 'id' | 'agent' | 'round' | 'sample' | 'text' | 'answer' | 'outTokens' | 'meta'>;

/** A request the server refuses, with the HTTP status and error code it answers with. */
class RequestError extends InputError {
  constructor(
    readonly status: number,
    message: string,
    readonly code = 'invalid_request_error',
  ) {
    super(message);
  }
}

const squash = (s: string) => s.replace(/\s+/g, ' ').trim();

export async function serveSimulator(cache: Cache, o: ServeOptions): Promise<SimServer> {
  simulatorEndpoint(cache); // refuses a cache whose simulator cannot answer live, with its reason
  const world = WorldConfig.parse(cache.header.simulator);
  const profile = profileLookup(world, cache.file);
  const random = seedrandom(`${o.seed}|faults`);
  const stats: ServeStats = {
    attempts: 0,
    paid: 0,
    replayed: 0,
    rateLimited: 0,
    serverErrors: 0,
    dropped: 0,
    malformed: 0,
    rejected: 0,
    resolvedByKey: 0,
    ambiguous: 0,
  };
  const known: Known[][] = cache.questions.map(() => []);
  const recorded = new Set<string>();
  for (const r of cache.responses) {
    known[r.q].push(r);
    recorded.add(sameRequest(r));
  }
  for (const list of known) list.sort((a, b) => a.sample - b.sample);
  const served: Known[][] = cache.questions.map(() => []);
  const servedIds = new Set<string>();
  const questionOf = new Map<string, Question>();
  const replies = new Map<string, string>(); // Idempotency-Key -> reply body

  const findQuestion = (firstUser: string): Question => {
    let q = questionOf.get(firstUser);
    if (!q) {
      for (const c of cache.questions) if (firstUser.includes(c.text) && (!q || c.text.length > q.text.length)) q = c;
      if (!q) throw new RequestError(400, `the first user message holds the text of no question of cache ${cache.file}`);
      questionOf.set(firstUser, q);
    }
    return q;
  };

  /** The responses of this question and round whose text is `text` (the agent's own when `agent` is given): the cache's, then those served (latest first). */
  const matches = (q: Question, round: number, text: string, what: string, agent?: string): Known[] => {
    const fits = (r: Known) => r.round === round && (agent === undefined || r.agent === agent);
    for (const same of [(r: Known) => r.text.trim() === text.trim(), (r: Known) => squash(r.text) === squash(text)]) {
      const found = [...known[q.index].filter((r) => fits(r) && same(r)), ...served[q.index].filter((r) => fits(r) && same(r)).reverse()];
      if (found.length) return found;
    }
    throw new RequestError(
      400,
      `${what} matches no round-${round} response ${agent ? `of agent '${agent}' ` : ''}to ` +
        `question '${q.id}' (cache ${cache.file}, or a reply this server gave)`,
    );
  };

  /**
   * The previous response and the shown ones a prompt means, from their candidates: the first
   * reading (a shown text equal to the previous response's is that response), unless some text has
   * several candidates; then the reading whose request key is the Idempotency-Key sent.
   */
  const read = (prevs: Known[] | null, shown: Known[][], ids: (prev: Known | null, context: Known[]) => RequestIds, key: string | null) => {
    const prev0 = prevs?.[0] ?? null;
    const first = { prev: prev0, context: shown.map((c) => (prev0 && c.some((r) => r.id === prev0.id) ? prev0 : c[0])) };
    if ((prevs?.length ?? 1) === 1 && shown.every((c) => c.length === 1)) return first;
    if (key !== null) {
      let tries = 4096; // readings tried at most (a few candidates per text in practice)
      const context: Known[] = [];
      const search = (prev: Known | null, k: number): boolean => {
        if (k === shown.length) return tries-- > 0 && requestKey(ids(prev, context)) === key;
        for (const r of shown[k]) {
          context[k] = r;
          if (search(prev, k + 1)) return true;
          if (tries <= 0) return false;
        }
        return false;
      };
      for (const prev of prevs ?? [null])
        if (search(prev, 0)) {
          stats.resolvedByKey++;
          return { prev, context: [...context] };
        }
    }
    stats.ambiguous++;
    return first;
  };

  /** The reply body of a chat request, as a string (its `id` is the request's key). */
  const reply = (body: unknown, key: string | null): string => {
    const parsed = ChatRequest.safeParse(body);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new RequestError(400, `${issue.path.join('.') || 'body'}: ${issue.message}`);
    }
    const { model, messages, seed } = parsed.data;
    const a = cache.agentIndex.get(model);
    if (a === undefined)
      throw new RequestError(
        404,
        `The model '${model}' does not exist (serve's models are the agents of ${cache.file}: ${cache.agents.map((x) => x.id).join(', ')})`,
        'model_not_found',
      );
    const agent = cache.agents[a].id;
    const chat = messages[0].role === 'system' ? messages.slice(1) : messages;
    chat.forEach((m, i) => {
      if (m.role !== (i % 2 === 0 ? 'user' : 'assistant'))
        throw new RequestError(400, `messages: expected user and assistant turns in turn, ending with a user turn; found ${m.role} at turn ${i + 1}`);
    });
    if (chat.length % 2 === 0) throw new RequestError(400, 'messages: the last turn must be a user turn');
    const question = findQuestion(chat[0].content);
    const round = (chat.length + 1) / 2;
    const prevs = round > 1 ? matches(question, round - 1, chat[chat.length - 2].content, 'the last assistant turn', agent) : null;
    const shown =
      round > 1 ? shownSolutions(chat[chat.length - 1].content).map((text, k) => matches(question, round - 1, text, `shown solution ${k + 1}`)) : [];
    const sample = seed ?? 0;
    const idsOf = (prev: Known | null, context: Known[]): RequestIds => ({
      question: question.id,
      agent,
      round,
      context: context.map((r) => r.id),
      prev: prev?.id ?? null,
      sample,
    });
    const { prev, context } = read(prevs, shown, idsOf, key);
    const ids = idsOf(prev, context);
    const r = replyFields(world, profile, question, agent, round, context, prev, sample);
    const id = recordedResponseId(ids);
    if (!recorded.has(sameRequest(ids)) && !servedIds.has(id)) {
      servedIds.add(id);
      served[question.index].push({ id, agent, round, sample, text: r.text, answer: r.answer, outTokens: r.outTokens, meta: r.meta });
    }
    return JSON.stringify({
      id: `chatcmpl-${requestKey(ids)}`,
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model: agent,
      choices: [{ index: 0, message: { role: 'assistant', content: r.text }, finish_reason: 'stop' }],
      usage: { prompt_tokens: r.inTokens, completion_tokens: r.outTokens, total_tokens: r.inTokens + r.outTokens },
      cpp_meta: r.meta,
    });
  };

  const send = (res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(body);
  };
  const error = (message: string, type: string, code: string | null = null) => JSON.stringify({ error: { message, type, code } });

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const url = (req.url ?? '').replace(/\?.*$/, '');
    if (req.method === 'GET' && url === '/v1/models') {
      return send(
        res,
        200,
        JSON.stringify({
          object: 'list',
          data: cache.agents.map((a) => ({ id: a.id, object: 'model', created: 0, owned_by: `cpp-workbench serve (${a.model})` })),
        }),
      );
    }
    if (req.method !== 'POST' || url !== '/v1/chat/completions') return send(res, 404, error(`no route ${req.method} ${url}`, 'invalid_request_error'));
    stats.attempts++;
    const key = (req.headers['idempotency-key'] as string | undefined) ?? null;
    const outcome = (x: Outcome) => o.onAttempt?.({ key, at: performance.now(), outcome: x });
    if (o.key !== undefined && req.headers.authorization !== `Bearer ${o.key}`) {
      stats.rejected++;
      outcome('rejected');
      return send(res, 401, error('Incorrect API key provided.', 'invalid_request_error', 'invalid_api_key'));
    }
    const [u429, u500, uDrop, uMalformed] = [random(), random(), random(), random()];
    if (u429 < o.rate429) {
      stats.rateLimited++;
      outcome('rate-limited');
      return send(res, 429, error('Rate limit reached (injected by serve).', 'rate_limit_exceeded'), { 'retry-after': String(o.retryAfterS) });
    }
    if (u500 < o.rate500) {
      stats.serverErrors++;
      outcome('server-error');
      return send(res, 500, error('Internal server error (injected by serve).', 'server_error'));
    }
    let body = key === null ? undefined : replies.get(key);
    const replayed = body !== undefined;
    try {
      body ??= reply(JSON.parse(Buffer.concat(chunks).toString('utf8')), key);
    } catch (e) {
      stats.rejected++;
      outcome('rejected');
      const [status, code] = e instanceof RequestError ? [e.status, e.code] : [400, 'invalid_request_error'];
      return send(res, status, error(e instanceof SyntaxError ? `invalid JSON body: ${e.message}` : (e as Error).message, 'invalid_request_error', code));
    }
    if (replayed) stats.replayed++;
    else {
      stats.paid++;
      if (key !== null) replies.set(key, body);
    }
    if (o.latencyMs > 0) await new Promise((resolve) => setTimeout(resolve, o.latencyMs));
    if (uDrop < o.rateDrop) {
      stats.dropped++;
      outcome('dropped');
      return req.socket.destroy();
    }
    if (uMalformed < o.rateMalformed) {
      stats.malformed++;
      outcome('malformed');
      return send(res, 200, body.slice(0, Math.floor(body.length / 2)));
    }
    outcome(replayed ? 'replayed' : 'paid');
    send(res, 200, body);
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((e) => {
      if (!res.headersSent) send(res, 500, error(`serve failed: ${(e as Error).message}`, 'server_error'));
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    port,
    stats,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
