// Retries of one live call. The SDK's own retries are switched off (maxRetries: 0) because they
// leave out malformed replies, cannot be counted, and take their backoff constants from the SDK;
// here every retry is counted by cause, a server's Retry-After (or retry-after-ms) is waited out as
// given, and otherwise the wait doubles from baseDelayMs up to maxDelayMs.
// The client's error classes alone (the same classes as the package's own), not the whole client.
import { APIConnectionError, APIConnectionTimeoutError, APIError } from 'openai/core/error';
import { UserError } from '../io/errors.ts';
import type { RetrySettings } from './team.ts';

export const RETRY_CAUSES = ['rate-limit', 'server', 'timeout', 'connection', 'malformed'] as const;
export type RetryCause = (typeof RETRY_CAUSES)[number];

export interface RetryCounts {
  /** Attempts sent, first tries included. */
  attempts: number;
  retries: Record<RetryCause, number>;
  /** Milliseconds spent waiting before retries. */
  waitedMs: number;
}

export const emptyRetryCounts = (): RetryCounts => ({
  attempts: 0,
  retries: { 'rate-limit': 0, server: 0, timeout: 0, connection: 0, malformed: 0 },
  waitedMs: 0,
});

/** A reply that arrived but is not a chat completion (invalid JSON, no message text). */
export class MalformedReplyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MalformedReplyError';
  }
}

/** Why an attempt may be retried, or null when retrying cannot help (bad request, bad key, ...). */
export function retryCause(e: unknown): RetryCause | null {
  if (e instanceof APIConnectionTimeoutError) return 'timeout';
  if (e instanceof APIConnectionError) return 'connection';
  if (e instanceof APIError) {
    if (e.status === 429) return 'rate-limit';
    if (e.status === 408 || e.status === 409 || (e.status !== undefined && e.status >= 500)) return 'server';
    return null;
  }
  if (e instanceof MalformedReplyError || e instanceof SyntaxError) return 'malformed';
  // The connection dropped while the body was being read (undici: TypeError "terminated").
  if (e instanceof TypeError && /terminated|socket|ECONNRESET|other side closed/i.test(`${e.message} ${String(e.cause ?? '')}`)) return 'connection';
  return null;
}

/** Milliseconds a server asked to wait (retry-after-ms, else Retry-After in seconds or as a date), or null. */
export function retryAfterMs(e: unknown, now = Date.now()): number | null {
  const headers = e instanceof APIError ? e.headers : undefined;
  if (!headers) return null;
  const ms = Number.parseFloat(headers.get('retry-after-ms') ?? '');
  if (Number.isFinite(ms) && ms >= 0) return ms;
  const after = headers.get('retry-after');
  if (!after) return null;
  const seconds = Number(after);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(after);
  return Number.isFinite(date) ? Math.max(0, date - now) : null;
}

export const backoffMs = (s: RetrySettings, retry: number, random = Math.random) => Math.min(s.maxDelayMs, s.baseDelayMs * 2 ** retry) * (1 - 0.25 * random());

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Run `attempt` until it succeeds, retrying what `retryCause` allows up to s.maxRetries times.
 * `describe` turns the last error into the message of the error thrown when giving up (a UserError:
 * the service refused or kept failing); an error that is not the service's is thrown as it is.
 */
export async function withRetries<T>(attempt: () => Promise<T>, s: RetrySettings, counts: RetryCounts, describe: (e: unknown) => string): Promise<T> {
  for (let retry = 0; ; retry++) {
    counts.attempts++;
    try {
      return await attempt();
    } catch (e) {
      const cause = retryCause(e);
      // Refused by the service (bad request, bad key): the user's to act on. Anything else is not the service's.
      if (cause === null) throw e instanceof APIError ? new UserError(describe(e)) : e;
      if (retry >= s.maxRetries) throw new UserError(`gave up after ${retry + 1} attempts (retry.maxRetries = ${s.maxRetries}); last: ${describe(e)}`);
      const asked = retryAfterMs(e);
      if (asked !== null && asked > s.maxRetryAfterS * 1000)
        throw new UserError(
          `the server asked to wait ${(asked / 1000).toFixed(1)} s (Retry-After), more than retry.maxRetryAfterS = ${s.maxRetryAfterS}; last: ${describe(e)}`,
        );
      const wait = asked ?? backoffMs(s, retry);
      counts.retries[cause]++;
      counts.waitedMs += wait;
      await sleep(wait);
    }
  }
}
