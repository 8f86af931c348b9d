// The recorded protocol (debate setting `protocol: recorded`, docs/replay.md): a replay follows the
// imported log's own debate instead of synchronous rounds. The cache records it per response: its
// speaking position `turn` in its round, and in `context` what it read (earlier speakers' answers
// of its round, answers of the round before, texts of agents the cache does not hold). In round t
// each member of the team that answered round t in the log answers again, in the log's order, and
// reads what its recorded response read: a member's answer as this replay produced it (kept or
// pruned by the policy: an edge), and as recorded what no member of the team produced (an external
// text, an answer of an agent outside the team: shown, never a candidate). A member without a turn
// in a round (the log stopped early, or dropped it after a ranking step) keeps its last answer;
// after the log's last round a debate changes no more.
import type { Cache, Response } from '../cache/types.ts';
import { SettingsError } from '../io/errors.ts';
import { actionsPerDebate, candidateOrder } from './actions.ts';
import type { DebateResponse } from './debate.ts';
import type { Shown } from './endpoint.ts';
import { recordedByReplay } from './requestKey.ts';
import type { DebateSettings } from './settings.ts';

/**
 * Whether the cache records its debates' protocol: every response of the log has its `turn`; else
 * an example without. Replies a live endpoint gave a replay (the record tier) have none: they are
 * not the log's turns, and its exact tier reads them back.
 */
export function unrecordedTurn(cache: Cache): Response | undefined {
  return cache.responses.find((r) => r.turn === undefined && !recordedByReplay(r));
}

/** The settings the recorded protocol cannot honour on this cache, as an error; nothing under synchronous rounds. */
export function checkProtocol(cache: Cache, s: DebateSettings): void {
  if (s.protocol !== 'recorded') return;
  const without = unrecordedTurn(cache);
  if (without)
    throw new SettingsError(
      `setting protocol: recorded, but cache ${cache.file} does not record its debates' protocol (response '${without.id}' has no ` +
        '`turn`, docs/cache-format.md): import the log again (cache import) to record it, or replay synchronous rounds (--protocol synchronous)',
    );
  if (s.allowUnrecordedRounds)
    throw new SettingsError(
      'setting allowUnrecordedRounds: the recorded protocol has no turns past the rounds the log recorded (--protocol synchronous lets the tier-3 model draw them)',
    );
}

/** Each question's recorded turns per round: `${q}|${t}` -> sample-0 responses of every agent, in speaking order (the log's: those with a turn). */
export function turnIndex(cache: Cache): Map<string, number[]> {
  const out = new Map<string, number[]>();
  for (const r of cache.responses) {
    if (r.round < 2 || r.sample !== 0 || r.turn === undefined) continue;
    const key = `${r.q}|${r.round}`;
    const list = out.get(key);
    if (list) list.push(r.index);
    else out.set(key, [r.index]);
  }
  for (const list of out.values()) list.sort((x, y) => cache.responses[x].turn! - cache.responses[y].turn!);
  return out;
}

/** One member's turn in a recorded round (team position): what it reads as this replay stands. */
export interface RecordedTurn {
  member: number;
  /** The log's response of this turn (cache index). */
  recorded: number;
  /** Shown answers, in the recorded prompt's order: members' as replayed (if kept), others' as recorded. */
  shown: DebateResponse[];
  /** Per shown answer, its entry's position in the recorded response's `ctx`. */
  at: number[];
  /** External entries of the recorded prompt (indices into cache.externals), always shown. */
  ext: number[];
}

/**
 * The turns of round t: each member of `team` that answered round t in the log, in speaking order,
 * with what it reads. `answered(m, round)`: member m's response of `round` in this replay, or
 * undefined when it has not answered that round yet (a later speaker's answer read by an earlier
 * one: the log contradicts its turns, and the entry is left out, so the exact tier misses).
 */
export function* recordedTurns(
  cache: Cache,
  turns: Map<string, number[]>,
  team: number[],
  q: number,
  t: number,
  keep: boolean[][],
  answered: (member: number, round: number) => DebateResponse | undefined,
): Generator<RecordedTurn> {
  const n = team.length;
  for (const index of turns.get(`${q}|${t}`) ?? []) {
    const r = cache.responses[index];
    const member = team.indexOf(r.a);
    if (member < 0) continue;
    const order = candidateOrder(n, member);
    const shown: DebateResponse[] = [];
    const at: number[] = [];
    r.ctx.forEach((c, k) => {
      const source = cache.responses[c];
      const m = team.indexOf(source.a);
      const reply =
        m < 0 ? { agent: source.a, ans: source.ans, source: c, cached: true } : keep[member][order.indexOf(m)] ? answered(m, source.round) : undefined;
      if (!reply) return;
      shown.push(reply);
      at.push(k);
    });
    yield { member, recorded: index, shown, at, ext: r.ext };
  }
}

/** What a turn shows, in the order its recorded prompt showed it: the shown answers (their cache responses) and the external texts. */
export function shownInLogOrder(cache: Cache, turn: RecordedTurn): Shown[] {
  const out: Shown[] = [];
  let k = 0; // position in the recorded response's ctx
  let next = 0; // next shown answer
  for (const id of cache.responses[turn.recorded].context) {
    const e = cache.externalIndex.get(id);
    if (e !== undefined && !cache.responseIndex.has(id)) out.push(cache.externals[e]);
    else if (turn.at[next] === k++) out.push(cache.responses[turn.shown[next++].source]);
  }
  return out;
}

/**
 * The edges a debate of question q offers its pruning rule over `rounds` rounds: every (recipient,
 * candidate) pair of rounds 2..R under synchronous rounds (`turns` undefined); under the recorded
 * protocol, the members' answers the log showed each member that spoke (the denominator of kept edges %).
 */
export function debateEdges(cache: Cache, turns: Map<string, number[]> | undefined, team: number[], q: number, rounds: number): number {
  if (!turns) return actionsPerDebate(team.length, rounds);
  let edges = 0;
  for (let t = 2; t <= rounds; t++)
    for (const index of turns.get(`${q}|${t}`) ?? []) {
      const r = cache.responses[index];
      if (team.includes(r.a)) edges += r.ctx.filter((c) => team.includes(cache.responses[c].a)).length;
    }
  return edges;
}

/**
 * What the protocol adds to a policy's inputs in round t of question q (before the round is
 * stepped): each member's speaking position among the team's speakers of that round (its team
 * position when it has no turn there, or under synchronous rounds: `turns` undefined), and per
 * recipient and candidate slot (candidateOrder) whether the log shows the candidate's round-t answer.
 */
export function protocolInputs(
  cache: Cache,
  turns: Map<string, number[]> | undefined,
  team: number[],
  q: number,
  t: number,
): { turn: number[]; current: boolean[][] } {
  const n = team.length;
  const turn = team.map((_, i) => i);
  const current = team.map(() => new Array<boolean>(n).fill(false));
  if (!turns) return { turn, current };
  const speakers = (turns.get(`${q}|${t}`) ?? []).map((r) => cache.responses[r]).filter((r) => team.includes(r.a));
  speakers.forEach((r, k) => {
    const i = team.indexOf(r.a);
    turn[i] = k;
    const order = candidateOrder(n, i);
    for (const c of r.ctx) {
      const source = cache.responses[c];
      if (source.round === t && team.includes(source.a)) current[i][order.indexOf(team.indexOf(source.a))] = true;
    }
  });
  return { turn, current };
}

/**
 * Why each recorded revision's context is not rebuilt by a replay of the whole cache's team keeping
 * every edge, under `protocol` (response index -> reason); a revision it does not list is replayed
 * from the exact tier. A revision that reads one not rebuilt (or follows one) is not rebuilt either.
 */
export function unrebuilt(cache: Cache, protocol: DebateSettings['protocol']): Map<number, string> {
  const out = new Map<number, string>();
  const revisions = cache.responses.filter((r) => r.round > 1).sort((x, y) => x.round - y.round || (x.turn ?? 0) - (y.turn ?? 0));
  for (const r of revisions) {
    const reason = ownReason(cache, r, protocol) ?? ([r.prevIndex, ...r.ctx].some((c) => out.has(c)) ? 'reads or follows an answer not rebuilt' : null);
    if (reason) out.set(r.index, reason);
  }
  return out;
}

function ownReason(cache: Cache, r: Response, protocol: DebateSettings['protocol']): string | null {
  if (protocol === 'synchronous') {
    if (r.ext.length) return 'shows a text of no recorded response (external entry)';
    if (r.ctx.some((c) => cache.responses[c].round === r.round)) return "reads an answer of its own round (the log's agents answered one after another)";
    return null;
  }
  if (r.turn === undefined) return 'no turn recorded (the cache does not record its protocol)';
  if (r.sample !== 0) return 'a further sample (a replay follows sample 0)';
  if (r.ctx.some((c) => cache.responses[c].round === r.round && cache.responses[c].turn! >= r.turn!))
    return 'reads an answer of a later speaker of its round (the log contradicts its turns)';
  return null;
}
