// `cache stats`: what a cache holds and how good its agents are. (The tier-3 response model's
// fidelity, which `cache stats` prints after this, is the environment's: src/env/modelFidelity.ts.)
import { markdownTable, pct } from '../table.ts';
import { debateStatsTables } from './debateStats.ts';
import { SPLITS } from './format.ts';
import type { Cache } from './types.ts';
import { parseReport } from './parseReport.ts';

export function cacheStats(cache: Cache): string {
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

  const rounds = Math.max(0, ...cache.responses.map((r) => r.round));
  const roundCols = Array.from({ length: rounds }, (_, t) => `round ${t + 1}`);
  const byRound = (t: number, keep: (r: (typeof cache.responses)[number]) => boolean = () => true) => cache.responses.filter((r) => r.round === t && keep(r));
  out.push(
    '\nResponses per round',
    markdownTable(
      ['', ...roundCols],
      [
        ['responses', ...roundCols.map((_, t) => byRound(t + 1).length)],
        ['distinct contexts', ...roundCols.map((_, t) => new Set(byRound(t + 1).map((r) => `${r.q}|${r.a}|${[...r.ctx].sort().join(',')}`)).size)],
        ['unparsed answers', ...roundCols.map((_, t) => byRound(t + 1, (r) => r.ans < 0).length)],
      ],
    ),
  );
  out.push('', parseReport(cache));

  // Round-2 coverage: of the 2^A subsets of each question's sample-0 round-1 responses that a
  // recipient may keep, how many have a recorded response (exact tier hits).
  const A = cache.agents.length;
  const first = new Map<number, number>();
  for (const r of cache.responses) if (r.round === 1 && r.sample === 0) first.set(r.index, r.q);
  const covered = new Set(byRound(2, (r) => r.ctx.every((c) => first.has(c))).map((r) => `${r.q}|${r.a}|${[...r.ctx].sort().join(',')}`));
  out.push(
    `\nRound-2 contexts covered exactly: ${covered.size} of ${cache.questions.length * A * 2 ** A} ` +
      `(${pct(covered.size / Math.max(1, cache.questions.length * A * 2 ** A))}) question x recipient x kept-subset cells`,
  );

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

  out.push('', debateStatsTables(cache));
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
