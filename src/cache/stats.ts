// `cache stats`: what a cache holds and how good its agents are. (The tier-3 response model's
// fidelity, which `cache stats` prints after this, is the environment's: src/env/modelFidelity.ts.)
import { markdownTable, pct } from '../table.ts';
import { debateStatsTablesSteps } from './debateStats.ts';
import { SPLITS } from './format.ts';
import type { Cache, Response } from './types.ts';
import { parseReport } from './parseReport.ts';
import { runSteps } from '../io/interrupt.ts';

export const cacheStats = (cache: Cache): string => runSteps(cacheStatsSteps(cache));

/** `cacheStats` as steps (src/io/interrupt.ts): it yields between its tables, each a pass or a few over the responses. */
export function* cacheStatsSteps(cache: Cache): Generator<unknown, string> {
  const out: string[] = [
    `cache ${cache.file}: ${cache.header.name} (${cache.header.source}), ${cache.questions.length} ` +
      `questions, ${cache.agents.length} agents, ${cache.responses.length} responses`,
  ];

  out.push('', questionsPerSplit(cache));

  out.push(
    '\nAgents (prices per million tokens)',
    markdownTable(
      ['agent', 'model', 'price in', 'price out', 'responses'],
      cache.agents.map((a) => [
        a.id,
        a.model,
        (a.priceIn * 1e6).toFixed(2),
        (a.priceOut * 1e6).toFixed(2),
        cache.responses.filter((r) => r.a === a.index).length,
      ]),
    ),
  );

  yield 'cache stats tables';
  // The responses of each round, grouped in one pass (a filter per table cell would pass over every response).
  const perRound: Response[][] = [[]];
  for (const r of cache.responses) (perRound[r.round] ??= []).push(r);
  const rounds = perRound.length - 1;
  const roundCols = Array.from({ length: rounds }, (_, t) => `round ${t + 1}`);
  const byRound = (t: number, keep: (r: Response) => boolean = () => true) => (perRound[t] ?? []).filter(keep);
  const contextKey = (r: Response) => `${r.q}|${r.a}|${[...r.ctx].sort().join(',')}`;
  const contexts: number[] = [];
  for (let t = 1; t <= rounds; t++) {
    yield 'cache stats tables';
    contexts.push(new Set(byRound(t).map(contextKey)).size);
  }
  out.push(
    '\nResponses per round',
    markdownTable(
      ['', ...roundCols],
      [
        ['responses', ...roundCols.map((_, t) => byRound(t + 1).length)],
        ['distinct contexts', ...contexts],
        ['unparsed answers', ...roundCols.map((_, t) => byRound(t + 1, (r) => r.ans < 0).length)],
      ],
    ),
  );
  yield 'cache stats tables';
  out.push('', parseReport(cache));

  yield 'cache stats tables';
  // Round-2 coverage: of the 2^A subsets of each question's sample-0 round-1 responses that a
  // recipient may keep, how many have a recorded response (exact tier hits).
  const A = cache.agents.length;
  const first = new Map<number, number>();
  for (const r of cache.responses) if (r.round === 1 && r.sample === 0) first.set(r.index, r.q);
  const covered = new Set(byRound(2, (r) => r.ctx.every((c) => first.has(c))).map(contextKey));
  out.push(
    `\nRound-2 contexts covered exactly: ${covered.size} of ${cache.questions.length * A * 2 ** A} ` +
      `(${pct(covered.size / Math.max(1, cache.questions.length * A * 2 ** A))}) question x recipient x kept-subset cells`,
  );

  yield 'cache stats tables';
  out.push(
    '\nAccuracy per agent and round (all cached responses)',
    markdownTable(
      ['agent', ...roundCols],
      cache.agents.map((a) => [
        a.id,
        ...roundCols.map((_, t) => {
          const rs = byRound(t + 1, (r) => r.a === a.index);
          return rs.length ? pct(rs.filter((r) => r.correct).length / rs.length) : '-';
        }),
      ]),
    ),
  );

  yield 'cache stats tables';
  out.push('', yield* debateStatsTablesSteps(cache));
  return out.join('\n');
}

/** Questions per split and benchmark, as a titled table. */
export function questionsPerSplit(cache: Cache): string {
  const benchmarks = [...new Set(cache.questions.map((q) => q.benchmark))];
  return [
    'Questions per split and benchmark',
    markdownTable(
      ['benchmark', ...SPLITS, 'total'],
      benchmarks.map((b) => {
        const qs = cache.questions.filter((q) => q.benchmark === b);
        return [b, ...SPLITS.map((s) => qs.filter((q) => q.split === s).length), qs.length];
      }),
    ),
  ].join('\n');
}
