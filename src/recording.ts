// The record tier's live side, attached to a cache directory: the endpoint that answers it and the
// journal its replies go into (src/env/record.ts asks, src/cache/journal.ts keeps).
import { closeJournal, openJournal } from './cache/journal.ts';
import type { Cache } from './cache/load.ts';
import type { Endpoint } from './env/endpoint.ts';
import { newRecording, type RecordLimits, type Recording } from './env/record.ts';
import { simulatorEndpoint } from './sim/simulator.ts';

export interface RecordingOptions {
  /** Calls in flight at once (default 8). */
  concurrency?: number;
  limits?: RecordLimits;
}

/**
 * The live endpoint of a cache. A simulated cache carries its world, so its simulator answers
 * every context. Endpoints of a team file (OpenAI-compatible servers) are not attached here yet:
 * any other cache is an error saying so.
 */
export function cacheEndpoint(cache: Cache): Endpoint {
  if (cache.header.source === 'simulator' && cache.header.simulator) return simulatorEndpoint(cache);
  throw new Error(
    `cache ${cache.file} (source ${cache.header.source}) has no live endpoint for miss = record: ` +
      'only a simulated cache (cache gen) is answered by its simulator; endpoints from a team file are not attached in this build',
  );
}

/** Attach the cache's endpoint and open its journal (`dir`/journal.jsonl) for appending. */
export function openRecording(dir: string, cache: Cache, o: RecordingOptions = {}, endpoint: Endpoint = cacheEndpoint(cache)): Recording {
  const unanswered = cache.journal?.unanswered ?? new Map<string, string>();
  const recording = newRecording(endpoint, { journal: openJournal(dir, cache.journal?.bytes ?? 0), concurrency: o.concurrency, limits: o.limits, unanswered });
  if (unanswered.size)
    console.error(`${recording.journal!.file}: ${unanswered.size} calls of an interrupted run have no journaled reply (they may have been paid); asked again, each carries the same idempotency key`);
  return recording;
}

export function closeRecording(r: Recording): void {
  if (r.journal) closeJournal(r.journal);
}

/** One line: what the record tier asked and spent. */
export function recordingSummary(r: Recording): string {
  const s = r.spent;
  return (
    `record tier (${r.endpoint.name}): ${s.calls} calls, ${s.inTokens.toLocaleString('en-US')} input and ${s.outTokens.toLocaleString('en-US')} output tokens, ` +
    `cost ${s.cost.toFixed(4)}, ${r.recorded.length} new responses` +
    (r.reasked ? `; ${r.reasked} of them asked again after an interrupted run (possibly paid twice)` : '') +
    (r.stopped ? `; stopped: ${r.stopped}` : '')
  );
}
