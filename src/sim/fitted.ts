// A simulator fitted to a recorded cache (imported debates): the default world's dynamics
// (world.ts: an ability offset on the logit of being right, a revision's pull to its previous answer
// and to each shown peer, a share of fresh answers) with its knobs fitted by maximum likelihood to the
// cache's own records, over each question's own answers. It gives a real-layout cache (open MATH
// answers, recorded texts, 2-4 agents, debates that stop at consensus) an endpoint that answers every
// context, so that the record tier, `active` and `fidelity` run there. It is a model of the recorded
// agents fitted to few revisions, not the agents: what it says about contexts nobody recorded is its
// assumption, and reports name it as such.
//
// What is fitted, and from what:
// - Answers: every distinct answer the question's responses and shown solutions state (option 0 the
//   gold answer, the distractor the most stated wrong one) plus one "no stated answer" option.
// - Ability: the recorded agents are one model sampled independently (as in Du et al.'s and DyLAN's
//   debates), so one offset per question, ~ N(0, latentSd²), is shared by every agent; `skill` per
//   subject and `latentSd` maximize the likelihood of the round-1 answers (right or not), with the
//   question's difficulty from its MATH level. Each question's offset is then drawn once (seeded)
//   from its posterior given its recorded round-1 answers, so the world agrees with what was recorded.
// - An agent's preferred wrong answer on a question is its own recorded round-1 answer when wrong.
// - Revision knobs (knowledge, slip, hold, swayRight, swayWrong, wrongFocus): maximum likelihood of
//   every recorded revision's answer given its context and previous answer, integrating the offset
//   over its posterior. Recorded contexts always show the agent's own response, so holding on is
//   fitted as one number and split between stubbornness and ownBoost in the default world's ratio
//   (an assumption: what an agent does when its own response is pruned was never recorded).
// How a fitted world answers: fittedEndpoint.ts; the fit's file and its checks: fitFile.ts.
import seedrandom from 'seedrandom';
import type { Cache, Question } from '../cache/types.ts';
import { drawIndex } from '../shuffle.ts';
import type { Knobs, SimulatorFit } from './fitFile.ts';
import { logit, revisedAnswer, sigmoid, type AgentProfile, type QuestionLatent, type ShownArgument } from './world.ts';
import { InputError, SettingsError } from '../io/errors.ts';
import { runSteps } from '../io/interrupt.ts';

/** ownBoost / stubbornness in the default world (atlas 0.69, sage 0.65, brisk 0.67). */
const OWN_SHARE = 0.67;

/** Standard normal grid the offset is integrated over (weights sum to 1). */
const GRID_STEP = 8 / 24;
const GRID = Array.from({ length: 25 }, (_, g) => -4 + (8 * g) / 24); // spaced GRID_STEP apart
const GRID_W = (() => {
  const w = GRID.map((z) => Math.exp((-z * z) / 2));
  const s = w.reduce((a, b) => a + b, 0);
  return w.map((x) => x / s);
})();

/** MATH level 1..5 -> difficulty 0..1 (0.5 when the question has no level). */
function difficultyOf(q: Question): number {
  const level = Number((q.meta as { level?: unknown } | undefined)?.level);
  return Number.isFinite(level) ? Math.min(1, Math.max(0, (level - 1) / 4)) : 0.5;
}
const subjectOf = (q: Question) => String((q.meta as { subject?: unknown } | undefined)?.subject ?? q.benchmark ?? 'all');

/** One profile for every agent (one model): the world's revision knobs, skill per subject. */
export function profileOf(k: Knobs, skill: Record<string, number>): AgentProfile {
  return {
    id: 'fitted',
    model: 'fitted',
    priceIn: 0,
    priceOut: 0,
    meanTokens: 1,
    skill,
    knowledge: k.knowledge,
    slip: k.slip,
    stubbornness: k.stubbornness,
    ownBoost: k.ownBoost,
    swayRight: k.swayRight,
    swayWrong: k.swayWrong,
    persuasion: 1,
    eloquence: 0,
    adversarial: false,
  };
}

/** A one-dimensional maximum by golden-section search on [lo, hi]; `f` as steps (src/io/interrupt.ts). */
function* goldenMax(f: (x: number) => Generator<unknown, number>, lo: number, hi: number, iterations = 40): Generator<unknown, number> {
  const r = (Math.sqrt(5) - 1) / 2;
  let a = lo,
    b = hi,
    c = b - r * (b - a),
    d = a + r * (b - a),
    fc = yield* f(c),
    fd = yield* f(d);
  for (let i = 0; i < iterations; i++) {
    if (fc > fd) {
      b = d;
      d = c;
      fd = fc;
      c = b - r * (b - a);
      fc = yield* f(c);
    } else {
      a = c;
      c = d;
      fc = fd;
      d = a + r * (b - a);
      fd = yield* f(d);
    }
  }
  return (a + b) / 2;
}

interface QuestionData {
  q: Question;
  subject: string;
  difficulty: number;
  /** Answer key (cache interning) -> option index; unparsed and unknown answers go to the last option. */
  optionOf: Map<number, number>;
  options: { answer: string | null; source: string | null }[];
  distractor: number;
  /** Round-1 answers (sample 0) of the recorded agents: right or not. */
  round1: { agent: string; right: boolean; option: number }[];
}

function questionData(cache: Cache): QuestionData[] {
  const data: QuestionData[] = cache.questions.map((q) => ({
    q,
    subject: subjectOf(q),
    difficulty: difficultyOf(q),
    optionOf: new Map(),
    options: [],
    distractor: 0,
    round1: [],
  }));
  const stated = data.map(() => new Map<number, { count: number; answer: string; source: string }>());
  const unparsed: (string | null)[] = data.map(() => null);
  // The first record stating an answer lends it its text (responses before shown solutions).
  const add = (q: number, ans: number, answer: string | null, source: string) => {
    if (ans < 0 || answer === null) unparsed[q] ??= source;
    else {
      const s = stated[q].get(ans);
      if (s) s.count++;
      else stated[q].set(ans, { count: 1, answer, source });
    }
  };
  for (const r of cache.responses) add(r.q, r.ans, r.answer, r.id);
  for (const e of cache.externals) add(e.q, e.ans, e.answer, e.id);
  for (const d of data) {
    const qi = d.q.index;
    const gold = stated[qi].get(d.q.goldKey);
    d.options.push({ answer: gold?.answer ?? d.q.gold, source: gold?.source ?? null });
    d.optionOf.set(d.q.goldKey, 0);
    const wrong = [...stated[qi].entries()].filter(([k]) => k !== d.q.goldKey).sort((a, b) => b[1].count - a[1].count);
    for (const [k, s] of wrong) {
      d.optionOf.set(k, d.options.length);
      d.options.push({ answer: s.answer, source: s.source });
    }
    d.distractor = wrong.length ? 1 : d.options.length; // with no wrong answer stated, "no stated answer"
    d.options.push({ answer: null, source: unparsed[qi] });
  }
  for (const r of cache.responses)
    if (r.round === 1 && r.sample === 0) data[r.q].round1.push({ agent: cache.agents[r.a].id, right: r.correct, option: optionIndex(data[r.q], r.ans) });
  return data;
}

const optionIndex = (d: QuestionData, ans: number) => d.optionOf.get(ans) ?? d.options.length - 1;

const latentOf = (d: QuestionData): QuestionLatent => ({
  id: d.q.id,
  subject: d.subject,
  difficulty: d.difficulty,
  gold: 0,
  distractor: d.distractor,
  options: d.options.length,
});

/** P(right) of the round-1 answer at grid point g. */
const pRight = (skill: number, d: QuestionData, sd: number, g: number) => sigmoid(logit(skill) + 5 * (0.5 - d.difficulty) + sd * GRID[g]);

/** Posterior weights of the offset grid given the question's round-1 answers. */
function posterior(d: QuestionData, skill: number, sd: number): number[] {
  const w = GRID_W.map((w0, g) => {
    const p = pRight(skill, d, sd, g);
    return d.round1.reduce((acc, r) => acc * (r.right ? p : 1 - p), w0);
  });
  const s = w.reduce((a, b) => a + b, 0);
  return w.map((x) => x / s);
}

/** Log-likelihood of the round-1 answers of `qs` (right or not) at one skill and latentSd. */
function round1LogLik(qs: QuestionData[], skill: number, sd: number): number {
  let ll = 0;
  for (const d of qs) {
    let m = 0;
    for (let g = 0; g < GRID.length; g++) {
      const p = pRight(skill, d, sd, g);
      m += d.round1.reduce((acc, r) => acc * (r.right ? p : 1 - p), GRID_W[g]);
    }
    ll += Math.log(Math.max(m, 1e-300));
  }
  return ll;
}

interface Revision {
  d: QuestionData;
  agent: string;
  prev: number;
  shown: ShownArgument[];
  observed: number;
  posterior: number[];
}

/** An agent's preferred wrong option: its recorded round-1 answer when wrong, else the distractor. */
const wrongOption = (d: QuestionData, agent: string) => d.round1.find((r) => r.agent === agent && !r.right)?.option ?? d.distractor;

/** A revision's answer distribution, the offset integrated over its question's posterior. */
function revisionProbs(k: Knobs, profile: AgentProfile, v: Revision): number[] {
  const q = latentOf(v.d);
  const out = new Array<number>(v.d.options.length).fill(0);
  for (let g = 0; g < GRID.length; g++) {
    if (v.posterior[g] < 1e-9) continue;
    const p = revisedAnswer(k, profile, q, { offset: k.latentSd * GRID[g], wrong: wrongOption(v.d, v.agent) }, v.prev, v.shown);
    for (let o = 0; o < out.length; o++) out[o] += v.posterior[g] * p[o];
  }
  return out;
}

/** The knobs searched by coordinate ascent: name, transform from the search variable, range. */
const SEARCH: {
  name: 'knowledge' | 'slip' | 'hold' | 'swayRight' | 'swayWrong' | 'wrongFocus';
  from: (x: number) => number;
  lo: number;
  hi: number;
  start: number;
}[] = [
  { name: 'knowledge', from: Math.exp, lo: Math.log(0.01), hi: Math.log(5), start: Math.log(0.25) },
  { name: 'slip', from: sigmoid, lo: -7, hi: 0, start: logit(0.08) },
  { name: 'hold', from: Math.exp, lo: Math.log(0.05), hi: Math.log(20), start: Math.log(4) },
  { name: 'swayRight', from: Math.exp, lo: Math.log(0.05), hi: Math.log(20), start: Math.log(5) },
  { name: 'swayWrong', from: Math.exp, lo: Math.log(0.05), hi: Math.log(20), start: Math.log(5) },
  { name: 'wrongFocus', from: sigmoid, lo: -5, hi: 5, start: logit(0.6) },
];

function knobsOf(x: number[], latentSd: number): Knobs {
  const v = Object.fromEntries(SEARCH.map((s, i) => [s.name, s.from(x[i])])) as Record<(typeof SEARCH)[number]['name'], number>;
  return {
    latentSd,
    wrongFocus: v.wrongFocus,
    knowledge: v.knowledge,
    slip: v.slip,
    stubbornness: v.hold / (1 + OWN_SHARE),
    ownBoost: (v.hold * OWN_SHARE) / (1 + OWN_SHARE),
    swayRight: v.swayRight,
    swayWrong: v.swayWrong,
  };
}

export interface FitOptions {
  /** Seed of the offsets drawn from their posteriors. */
  seed: number;
  /** Coordinate-ascent sweeps over the revision knobs. */
  sweeps?: number;
  log?: (line: string) => void;
}

/** Fit the world to a cache's records (see the top of this file). */
export const fitSimulator = (cache: Cache, o: FitOptions): { fit: SimulatorFit; calibration: CalibrationRow[] } => runSteps(fitSimulatorSteps(cache, o));

/** Revisions a step of a pass over them reads between stop points (src/io/interrupt.ts). */
const REVISIONS_A_STEP = 1024;

/** `fitSimulator` as steps (src/io/interrupt.ts): each likelihood of the ability search, and every REVISIONS_A_STEP revisions of the knobs' search. */
export function* fitSimulatorSteps(cache: Cache, o: FitOptions): Generator<unknown, { fit: SimulatorFit; calibration: CalibrationRow[] }> {
  if (cache.header.source === 'simulator')
    throw new SettingsError(`cache ${cache.file} is simulated: its own simulator answers every context (a fit is for recorded caches)`);
  const log = o.log ?? (() => {});
  const data = questionData(cache);
  const withRound1 = data.filter((d) => d.round1.length > 0);
  if (!withRound1.length) throw new InputError(`cache ${cache.file}: no round-1 response (sample 0) to fit ability to`);
  const subjects = [...new Set(data.map((d) => d.subject))].sort();

  // Ability: skill per subject for each latentSd on a grid; the best latentSd.
  let best = { ll: -Infinity, sd: 0, skill: {} as Record<string, number> };
  for (let sd = 0.25; sd <= 6.001; sd += 0.25) {
    const skill: Record<string, number> = {};
    let ll = 0;
    for (const s of subjects) {
      const qs = withRound1.filter((d) => d.subject === s);
      const x = qs.length
        ? yield* goldenMax(
            function* (x) {
              yield 'simulator fit';
              return round1LogLik(qs, sigmoid(x), sd);
            },
            -8,
            8,
          )
        : 0;
      skill[s] = Math.min(0.999, Math.max(0.001, sigmoid(x)));
      ll += round1LogLik(qs, skill[s], sd);
    }
    if (ll > best.ll) best = { ll, sd, skill };
  }
  log(`cache fit: ability latentSd ${best.sd}, round-1 log-likelihood ${best.ll.toFixed(1)} over ${withRound1.length} questions`);

  // Revisions: the recorded answer after a previous answer and a shown context.
  const posteriors = data.map((d) => posterior(d, best.skill[d.subject], best.sd));
  const peer = profileOf(
    knobsOf(
      SEARCH.map((s) => s.start),
      best.sd,
    ),
    best.skill,
  ); // a shown argument's source: persuasion 1, every source alike
  const revisions: Revision[] = [];
  for (const r of cache.responses) {
    if (r.round < 2 || r.prevIndex < 0) continue;
    const d = data[r.q];
    const prev = cache.responses[r.prevIndex];
    const shown: ShownArgument[] = [];
    for (const c of r.ctx) shown.push({ agent: peer, answer: optionIndex(d, cache.responses[c].ans), quality: 0.5, own: c === r.prevIndex });
    for (const e of r.ext) shown.push({ agent: peer, answer: optionIndex(d, cache.externals[e].ans), quality: 0.5, own: false });
    revisions.push({ d, agent: cache.agents[r.a].id, prev: optionIndex(d, prev.ans), shown, observed: optionIndex(d, r.ans), posterior: posteriors[r.q] });
  }
  if (!revisions.length) throw new InputError(`cache ${cache.file}: no recorded revision (round >= 2 with a previous response) to fit the revision knobs to`);
  function* logLik(x: number[]): Generator<unknown, number> {
    const k = knobsOf(x, best.sd);
    const profile = profileOf(k, best.skill);
    let ll = 0;
    for (const [n, v] of revisions.entries()) {
      if (n % REVISIONS_A_STEP === REVISIONS_A_STEP - 1) yield 'simulator fit';
      ll += Math.log(Math.max(revisionProbs(k, profile, v)[v.observed], 1e-12));
    }
    return ll / revisions.length;
  }
  const x = SEARCH.map((s) => s.start);
  let fitted = yield* logLik(x);
  for (let sweep = 0; sweep < (o.sweeps ?? 3); sweep++) {
    for (let i = 0; i < SEARCH.length; i++) x[i] = yield* goldenMax((xi) => logLik(x.map((v, j) => (j === i ? xi : v))), SEARCH[i].lo, SEARCH[i].hi, 22);
    fitted = yield* logLik(x);
    log(`cache fit: sweep ${sweep + 1}: revision log-likelihood ${fitted.toFixed(4)} per revision (${revisions.length} revisions)`);
  }
  const knobs = knobsOf(x, best.sd);
  // The baseline: state the previous answer again with its recorded share, else any other option alike.
  const kept = revisions.filter((v) => v.observed === v.prev).length / revisions.length;
  const keepPreviousLogLik =
    revisions.reduce((s, v) => s + Math.log(Math.max(1e-12, v.observed === v.prev ? kept : (1 - kept) / (v.d.options.length - 1))), 0) / revisions.length;

  // One offset per question, drawn from its posterior.
  const questions: SimulatorFit['questions'] = {};
  for (const d of data) {
    const random = seedrandom(`${o.seed}|offset|${d.q.id}`);
    const g = drawIndex(posteriors[d.q.index], random());
    const offset = best.sd * (GRID[g] + GRID_STEP * (random() - 0.5)); // jitter within the grid cell
    const wrong = Object.fromEntries(d.round1.filter((r) => !r.right).map((r) => [r.agent, r.option]));
    questions[d.q.id] = { subject: d.subject, difficulty: d.difficulty, offset: round4(offset), options: d.options, distractor: d.distractor, wrong };
  }
  const fit: SimulatorFit = {
    format: 'cpp-simulator-fit',
    version: 1,
    cache: cache.header.name,
    seed: o.seed,
    knobs: mapValues(knobs, round4),
    skill: mapValues(best.skill, round4),
    fit: {
      round1Answers: withRound1.reduce((s, d) => s + d.round1.length, 0),
      revisions: revisions.length,
      logLik: round4(fitted),
      keepPreviousLogLik: round4(keepPreviousLogLik),
    },
    questions,
  };
  return { fit, calibration: calibration(revisions, knobs, profileOf(knobs, best.skill)) };
}

const round4 = (x: number) => Math.round(x * 1e4) / 1e4;
const mapValues = <T extends Record<string, number>>(o: T, f: (x: number) => number) => Object.fromEntries(Object.entries(o).map(([k, v]) => [k, f(v)])) as T;

/** Recorded revisions by their previous answer and the peers agreeing with it: the records' rates beside the fitted world's expectation. */
export interface CalibrationRow {
  fromRight: boolean;
  agreeing: number;
  peers: number;
  n: number;
  /** Share right afterwards: recorded, and expected under the fit. */
  recorded: number;
  fitted: number;
}

function calibration(revisions: Revision[], k: Knobs, profile: AgentProfile): CalibrationRow[] {
  const rows = new Map<string, CalibrationRow>();
  for (const v of revisions) {
    const peers = v.shown.filter((s) => !s.own);
    const agreeing = peers.filter((s) => s.answer === v.prev).length;
    const fromRight = v.prev === 0;
    const key = `${+fromRight}|${peers.length}|${agreeing}`;
    const row = rows.get(key) ?? { fromRight, agreeing, peers: peers.length, n: 0, recorded: 0, fitted: 0 };
    row.n++;
    row.recorded += +(v.observed === 0);
    row.fitted += revisionProbs(k, profile, v)[0];
    rows.set(key, row);
  }
  return [...rows.values()]
    .map((r) => ({ ...r, recorded: r.recorded / r.n, fitted: r.fitted / r.n }))
    .sort((a, b) => +a.fromRight - +b.fromRight || a.peers - b.peers || a.agreeing - b.agreeing);
}
