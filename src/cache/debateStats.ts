// Statistics that say how a cache's agents behave in a debate, computed the same way for any cache
// (simulated or imported), so that a simulated world can be set against recorded debates line by
// line: round-1 accuracy per agent, agreement between two independent round-1 samples of one model
// on one question, and how often a revision turns a wrong answer right or a right one wrong,
// as a function of how many peers in its context agree with the recipient's previous answer or
// state the gold answer.
import { markdownTable, pct } from '../table.ts';
import type { Cache, Response } from './types.ts';
import { runSteps } from '../io/interrupt.ts';

/** Responses (or questions) a step of the statistics' passes reads between stop points (src/io/interrupt.ts). */
const A_STEP = 1024;

/** `hits` of `n` cases. */
export interface Rate {
  hits: number;
  n: number;
}

export interface Round1Accuracy {
  agent: string;
  model: string;
  /** Round-1 responses of the agent (every sample of every question). */
  right: Rate;
}

/**
 * Pairs of round-1 responses to one question from one model. `same agent`: two samples of one
 * agent; `same model, other agent`: samples of two agents that name the same model (recorded teams
 * of one model sampled independently, as in Du et al.'s debates). Every pair counts once.
 */
export interface SampleAgreement {
  kind: 'same agent' | 'same model, other agent';
  pairs: number;
  /** Both answers parsed and equal. */
  agree: number;
  bothRight: number;
  oneRight: number;
  bothWrong: number;
  /** Of the pairs where both are wrong and parsed: same wrong answer. */
  sameWrong: Rate;
  /** Pearson correlation of the two samples' correctness (0 for draws independent of the question). */
  correctnessCorrelation: number;
}

/** Revisions whose context shows `peers` peer answers, `count` of them agreeing (or gold). */
export interface RevisionRow {
  /** Whether the recipient's own previous response was in its context (it remembers it either way). */
  ownShown: boolean;
  /** Peers in the context: other agents' responses and external solutions. */
  peers: number;
  /** Of them: agreeing with the recipient's previous answer (`byAgreeing`), or stating the gold answer (`byGold`). */
  count: number;
  /** Previous answer wrong: revisions, and of them right afterwards. */
  fromWrong: Rate;
  /** Previous answer wrong: revisions that state it again. */
  wrongKept: number;
  /** Previous answer right: revisions, and of them no longer right afterwards (wrong or unparsed). */
  fromRight: Rate;
}

export interface RevisionStats {
  /** Revisions counted: round >= 2, with a previous response whose answer was parsed. */
  counted: number;
  /** Revisions left out: no previous response, or its answer unparsed. */
  skipped: number;
  byAgreeing: RevisionRow[];
  byGold: RevisionRow[];
}

export interface DebateStatistics {
  round1: Round1Accuracy[];
  agreement: SampleAgreement[];
  revisions: RevisionStats;
}

export const debateStatistics = (cache: Cache): DebateStatistics => runSteps(debateStatisticsSteps(cache));

/** `debateStatistics` as steps (src/io/interrupt.ts): each pass yields every A_STEP responses or questions. */
export function* debateStatisticsSteps(cache: Cache): Generator<unknown, DebateStatistics> {
  const round1 = round1Accuracy(cache);
  yield 'debate statistics';
  const agreement = yield* sampleAgreementSteps(cache);
  return { round1, agreement, revisions: yield* revisionStatsSteps(cache) };
}

export function round1Accuracy(cache: Cache): Round1Accuracy[] {
  const rates = cache.agents.map(() => ({ hits: 0, n: 0 }));
  for (const r of cache.responses)
    if (r.round === 1) {
      rates[r.a].n++;
      if (r.correct) rates[r.a].hits++;
    }
  return cache.agents.map((a, i) => ({ agent: a.id, model: a.model, right: rates[i] }));
}

export const sampleAgreement = (cache: Cache): SampleAgreement[] => runSteps(sampleAgreementSteps(cache));

function* sampleAgreementSteps(cache: Cache): Generator<unknown, SampleAgreement[]> {
  const byQuestion = new Map<number, Response[]>();
  for (const r of cache.responses) if (r.round === 1) (byQuestion.get(r.q) ?? byQuestion.set(r.q, []).get(r.q)!).push(r);
  const tally = (kind: SampleAgreement['kind']) => ({
    kind,
    pairs: 0,
    agree: 0,
    bothRight: 0,
    oneRight: 0,
    bothWrong: 0,
    sameWrong: { hits: 0, n: 0 },
    correctnessCorrelation: 0,
  });
  const same = tally('same agent');
  const other = tally('same model, other agent');
  let questions = 0;
  for (const rs of byQuestion.values()) {
    if (++questions % A_STEP === 0) yield 'debate statistics';
    for (let i = 0; i < rs.length; i++)
      for (let j = i + 1; j < rs.length; j++) {
        const [x, y] = [rs[i], rs[j]];
        const t = x.a === y.a ? same : cache.agents[x.a].model === cache.agents[y.a].model ? other : undefined;
        if (!t) continue;
        t.pairs++;
        if (x.ans >= 0 && x.ans === y.ans) t.agree++;
        if (x.correct && y.correct) t.bothRight++;
        else if (x.correct || y.correct) t.oneRight++;
        else {
          t.bothWrong++;
          if (x.ans >= 0 && y.ans >= 0) {
            t.sameWrong.n++;
            if (x.ans === y.ans) t.sameWrong.hits++;
          }
        }
      }
  }
  for (const t of [same, other]) {
    // Correlation of two exchangeable 0/1 variables: (P(both) - p^2) / (p (1 - p)).
    const p = (2 * t.bothRight + t.oneRight) / (2 * t.pairs);
    t.correctnessCorrelation = p > 0 && p < 1 ? (t.bothRight / t.pairs - p * p) / (p * (1 - p)) : 0;
  }
  return [same, other].filter((t) => t.pairs > 0);
}

export const revisionStats = (cache: Cache): RevisionStats => runSteps(revisionStatsSteps(cache));

function* revisionStatsSteps(cache: Cache): Generator<unknown, RevisionStats> {
  const rows = { agree: new Map<string, RevisionRow>(), gold: new Map<string, RevisionRow>() };
  const row = (table: keyof typeof rows, ownShown: boolean, peers: number, count: number) => {
    const key = `${ownShown}|${peers}|${count}`;
    let r = rows[table].get(key);
    if (!r) rows[table].set(key, (r = { ownShown, peers, count, fromWrong: { hits: 0, n: 0 }, wrongKept: 0, fromRight: { hits: 0, n: 0 } }));
    return r;
  };
  let counted = 0;
  let skipped = 0;
  for (const [i, r] of cache.responses.entries()) {
    if (i % A_STEP === A_STEP - 1) yield 'debate statistics';
    if (r.round < 2) continue;
    const prev = r.prevIndex >= 0 ? cache.responses[r.prevIndex] : undefined;
    if (!prev || prev.ans < 0) {
      skipped++;
      continue;
    }
    counted++;
    const ownShown = r.ctx.some((c) => cache.responses[c].a === r.a);
    const peerAnswers = [...r.ctx.filter((c) => cache.responses[c].a !== r.a).map((c) => cache.responses[c].ans), ...r.ext.map((e) => cache.externals[e].ans)];
    const agreeing = peerAnswers.filter((a) => a === prev.ans).length;
    const gold = peerAnswers.filter((a) => a === cache.questions[r.q].goldKey).length;
    for (const target of [row('agree', ownShown, peerAnswers.length, agreeing), row('gold', ownShown, peerAnswers.length, gold)]) {
      if (prev.correct) {
        target.fromRight.n++;
        if (!r.correct) target.fromRight.hits++;
      } else {
        target.fromWrong.n++;
        if (r.correct) target.fromWrong.hits++;
        if (r.ans === prev.ans) target.wrongKept++;
      }
    }
  }
  const sorted = (m: Map<string, RevisionRow>) =>
    [...m.values()].sort((a, b) => Number(b.ownShown) - Number(a.ownShown) || a.peers - b.peers || a.count - b.count);
  return { counted, skipped, byAgreeing: sorted(rows.agree), byGold: sorted(rows.gold) };
}

const rate = (r: Rate) => (r.n ? `${pct(r.hits / r.n)} (${r.hits}/${r.n})` : '-');

/** The statistics as titled Markdown tables, as `cache stats` prints them. */
export const debateStatsTables = (cache: Cache): string => runSteps(debateStatsTablesSteps(cache));

/** `debateStatsTables` as steps (src/io/interrupt.ts). */
export function* debateStatsTablesSteps(cache: Cache): Generator<unknown, string> {
  const s = yield* debateStatisticsSteps(cache);
  const out = [
    'Round-1 accuracy per agent (every sample)',
    markdownTable(
      ['agent', 'model', 'right'],
      s.round1.map((a) => [a.agent, a.model, rate(a.right)]),
    ),
  ];
  out.push(
    '\nAgreement of two round-1 samples of one model on one question (same agent: two of its ' +
      'samples; same model, other agent: two agents naming the same model, sampled independently)',
    s.agreement.length
      ? markdownTable(
          ['pairs of', 'pairs', 'same answer', 'both right', 'one right', 'both wrong', 'same wrong answer', 'correctness correlation'],
          s.agreement.map((t) => [
            t.kind,
            t.pairs,
            pct(t.agree / t.pairs),
            pct(t.bothRight / t.pairs),
            pct(t.oneRight / t.pairs),
            pct(t.bothWrong / t.pairs),
            rate(t.sameWrong),
            t.correctnessCorrelation.toFixed(2),
          ]),
        )
      : 'no question has two round-1 samples of one model',
  );
  const v = s.revisions;
  const rows = (table: RevisionRow[], withRight: boolean) =>
    table.map((r) => [
      r.ownShown ? 'yes' : 'no',
      `${r.count} of ${r.peers}`,
      rate(r.fromWrong),
      r.fromWrong.n ? pct(r.wrongKept / r.fromWrong.n) : '-',
      ...(withRight ? [rate(r.fromRight)] : []),
    ]);
  out.push(
    `\nRevisions (round >= 2) by the peers in their context (other agents' responses and external solutions; the ` +
      `recipient's own are not peers): ${v.counted} counted, ${v.skipped} without a parsed previous answer left out`,
    markdownTable(['own shown', 'peers agreeing with previous answer', 'wrong -> right', 'wrong kept', 'right -> wrong'], rows(v.byAgreeing, true)),
    '',
    markdownTable(
      ['own shown', 'peers with the gold answer', 'wrong -> right', 'wrong kept'],
      rows(
        v.byGold.filter((r) => r.fromWrong.n > 0),
        false,
      ),
    ),
  );
  return out.join('\n');
}
