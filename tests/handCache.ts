// A hand-built 2-question, 3-agent cache whose replays are worked out by hand in the tests.
// Prices are in arbitrary units per token so costs are small integers.
import type { CacheLine, ResponseRecord } from '../src/cache/format.ts';

export function response(id: string, question: string, agent: string, round: number, answer: string | null, outTokens: number, context: string[] = [], prev: string | null = null, sample = 0): ResponseRecord {
  return { type: 'response', id, question, agent, round, sample, context, prev, text: `${agent} says ${answer ?? 'nothing'}. The answer is ${answer ?? '?'}.`, answer, inTokens: 0, outTokens };
}

export function handRecords(): CacheLine[] {
  const full1 = ['q1a1', 'q1a2', 'q1a3'];
  const full2 = ['q2a1', 'q2a2', 'q2a3'];
  const records: CacheLine[] = [
    { type: 'cache', format: 'cpp-debate-cache', version: 1, name: 'hand', source: 'recorded' },
    { type: 'agent', id: 'a1', model: 'm-large', priceIn: 1, priceOut: 2 },
    { type: 'agent', id: 'a2', model: 'm-mid', priceIn: 1, priceOut: 1 },
    { type: 'agent', id: 'a3', model: 'm-small', priceIn: 0.5, priceOut: 0.5 },
    { type: 'question', id: 'q1', text: 'First question?', gold: 'A', benchmark: 'hand', answerType: 'mcq', split: 'test', promptTokens: 10 },
    { type: 'question', id: 'q2', text: 'Second question?', gold: '(C)', benchmark: 'hand', answerType: 'mcq', split: 'test', promptTokens: 20 },
    // q1, round 1: a1 right, a2 and a3 wrong. a2 has a second independent sample, also B.
    response('q1a1', 'q1', 'a1', 1, 'A', 5),
    response('q1a2', 'q1', 'a2', 1, 'B', 3),
    response('q1a3', 'q1', 'a3', 1, 'B', 2),
    response('q1a2s1', 'q1', 'a2', 1, 'B', 7, [], null, 1),
    // q1, round 2, everything kept: a1 collapses to B; majority B (wrong).
    response('q1f1', 'q1', 'a1', 2, 'B', 4, full1, 'q1a1'),
    response('q1f2', 'q1', 'a2', 2, 'B', 3, full1, 'q1a2'),
    response('q1f3', 'q1', 'a3', 2, 'A', 2, full1, 'q1a3'),
    // q1, round 2, own response only: a2 corrects itself; majority A (right).
    response('q1o1', 'q1', 'a1', 2, 'A', 5, ['q1a1'], 'q1a1'),
    response('q1o2', 'q1', 'a2', 2, 'A', 3, ['q1a2'], 'q1a2'),
    response('q1o3', 'q1', 'a3', 2, 'B', 2, ['q1a3'], 'q1a3'),
    // q2, round 1 and round 2 with everything kept: three different answers, tie.
    response('q2a1', 'q2', 'a1', 1, 'C', 4),
    response('q2a2', 'q2', 'a2', 1, 'D', 4),
    response('q2a3', 'q2', 'a3', 1, 'E', 2),
    response('q2f1', 'q2', 'a1', 2, 'C', 4, full2, 'q2a1'),
    response('q2f2', 'q2', 'a2', 2, 'D', 4, full2, 'q2a2'),
    response('q2f3', 'q2', 'a3', 2, 'B', 2, full2, 'q2a3'),
  ];
  return withInTokens(records);
}

/** Records whose responses' inTokens are what was sent: the prompt plus every response in the context. */
export function withInTokens(records: CacheLine[]): CacheLine[] {
  const prompt = new Map(records.flatMap((r) => (r.type === 'question' ? [[r.id, r.promptTokens]] : [])));
  const out = new Map(records.flatMap((r) => (r.type === 'response' ? [[r.id, r.outTokens]] : [])));
  for (const r of records) if (r.type === 'response') r.inTokens = prompt.get(r.question)! + r.context.reduce((s, c) => s + out.get(c)!, 0);
  return records;
}
