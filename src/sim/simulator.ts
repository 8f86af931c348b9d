// The simulated agents' replies: answer, reasoning quality, length and text. Each reply is a pure
// function of (world seed, question, agent, round, context, sample), so asking again gives the same
// reply, as the exact tier of a cache would. Texts are condensed renderings whose words carry what
// a text encoder can use (subject, quality of the reasoning, peers weighed, stated answer);
// `outTokens` is the simulated length of the full reply, not the length of this rendering.
import seedrandom from 'seedrandom';
import { normalizeAnswer } from '../answer.ts';
import type { Cache, Question, Response } from '../cache/types.ts';
import { isResponse, type Endpoint } from '../env/endpoint.ts';
import { drawIndex } from '../shuffle.ts';
import {
  OPTIONS,
  WorldConfig,
  distractorPull,
  missingSettings,
  independentAnswer,
  revisedAnswer,
  worldAgents,
  type AgentLatent,
  type AgentProfile,
  type QuestionLatent,
  type ShownArgument,
} from './world.ts';
import { InputError, SettingsError } from '../io/errors.ts';

export const VOCAB: Record<string, string[]> = {
  algebra: ['polynomial', 'coefficient', 'factor', 'equation', 'root', 'variable', 'quadratic', 'identity'],
  geometry: ['triangle', 'angle', 'radius', 'chord', 'area', 'congruence', 'perimeter', 'tangent'],
  chemistry: ['molarity', 'reaction', 'oxidation', 'electron', 'bond', 'equilibrium', 'acid', 'catalyst'],
  biology: ['cell', 'enzyme', 'protein', 'gene', 'membrane', 'species', 'mitosis', 'receptor'],
  history: ['treaty', 'empire', 'dynasty', 'revolution', 'century', 'colony', 'reform', 'charter'],
  law: ['statute', 'plaintiff', 'contract', 'liability', 'precedent', 'tort', 'jurisdiction', 'appeal'],
};
const words = (subject: string) => VOCAB[subject] ?? ['matter', 'detail', 'premise', 'claim'];

const CAREFUL = [
  'I derive the {w} step by step',
  'checking the {w} against the definition confirms it',
  'verifying the {w} rules out the other options',
  'the {w} follows rigorously from the given facts',
  'a careful check of the {w} settles it',
];
const SLOPPY = [
  'probably the {w} is enough here',
  'at a glance the {w} seems to fit',
  'I guess the {w} points this way',
  'the {w} looks familiar so I go with it',
  'without checking the {w} closely it seems right',
];

interface SimReply {
  answer: number; // option index
  quality: number; // 0..1, latent
  outTokens: number;
  text: string;
}

/** A standard normal draw (Box-Muller). */
export function gaussian(random: () => number): number {
  const u = 1 - random();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random());
}

const choose = <T>(list: T[], random: () => number) => list[Math.floor(random() * list.length)];

/**
 * An agent's latent on a question: a function of (world seed, question, agent) only, so every
 * sample, round and context of that agent on that question shares it.
 */
export function agentLatent(world: WorldConfig, agent: AgentProfile, q: QuestionLatent): AgentLatent {
  const random = seedrandom(`${world.seed}|latent|${q.id}|${agent.id}`);
  const offset = world.latentSd * gaussian(random);
  const others = OPTIONS.map((_, o) => o).filter((o) => o !== q.gold && o !== q.distractor);
  const wrong = random() < distractorPull(q) ? q.distractor : choose(others, random);
  return { offset, wrong };
}

/** One simulated reply; `seedKey` identifies the (question, agent, round, context, sample) asked. */
function simulateReply(
  world: WorldConfig,
  agent: AgentProfile,
  q: QuestionLatent,
  round: number,
  previous: number,
  shown: ShownArgument[],
  seedKey: string,
): SimReply {
  const random = seedrandom(`${world.seed}|${seedKey}`);
  let answer: number;
  if (agent.adversarial) answer = q.distractor;
  else {
    const latent = agentLatent(world, agent, q);
    const p = round === 1 ? independentAnswer(world, agent, q, latent) : revisedAnswer(world, agent, q, latent, previous, shown);
    answer = drawIndex(p, random());
  }
  const correct = answer === q.gold;
  const quality = Math.min(1, Math.max(0, (correct || agent.adversarial ? 0.7 : 0.3) + agent.eloquence + 0.18 * gaussian(random)));
  const outTokens = Math.max(12, Math.round(agent.meanTokens * Math.exp(0.25 * gaussian(random))));
  const vocab = words(q.subject);
  const sentences: string[] = [quality > 0.5 ? `Let me work through this ${q.subject} problem carefully.` : `Quick take on this ${q.subject} problem.`];
  const count = Math.min(5, Math.max(1, Math.round(agent.meanTokens / 90)));
  for (let k = 0; k < count; k++) sentences.push(choose(random() < quality ? CAREFUL : SLOPPY, random).replace('{w}', choose(vocab, random)) + '.');
  for (const s of shown) {
    if (s.answer < 0) continue;
    const said = `(${OPTIONS[s.answer]})`;
    sentences.push(s.own ? `My earlier answer was ${said}.` : `${s.agent.id} argued for ${said} and I ${s.answer === answer ? 'agree' : 'disagree'}.`);
  }
  sentences.push(`The answer is (${OPTIONS[answer]}).`);
  return { answer, quality, outTokens, text: sentences.join(' ') };
}

export function questionLatent(question: Pick<Question, 'id' | 'meta' | 'gold'>): QuestionLatent {
  const m = question.meta as Partial<QuestionLatent> | undefined;
  if (!m || typeof m.subject !== 'string' || typeof m.difficulty !== 'number' || typeof m.distractor !== 'number')
    throw new InputError(`question '${question.id}' has no simulator latents (meta.subject, meta.difficulty, meta.distractor)`);
  return { id: question.id, subject: m.subject, difficulty: m.difficulty, gold: OPTIONS.indexOf(question.gold), distractor: m.distractor };
}

/** Agent profiles of a world by id; an unknown id is an error naming where it came from. */
export function profileLookup(world: WorldConfig, where: string): (id: string) => AgentProfile {
  const profiles = new Map(worldAgents(world).map((p) => [p.id, p]));
  return (id) => {
    const p = profiles.get(id);
    if (!p) throw new InputError(`agent '${id}' is not in the simulator config of ${where}`);
    return p;
  };
}

/** The simulator as a live endpoint for the `record` tier, rebuilt from a simulator cache's header. */
export function simulatorEndpoint(cache: Cache): Endpoint {
  if (cache.header.source !== 'simulator' || !cache.header.simulator)
    throw new SettingsError(`cache ${cache.file} is not a simulator cache: no live endpoint to record from`);
  const missing = missingSettings(cache.header.simulator);
  if (missing.length)
    throw new InputError(
      `cache ${cache.file} was generated by an earlier simulator (its header lacks ` +
        `${missing.join(', ')}): regenerate it with \`cache gen\` to replay its simulator live`,
    );
  const world = WorldConfig.parse(cache.header.simulator);
  const profile = profileLookup(world, cache.file);
  return {
    name: `simulator (world seed ${world.seed})`,
    respond: async ({ question, agent, round, context, prev, sample }) => {
      const responses = context.filter(isResponse);
      // A simulated cache holds no external texts, and without turns the recorded protocol that shows them is refused.
      if (responses.length < context.length)
        throw new Error(`simulator of ${cache.file}: asked with an external text in the context of question '${question.id}'`);
      return replyFields(world, profile, question, agent.id, round, responses, prev, sample);
    },
  };
}

/** What a simulated response record holds beyond its ids: shared by the generator and the endpoint. */
export function replyFields(
  world: WorldConfig,
  profile: (id: string) => AgentProfile,
  question: Pick<Question, 'id' | 'promptTokens' | 'meta' | 'gold'>,
  agentId: string,
  round: number,
  context: Pick<Response, 'id' | 'agent' | 'answer' | 'outTokens' | 'meta'>[],
  prev: Pick<Response, 'id' | 'answer'> | null,
  sample: number,
) {
  const option = (answer: string | null) => OPTIONS.indexOf(normalizeAnswer(answer, 'mcq') ?? ''); // raw answers: 'B', '(B)', 'B) ...'
  const shown = context.map((r) => ({
    agent: profile(r.agent),
    answer: option(r.answer),
    quality: Number((r.meta as { quality?: number } | undefined)?.quality ?? 0.5),
    own: r.agent === agentId,
  }));
  // The reply is a function of everything the agent has: what it is shown and its own history.
  const key = `${question.id}|${agentId}|${round}|${context
    .map((r) => r.id)
    .sort()
    .join(',')}|${prev?.id ?? ''}|${sample}`;
  const reply = simulateReply(world, profile(agentId), questionLatent(question), round, prev ? option(prev.answer) : -1, shown, key);
  return {
    text: reply.text,
    answer: OPTIONS[reply.answer],
    inTokens: question.promptTokens + context.reduce((s, r) => s + r.outTokens, 0),
    outTokens: reply.outTokens,
    meta: { quality: round3(reply.quality) },
  };
}

export const round3 = (x: number) => Math.round(x * 1000) / 1000;
