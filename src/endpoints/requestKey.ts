// One key per request to a live endpoint, derived from what was asked: question, agent, round, the
// shown responses in the order shown, the agent's previous response and the sample index. It is the
// request's Idempotency-Key (a retried request is the same request) and names the response a live
// debate records, so that `serve`, which reads the same request back from the prompt, names its
// reply identically, and a rerun finds what it already paid for.
import { createHash } from 'node:crypto';

export interface RequestIds {
  question: string;
  agent: string;
  round: number;
  context: string[];
  prev: string | null;
  sample: number;
}

export const requestKey = (r: RequestIds) =>
  createHash('sha256').update(JSON.stringify([r.question, r.agent, r.round, r.context, r.prev, r.sample])).digest('hex').slice(0, 32);

/** Id of the response a live endpoint gave to this request. */
export const liveResponseId = (r: RequestIds) => `live/${r.question}/${r.agent}/r${r.round}/${requestKey(r).slice(0, 12)}`;

/**
 * What makes two requests the same request, the order of the shown responses aside (the
 * simulator's reply and the exact tier ignore it): a response recorded for one answers the other.
 */
export const sameRequest = (r: RequestIds) =>
  `${r.question}|${r.agent}|${r.round}|${[...r.context].sort().join(',')}|${r.prev ?? ''}|${r.sample}`;

