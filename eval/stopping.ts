// The field's rules over who revises and when a debate stops, as rules over the same decisions a
// policy makes (src/env/debate.ts RoundDecision; every edge kept): consensus stop (DyLAN: stop after
// a round where at least 2/3 of the team agree; and at unanimity), sparse debate in the manner of
// S2-MAD (only members that disagree with the team's majority revise), and random revise/keep and
// random stop at given rates (a policy's, or the rate that matches a budget).
import seedrandom from 'seedrandom';
import type { Question } from '../src/cache/types.ts';
import { keepAll, majority, type Debate, type DecisionRule } from '../src/env/debate.ts';
import type { Environment } from '../src/env/environment.ts';
import type { MethodResult } from '../src/env/tally.ts';
import { TIERS } from '../src/env/tiers.ts';
import { runRule } from './baselines.ts';

/**
 * The most common parsed current answer (the debate's majority, ties to the lowest-numbered member)
 * and how many members hold it (-1, 0: none parsed).
 */
function plurality(d: Debate): { ans: number; count: number } {
  const ans = majority(
    d.current.map((r) => r.ans),
    'lowest-agent',
    () => 0,
  );
  return { ans, count: ans < 0 ? 0 : d.current.filter((r) => r.ans === ans).length };
}

/** Consensus stop: every edge kept; stop after a round where at least `share` of the team hold one answer. */
export const consensusStop =
  (share: number): DecisionRule =>
  (d, n) => ({ ...keepAll(d, n), stop: plurality(d).count >= share * n - 1e-9 });

/**
 * Sparse debate (S2-MAD's rule): every edge kept; a member whose answer more than half of the team
 * holds skips its revision, the others revise (all of them when no answer has a majority).
 */
export const sparseDebate: DecisionRule = (d, n) => {
  const { ans, count } = plurality(d);
  const agreed = count > n / 2 ? ans : -1;
  return { ...keepAll(d, n), revise: d.current.map((r) => agreed < 0 || r.ans !== agreed) };
};

/** A random number generator per question, seeded by `name` and `seed`. */
function perQuestion(env: Environment, name: string, seed: number): (d: Debate) => () => number {
  const rngs = new Map<number, () => number>();
  return (d) => {
    let random = rngs.get(d.q);
    if (!random) rngs.set(d.q, (random = seedrandom(`${seed}|${name}|${env.cache.questions[d.q].id}`)));
    return random;
  };
}

/** Random revise/keep: every edge kept; each member revises each round with probability `rate`. */
export function randomRevise(env: Environment, questions: Question[], rate: number, seed: number): Promise<MethodResult> {
  const random = perQuestion(env, 'random-revise', seed);
  const rule: DecisionRule = (d, n) => {
    const r = random(d);
    return { ...keepAll(d, n), revise: Array.from({ length: n }, () => r() < rate) };
  };
  return runRule(env, questions, `Random revise (${(100 * rate).toFixed(0)}% of revisions, seed ${seed})`, rule);
}

/** Random stop: every edge kept; before each round >= 2 the debate stops with probability `rate`. */
export function randomStop(env: Environment, questions: Question[], rate: number, seed: number): Promise<MethodResult> {
  const random = perQuestion(env, 'random-stop', seed);
  return runRule(env, questions, `Random stop (${(100 * rate).toFixed(0)}% a round, seed ${seed})`, (d, n) => ({
    ...keepAll(d, n),
    stop: random(d)() < rate,
  }));
}

/** Consensus stop at 2/3 and at unanimity, and sparse debate: the fixed rules. */
export async function stoppingRules(env: Environment, questions: Question[]): Promise<MethodResult[]> {
  return [
    await runRule(env, questions, 'Consensus stop (2/3 agree)', consensusStop(2 / 3)),
    await runRule(env, questions, 'Consensus stop (unanimity)', consensusStop(1)),
    await runRule(env, questions, 'Sparse debate (S2-MAD: the majority skips)', sparseDebate),
  ];
}

/**
 * A method's rates of the decisions beyond edges: the share of its possible revisions it made
 * (skipped calls of stopped debates included), and its stop probability a round (from the share of
 * its debates that stopped, spread evenly over the `rounds - 1` chances).
 */
export function decisionRates(r: MethodResult, rounds: number): { revise: number; stop: number } {
  const lookups = TIERS.filter((t) => t !== 'skipped').reduce((s, t) => s + r.tiers[t], 0);
  const revise = lookups + r.tiers.skipped ? lookups / (lookups + r.tiers.skipped) : 1;
  const stopped = r.questions ? r.stopped / r.questions : 0;
  return { revise, stop: 1 - (1 - stopped) ** (1 / Math.max(1, rounds - 1)) };
}

/**
 * The rate in [0, 1] at which `cost(rate)` (a method's cost as a share of Full-Debate's, growing
 * with the rate) meets `target`, by bisection (`steps` halvings); 0 or 1 where the target is out of reach.
 */
export async function rateForCost(cost: (rate: number) => Promise<number>, target: number, steps = 8): Promise<number> {
  let low = 0,
    high = 1;
  for (let k = 0; k < steps; k++) {
    const mid = (low + high) / 2;
    if ((await cost(mid)) < target) low = mid;
    else high = mid;
  }
  return (low + high) / 2;
}

/**
 * Random revise and random stop at a budget (a share of Full-Debate's cost) with no policy to
 * match: each one's rate is found on `calibration` (bisection on its seed-0 cost, a share of
 * Full-Debate's there), then it is run on `questions` over `seeds`. Returns each method's runs and rate.
 */
export async function randomAtBudget(
  env: Environment,
  questions: Question[],
  calibration: Question[],
  budget: number,
  seeds: number[],
): Promise<{ method: string; rate: number; runs: MethodResult[] }[]> {
  const full = (await runRule(env, calibration, 'Full-Debate', keepAll)).cost;
  const revise = await rateForCost(async (r) => (await randomRevise(env, calibration, r, 0)).cost / full, budget, 6);
  const stop = 1 - (await rateForCost(async (go) => (await randomStop(env, calibration, 1 - go, 0)).cost / full, budget, 6));
  const out = [];
  for (const [name, rate, play] of [
    ['Random revise', revise, randomRevise],
    ['Random stop', stop, randomStop],
  ] as const) {
    const runs: MethodResult[] = [];
    for (const s of seeds) runs.push(await play(env, questions, rate, s));
    out.push({ method: `${name} (${(100 * rate).toFixed(0)}%${name === 'Random stop' ? ' a round' : ' of revisions'}, rate for the budget)`, rate, runs });
  }
  return out;
}
