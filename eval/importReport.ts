// The import report: what a cache of recorded debates holds, read from the recorded transcripts
// themselves (no replay): responses and parse rates per agent and round with a sample of unparsed
// responses and the ambiguous reads (src/cache/parseReport.ts), the readings dropped because they do
// not parse under the answer type (`droppedReport`, from the import itself), accuracy and majority accuracy per round, the transition
// ledger of the recorded debates, how much of what agents were shown was matched to recorded
// responses, which teams can be replayed, and the tier-3 response model's fidelity on this data.
import type { AnswerType } from '../src/answer.ts';
import type { DroppedReading } from '../src/cache/importDu.ts';
import type { Cache, Response } from '../src/cache/types.ts';
import { parseReport, ratio } from '../src/cache/parseReport.ts';
import { questionsPerSplit } from '../src/cache/stats.ts';
import { fidelityTableSteps } from '../src/env/modelFidelity.ts';
import { runSteps } from '../src/io/interrupt.ts';
import { deepestRounds } from '../src/env/environment.ts';
import { SPLITS } from '../src/cache/format.ts';
import { emptyTiers } from '../src/env/tiers.ts';
import { emptyPricing } from '../src/env/cost.ts';
import { majority, type DebateResult } from '../src/env/debate.ts';
import { markdownTable, pct } from '../src/table.ts';
import { ledgerEntry, OUTCOMES, summarize } from '../src/env/ledger.ts';
import { unrebuilt } from '../src/env/protocol.ts';
import { PROTOCOLS } from '../src/env/settings.ts';

/** Each question's recorded debate: per agent, its responses by round (sample 0). */
function debates(cache: Cache): Map<number, Map<number, Response[]>> {
  const out = new Map<number, Map<number, Response[]>>();
  for (const r of cache.responses) {
    if (r.sample !== 0) continue;
    let q = out.get(r.q);
    if (!q) out.set(r.q, (q = new Map()));
    const list = q.get(r.a) ?? [];
    list[r.round - 1] = r;
    q.set(r.a, list);
  }
  return out;
}

/**
 * The readings an import dropped (they do not parse under the answer type: ", which is 431" as a
 * number, prose as a MATH answer), stored as no answer: per agent and round, and a sample.
 */
export function droppedReport(dropped: DroppedReading[], type: AnswerType, sample = 5): string {
  const title = `Readings dropped (they do not parse as a ${type} answer; stored as no answer)`;
  if (!dropped.length) return `${title}: none`;
  const responses = dropped.filter((d) => d.agent !== null);
  const agents = [...new Set(responses.map((d) => d.agent!))].sort();
  const rounds = Math.max(1, ...responses.map((d) => d.round!));
  const roundCols = Array.from({ length: rounds }, (_, t) => `round ${t + 1}`);
  const step = dropped.length / Math.min(sample, dropped.length);
  const shown = Array.from({ length: Math.min(sample, dropped.length) }, (_, i) => dropped[Math.floor(i * step)]);
  return [
    `${title}: ${responses.length} responses, ${dropped.length - responses.length} shown solutions`,
    ...(agents.length
      ? [
          markdownTable(
            ['agent', ...roundCols],
            agents.map((a) => [a, ...roundCols.map((_, t) => responses.filter((d) => d.agent === a && d.round === t + 1).length)]),
          ),
        ]
      : []),
    `${shown.length === dropped.length ? 'All' : 'A sample spread over them'}:`,
    ...shown.map((d) => `  ${d.id}: '${d.reading.replace(/\s+/g, ' ').slice(0, 160)}'`),
  ].join('\n');
}

export const importReport = (cache: Cache, priorSmoothing = 0.5): string => runSteps(importReportSteps(cache, priorSmoothing));

/** `importReport` as steps (src/io/interrupt.ts): an import can be stopped while it makes its report, before its cache is renamed into place. */
export function* importReportSteps(cache: Cache, priorSmoothing = 0.5): Generator<unknown, string> {
  const out: string[] = [];
  const recorded = debates(cache);
  const rounds = Math.max(1, ...cache.responses.map((r) => r.round));
  const roundCols = Array.from({ length: rounds }, (_, t) => `round ${t + 1}`);

  out.push(
    `${cache.file}: ${cache.questions.length} questions, ${cache.agents.length} agent positions, ` +
      `${cache.responses.length} responses, ${cache.externals.length} external shown solutions`,
  );
  out.push('', questionsPerSplit(cache));

  const shapes = new Map<string, number>();
  for (const agents of recorded.values()) {
    const key = `${agents.size} agents, ${Math.max(...[...agents.values()].map((l) => l.length))} rounds`;
    shapes.set(key, (shapes.get(key) ?? 0) + 1);
  }
  out.push(
    '',
    'Recorded debates by team size and rounds',
    markdownTable(
      ['debate', 'questions'],
      [...shapes].sort().map(([k, n]) => [k, n]),
    ),
  );

  yield;
  out.push('', parseReport(cache));

  yield;
  // Accuracy per round, and the majority of each recorded debate per round (a debate that
  // stopped early keeps its last answers; an agent whose transcript was cut keeps its last answer).
  const majorities: number[][] = [];
  const results: DebateResult[] = [];
  for (const [q, agents] of recorded) {
    const gold = cache.questions[q].goldKey;
    const rows = roundCols.map((_, t) => [...agents.values()].map((l) => l[Math.min(t, l.length - 1)]?.ans ?? -1));
    const m = rows.map((row) => majority(row, 'lowest-agent', () => 0));
    majorities.push(m.map((x) => (x === gold ? 1 : 0)));
    const final = m[m.length - 1];
    results.push({
      q,
      answers: rows,
      correct: [],
      keeps: [],
      revises: [],
      calls: [...agents.values()].reduce((s, l) => s + l.length, 0),
      final,
      finalCorrect: final === gold,
      invalid: final < 0,
      cost: 0,
      priced: emptyPricing(),
      keptEdges: 0,
      tiers: emptyTiers(),
    });
  }
  const accuracy = (t: number) => {
    const rs = cache.responses.filter((r) => r.round === t + 1);
    return rs.length ? pct(rs.filter((r) => r.correct).length / rs.length) : '-';
  };
  out.push(
    '',
    'Accuracy per round (responses recorded at that round; majority: every debate, carried forward when it stopped early)',
    markdownTable(
      ['', ...roundCols],
      [
        ['responses', ...roundCols.map((_, t) => accuracy(t))],
        ['majority', ...roundCols.map((_, t) => pct(majorities.reduce((s, m) => s + m[t], 0) / Math.max(1, majorities.length)))],
      ],
    ),
  );

  yield;
  const ledger = summarize(
    results.map((d) => ledgerEntry(d, cache.questions[d.q].goldKey, 'lowest-agent', () => 0)),
    rounds,
  );
  out.push(
    '',
    'Transition ledger of the recorded debates (round-1 majority -> final majority)',
    markdownTable(
      [...OUTCOMES, ...roundCols.slice(1).map((c) => `collapse onset ${c}`)],
      [[...OUTCOMES.map((o) => ledger.counts[o]), ...roundCols.slice(1).map((_, t) => ledger.onsets[t + 2])]],
    ),
  );

  yield;
  // Shown solutions: a context is the own previous response plus what the agent was shown.
  const revisions = cache.responses.filter((r) => r.round > 1);
  const shownOf = (r: Response) => r.ctx.filter((c) => c !== r.prevIndex);
  const sameRound = revisions.reduce((s, r) => s + shownOf(r).filter((c) => cache.responses[c].round === r.round).length, 0);
  const matched = revisions.reduce((s, r) => s + shownOf(r).length, 0);
  const ext = revisions.reduce((s, r) => s + r.ext.length, 0);
  out.push(
    '',
    `Shown solutions matched to recorded responses: ${ratio(matched, matched + ext)} ` +
      `(${sameRound} from the same round, ${matched - sameRound} from the previous round); ` +
      `${ext} kept as external entries (${cache.externals.length} distinct texts)`,
  );

  yield;
  out.push('', rebuildReport(cache, revisions.length));

  yield;
  // Which teams can be replayed: a question needs a round-1 response from every member; the rounds a
  // team replays from records are those its own debates reach (the check --rounds is held to).
  const teams = cache.agents.map((_, k) => cache.agents.slice(0, k + 1));
  out.push(
    '',
    'Questions each team can debate (every member answered in round 1), and the deepest round its debates recorded (--rounds replays at most that)',
    markdownTable(
      ['team', 'questions', ...SPLITS, 'rounds'],
      teams.map((team) => {
        const ok = cache.questions.filter((q) => team.every((a) => recorded.get(q.index)?.get(a.index)?.[0]));
        const members = team.map((a) => a.index);
        const rounds = deepestRounds(cache, members).reduce((m, t) => Math.max(m, t), 0);
        return [team.map((a) => a.id).join(','), ok.length, ...SPLITS.map((s) => ok.filter((q) => q.split === s).length), rounds];
      }),
    ),
  );

  yield;
  out.push('', yield* fidelityTableSteps(cache, priorSmoothing));
  return out.join('\n');
}

/**
 * Why recorded revisions miss the exact tier of a replay that keeps every edge (the whole cache's
 * team; --protocol): under each protocol, how many it rebuilds, and each reason for the others.
 */
function rebuildReport(cache: Cache, revisions: number): string {
  const rows = PROTOCOLS.map((protocol) => {
    const reasons = new Map<string, number>();
    for (const why of unrebuilt(cache, protocol).values()) reasons.set(why, (reasons.get(why) ?? 0) + 1);
    const missed = [...reasons.values()].reduce((s, n) => s + n, 0);
    return [
      protocol,
      ratio(revisions - missed, revisions),
      [...reasons]
        .sort((x, y) => y[1] - x[1])
        .map(([why, n]) => `${n} ${why}`)
        .join('; ') || '-',
    ];
  });
  const fixed = cache.responses.filter((r) => r.round > 1 && r.ext.length).length;
  return [
    `Recorded revisions a Full-Debate replay reads from the exact tier, per protocol (--protocol; the recorded one shows ` +
      `external entries as recorded: ${fixed} revisions show one), and why the others miss it`,
    markdownTable(['protocol', 'exact', 'misses: why'], rows),
  ].join('\n');
}
