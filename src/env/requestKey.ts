// One key per request to a live endpoint, derived from what is asked: question, agent, round, the
// shown responses in the order shown, the agent's previous response and the sample index. The same
// key is the request's Idempotency-Key (on every retry and every rerun), the key of its intent line
// in the record tier's journal, and the name of the response recorded for it. The record tier,
// `debate` and `serve` (which reads the request back from the prompt) therefore all name a recorded
// response alike. That matters beyond bookkeeping: the simulator seeds a reply with the ids of the
// responses in its context (sim/simulator.ts replyFields), so `serve` answers a later round as the
// in-process simulator does only because both name the earlier rounds' replies the same way.
import { createHash } from 'node:crypto';
import type { ResponseRecord } from '../cache/format.ts';
import type { EndpointRequest } from './endpoint.ts';

export interface RequestIds {
  question: string;
  agent: string;
  round: number;
  /** Ids of the shown responses, in the order shown. */
  context: string[];
  prev: string | null;
  sample: number;
}

/** The ids of an endpoint request. */
export const requestIds = (r: Pick<EndpointRequest, 'question' | 'agent' | 'round' | 'context' | 'prev' | 'sample'>): RequestIds => ({
  question: r.question.id,
  agent: r.agent.id,
  round: r.round,
  context: r.context.map((c) => c.id),
  prev: r.prev?.id ?? null,
  sample: r.sample,
});

/** SHA-256 (hex) of everything asked. */
export const requestKey = (r: RequestIds): string =>
  createHash('sha256')
    .update(JSON.stringify([r.question, r.agent, r.round, r.context, r.prev, r.sample]))
    .digest('hex');

/** Id of the response a live endpoint gave to this request: `rec/<question>/<agent>/r<round>/<key prefix>`. */
export const recordedResponseId = (r: RequestIds, key = requestKey(r)) => `rec/${r.question}/${r.agent}/r${r.round}/${key.slice(0, 20)}`;

/**
 * Whether a response was recorded by a live endpoint during a replay (the record tier, `debate`):
 * its id is the one its own request names. A log's responses (import, `cache gen`) are named otherwise.
 */
export const recordedByReplay = (r: Pick<ResponseRecord, 'id' | 'question' | 'agent' | 'round' | 'context' | 'prev' | 'sample'>): boolean =>
  r.id.startsWith('rec/') &&
  r.id === recordedResponseId({ question: r.question, agent: r.agent, round: r.round, context: r.context, prev: r.prev, sample: r.sample });

/**
 * What makes two requests the same request, the order of the shown responses aside (the
 * simulator's reply and the exact tier ignore it): a response recorded for one answers the other.
 */
export const sameRequest = (r: RequestIds) => `${r.question}|${r.agent}|${r.round}|${[...r.context].sort().join(',')}|${r.prev ?? ''}|${r.sample}`;
