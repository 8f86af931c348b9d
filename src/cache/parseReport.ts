// How well the answer parser fits a cache: parse rate of final answers and of all responses, per
// agent and round, how many MATH comparisons needed the symbolic path, a few unparsed responses
// (their endings, where answers are stated), the ambiguous reads (two answers that disagree,
// stored as none) per agent and round with samples, and per agent the share read, refused as
// ambiguous, and refused because the stated and the settled readings disagreed (with samples), so a
// user sees at once when the parser does not fit their data. Printed by `cache import` and `cache stats`.
import { markdownTable, pct } from '../table.ts';
import type { Cache, Response } from './types.ts';

/** "97.6% (2055/2105)", or "-" of nothing. */
export const ratio = (a: number, b: number) => (b ? `${pct(a / b)} (${a}/${b})` : '-');
const rate = (rs: Response[]) => ratio(rs.filter((r) => r.ans >= 0).length, rs.length);

/** Each (question, agent)'s responses of its last recorded round: the final answers of its debates. */
export function finalResponses(cache: Cache): Response[] {
  const last = new Map<number, number>();
  const key = (r: Response) => r.q * cache.agents.length + r.a;
  for (const r of cache.responses) last.set(key(r), Math.max(last.get(key(r)) ?? 0, r.round));
  return cache.responses.filter((r) => r.round === last.get(key(r)));
}

/** The end of a response on one line, at most `chars` long: where an answer is usually stated. */
export const ending = (text: string, chars: number) => {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > chars ? `...${flat.slice(-chars)}` : flat;
};

export function parseReport(cache: Cache, sample = 5, chars = 160): string {
  const rounds = Math.max(1, ...cache.responses.map((r) => r.round));
  const roundCols = Array.from({ length: rounds }, (_, t) => `round ${t + 1}`);
  // The responses of each round, and of each agent in it: grouped in one pass (a filter per cell would pass over every response).
  const byRound = Array.from({ length: rounds + 1 }, () => [] as Response[]);
  for (const r of cache.responses) byRound[r.round].push(r);
  const at = (a: number | null, t: number) => (a === null ? byRound[t] : byRound[t].filter((r) => r.a === a));
  const types = [...new Set(cache.questions.map((q) => q.answerType))].join(', ');
  const out = [
    `Answers parsed (${types}): final answers ${rate(finalResponses(cache))}; all responses ${rate(cache.responses)}`,
    '',
    'Parse rate per agent and round',
    markdownTable(
      ['agent', ...roundCols],
      [...cache.agents.map((a) => [a.id, ...roundCols.map((_, t) => rate(at(a.index, t + 1)))]), ['all', ...roundCols.map((_, t) => rate(at(null, t + 1)))]],
    ),
  ];
  if (cache.questions.some((q) => q.answerType === 'math'))
    out.push(
      '',
      `MATH answers compared symbolically (strings differed, see docs/import.md, "How answers ` +
        `are read"): ${cache.symbolic.comparisons} comparisons, ${cache.symbolic.equal} found equal`,
    );
  const unparsed = cache.responses.filter((r) => r.ans < 0 && !r.ambiguous && !r.disagreement);
  const ambiguous = cache.responses.filter((r) => r.ambiguous);
  if (unparsed.length) {
    const shown = spread(unparsed, sample);
    out.push(
      '',
      `Unparsed responses: ${unparsed.length} (stating no answer${ambiguous.length ? `; the ${ambiguous.length} ambiguous ones are below` : ''}); ` +
        `${shown.length === unparsed.length ? 'all' : `${shown.length} spread over them`}, their endings:`,
    );
    out.push(...shown.map((r) => `  ${r.id}: "${ending(r.text, chars)}"`));
  } else out.push('', 'Unparsed responses: none');
  out.push('', ambiguityReport(cache, at, roundCols, sample, chars));
  out.push('', refusalReport(cache, sample, chars));
  return out.join('\n');
}

/** A reading as the reports show it: quoted on one line, or "none". */
export const shownReading = (x: string | null) => (x === null ? 'none' : `'${x.replace(/\s+/g, ' ')}'`);

/** At most `n` of `items`, spread evenly over them. */
const spread = <T>(items: T[], n: number): T[] => {
  const step = items.length / Math.min(n, items.length);
  return Array.from({ length: Math.min(n, items.length) }, (_, i) => items[Math.floor(i * step)]);
};

/** Ambiguous reads (the text states two answers that disagree; stored as none): per agent and round, and a sample with their readings. */
function ambiguityReport(cache: Cache, at: (a: number | null, t: number) => Response[], roundCols: string[], sample: number, chars: number): string {
  const ambiguous = cache.responses.filter((r) => r.ambiguous);
  const external = cache.externals.filter((e) => e.ambiguous).length;
  const title = `Ambiguous reads (two answers that disagree, stored as no answer; docs/import.md, "How answers are read"): ${ambiguous.length} responses`;
  if (!ambiguous.length) return `${title}${external ? `, ${external} shown solutions` : ''}`;
  const count = (rs: Response[]) => ratio(rs.filter((r) => r.ambiguous).length, rs.length);
  const readings = (r: Response) => (r.ambiguous ?? []).map((x) => (x === null ? 'no answer' : `'${x}'`)).join(' | ');
  return [
    `${title}${external ? `, ${external} shown solutions` : ''}`,
    markdownTable(
      ['agent', ...roundCols],
      [...cache.agents.map((a) => [a.id, ...roundCols.map((_, t) => count(at(a.index, t + 1)))]), ['all', ...roundCols.map((_, t) => count(at(null, t + 1)))]],
    ),
    `${spread(ambiguous, sample).length === ambiguous.length ? 'All' : 'A sample spread over them'}, with their readings:`,
    ...spread(ambiguous, sample).map((r) => `  ${r.id}: ${readings(r)}: "${ending(r.text, chars)}"`),
  ].join('\n');
}

/** Per agent, the share read, refused as ambiguous, and refused because the two readings disagreed; a sample of the disagreements. */
function refusalReport(cache: Cache, sample: number, chars: number): string {
  const share = (rs: Response[], keep: (r: Response) => boolean) => ratio(rs.filter(keep).length, rs.length);
  const rows = [...cache.agents.map((a) => [a.id, cache.responses.filter((r) => r.a === a.index)] as const), ['all', cache.responses] as const];
  const disagreed = cache.responses.filter((r) => r.disagreement);
  const external = cache.externals.filter((e) => e.disagreement).length;
  return [
    `Readings per agent (docs/import.md, "How answers are read"): read; refused as ambiguous; refused because the stated answer and ` +
      `the value the reply settles on disagree: ${disagreed.length} responses${external ? `, ${external} shown solutions` : ''}`,
    markdownTable(
      ['agent', 'read', 'ambiguous', 'readings disagree'],
      rows.map(([id, rs]) => [id, share(rs, (r) => r.ans >= 0), share(rs, (r) => !!r.ambiguous), share(rs, (r) => !!r.disagreement)]),
    ),
    ...(disagreed.length
      ? [
          `${spread(disagreed, sample).length === disagreed.length ? 'All' : 'A sample spread over them'}, stated | settled:`,
          ...spread(disagreed, sample).map(
            (r) => `  ${r.id}: ${shownReading(r.disagreement![0])} | ${shownReading(r.disagreement![1])}: "${ending(r.text, chars)}"`,
          ),
        ]
      : []),
  ].join('\n');
}
