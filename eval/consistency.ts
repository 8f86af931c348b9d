// Consistency baselines (docs/method.md §8): majority vote over independent round-1 samples. Per model with
// a fixed number of samples; Consistency-Best (the model best alone on validation) and
// Consistency-Fuse (equal budget shares of every model), each extended with samples until its cost
// would pass Full-Debate's on the same questions. A sample is never reused: when the cache holds too
// few, the row says how many were used and what cost was reached.
import type { Question } from '../src/cache/types.ts';
import { limitedSample } from '../src/env/tokenLimit.ts';
import { callCost } from '../src/env/cost.ts';
import { emptyTiers } from '../src/env/tiers.ts';
import { majority } from '../src/env/debate.ts';
import type { Environment } from '../src/env/environment.ts';
import { addDebate, emptyResult, type MethodResult } from '../src/env/tally.ts';
import { singleAgent } from './baselines.ts';

/** Cached round-1 samples of a team member for a question, in sample order. */
function samples(env: Environment, q: Question, member: number): number[] {
  return env.round1.get(q.index * env.cache.agents.length + env.team[member]) ?? [];
}

const sampleCost = (env: Environment, index: number) => {
  const r = env.cache.responses[index];
  return callCost(env.cache, r.a, r.inTokens, limitedSample(env, index).tokens); // each sample is a recorded round-1 call
};

/** Vote over the first k[m] samples of each member m (ties: earlier member, earlier sample). */
function vote(env: Environment, questions: Question[], method: string, k: number[]): MethodResult {
  const out = emptyResult(env, questions, method);
  for (const q of questions) {
    const used = k.flatMap((n, m) => samples(env, q, m).slice(0, n));
    const answers = used.map((i) => limitedSample(env, i).ans);
    const final = majority(answers, 'lowest-agent', () => 0);
    const cost = used.reduce((s, i) => s + sampleCost(env, i), 0);
    // A vote is one round: initial = final, so the ledger shows preserved / unrepaired / invalid.
    addDebate(env, out, {
      q: q.index,
      answers: [[final]],
      correct: [[final === q.goldKey]],
      keeps: [],
      revises: [],
      calls: used.length,
      final,
      finalCorrect: final === q.goldKey,
      invalid: final < 0,
      cost,
      priced: { recorded: used.length, computed: 0 },
      keptEdges: 0,
      tiers: emptyTiers(),
    });
  }
  return out;
}

/** Vote over `k` samples of one member (default: every sample the cache holds for all questions). */
export function consistency(env: Environment, questions: Question[], member: number, k?: number): MethodResult {
  const available = Math.min(...questions.map((q) => samples(env, q, member).length));
  const n = Math.min(k ?? available, available);
  const counts = env.team.map((_, m) => (m === member ? n : 0));
  const r = vote(env, questions, `Consistency ${env.cache.agents[env.team[member]].id} (${n} samples)`, counts);
  if (k !== undefined && n < k) r.note = `asked for ${k} samples, the cache holds ${available} for every question`;
  return r;
}

/** Largest per-question sample counts within `budget`, growing each member's count in turn within its share. */
function extend(env: Environment, questions: Question[], members: number[], budget: number): { k: number[]; exhausted: boolean } {
  const k = env.team.map(() => 0);
  const available = env.team.map((_, m) => Math.min(...questions.map((q) => samples(env, q, m).length)));
  const share = budget / members.length;
  const cost = (m: number, n: number) =>
    questions.reduce(
      (s, q) =>
        s +
        samples(env, q, m)
          .slice(0, n)
          .reduce((c, i) => c + sampleCost(env, i), 0),
      0,
    );
  let exhausted = false;
  for (const m of members) {
    while (k[m] < available[m] && cost(m, k[m] + 1) <= share) k[m]++;
    if (k[m] === available[m] && cost(m, k[m]) < share) exhausted = true;
  }
  return { k, exhausted };
}

function matched(env: Environment, questions: Question[], name: string, members: number[], fullCost: number): MethodResult {
  const { k, exhausted } = extend(env, questions, members, fullCost);
  const label = members.map((m) => `${env.cache.agents[env.team[m]].id} x${k[m]}`).join(', ');
  const r = vote(env, questions, `${name} (${label})`, k);
  r.note =
    `${k.reduce((a, b) => a + b, 0)} samples per question, cost ${((100 * r.cost) / fullCost).toFixed(1)}% ` +
    `of Full-Debate${exhausted ? ': the cache holds no more samples' : ''}`;
  return r;
}

/** Consistency-Best: samples of the member best alone on `validation`, up to Full-Debate's cost on `questions`. */
export async function consistencyBest(env: Environment, questions: Question[], validation: Question[], fullCost: number): Promise<MethodResult> {
  const scores: number[] = [];
  for (const m of env.team.keys()) scores.push((await singleAgent(env, validation, m)).correct);
  return matched(env, questions, 'Consistency-Best', [scores.indexOf(Math.max(...scores))], fullCost);
}

/** Consistency-Fuse: every member's samples, equal budget shares, up to Full-Debate's cost. */
export function consistencyFuse(env: Environment, questions: Question[], fullCost: number): MethodResult {
  return matched(
    env,
    questions,
    'Consistency-Fuse',
    env.team.map((_, m) => m),
    fullCost,
  );
}
