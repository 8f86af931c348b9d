// The simulated debate world: a seeded stand-in for real agents, used as the embedded default
// data. It is a simulator, never model data: its agents, prices and texts are made up, shaped so
// that pruning matters (heterogeneous skill per subject, prices and lengths; agents swayed by wrong
// peers and fixed by right ones to different degrees; an optional adversary). Like real models, an
// agent either tends to know a question or not: a latent ability per (agent, question), the same
// in every sample, round and context, makes one agent's samples on one question agree.
import { z } from 'zod';

export const AgentProfile = z.strictObject({
  id: z.string(),
  model: z.string(),
  priceIn: z.number().nonnegative(),
  priceOut: z.number().nonnegative(),
  /** Mean output tokens of a reply (log-normal spread around it). */
  meanTokens: z.number().positive(),
  /** P(correct) on a question of medium difficulty, per subject. */
  skill: z.record(z.string(), z.number().gt(0).lt(1)),
  /**
   * Weight of its own knowledge (its round-1 answer distribution on the question) in a revision;
   * below 1 it defers more to what it is shown.
   */
  knowledge: z.number().nonnegative().default(1),
  /**
   * Chance that a revision goes its own way: answered afresh from its own knowledge, whatever its
   * history and what it is shown (a new derivation that may slip even when every peer agrees).
   */
  slip: z.number().min(0).max(1).default(0),
  /** Pull towards its previous answer, which it remembers from its own debate history. */
  stubbornness: z.number().nonnegative(),
  /** Extra pull towards its previous answer when its own response is shown again in its prompt. */
  ownBoost: z.number().nonnegative().default(0.5),
  /** How strongly a correct / a wrong peer argument pulls this agent. */
  swayRight: z.number().nonnegative(),
  swayWrong: z.number().nonnegative(),
  /** How strongly this agent's arguments pull others. */
  persuasion: z.number().nonnegative(),
  /** Mean quality of its reasoning text, added to the correctness-driven base. */
  eloquence: z.number().default(0),
  /** Always argues for the question's distractor, whatever it is shown. */
  adversarial: z.boolean().default(false),
});
export type AgentProfile = z.infer<typeof AgentProfile>;

const SUBJECTS = ['algebra', 'geometry', 'chemistry', 'biology', 'history', 'law'];
const skills = (values: number[]) => Object.fromEntries(SUBJECTS.map((s, i) => [s, values[i]]));

const DEFAULT_AGENTS: AgentProfile[] = [
  {
    id: 'atlas',
    model: 'sim/atlas-large',
    priceIn: 10e-6,
    priceOut: 30e-6,
    meanTokens: 380,
    skill: skills([0.82, 0.8, 0.78, 0.62, 0.5, 0.48]),
    knowledge: 0.25,
    slip: 0.08,
    stubbornness: 2.6,
    ownBoost: 1.8,
    swayRight: 4.3,
    swayWrong: 4.3,
    persuasion: 1.0,
    eloquence: 0.05,
    adversarial: false,
  },
  {
    id: 'sage',
    model: 'sim/sage-medium',
    priceIn: 1e-6,
    priceOut: 3e-6,
    meanTokens: 240,
    skill: skills([0.48, 0.5, 0.55, 0.72, 0.82, 0.8]),
    knowledge: 0.25,
    slip: 0.08,
    stubbornness: 2.3,
    ownBoost: 1.5,
    swayRight: 5.8,
    swayWrong: 5.4,
    persuasion: 1.0,
    eloquence: 0,
    adversarial: false,
  },
  {
    id: 'brisk',
    model: 'sim/brisk-mini',
    priceIn: 0.15e-6,
    priceOut: 0.6e-6,
    meanTokens: 110,
    skill: skills([0.45, 0.42, 0.5, 0.55, 0.45, 0.42]),
    knowledge: 0.25,
    slip: 0.08,
    stubbornness: 1.8,
    ownBoost: 1.2,
    swayRight: 6.8,
    swayWrong: 6.8,
    persuasion: 1.5,
    eloquence: 0.1,
    adversarial: false,
  },
];

const ADVERSARY: AgentProfile = {
  id: 'mallory',
  model: 'sim/mallory-adversary',
  priceIn: 1e-6,
  priceOut: 3e-6,
  meanTokens: 220,
  skill: skills([0.5, 0.5, 0.5, 0.5, 0.5, 0.5]),
  knowledge: 0,
  slip: 0,
  stubbornness: 0,
  ownBoost: 0,
  swayRight: 0,
  swayWrong: 0,
  persuasion: 1.6,
  eloquence: 0.35,
  adversarial: true,
};

export const WorldConfig = z.strictObject({
  seed: z.number().int().default(7),
  questions: z.number().int().positive().default(1200),
  /** Fractions of questions in train / validation / test (the rest of 1 goes to test). */
  trainFraction: z.number().min(0).max(1).default(0.5),
  validationFraction: z.number().min(0).max(1).default(0.25),
  subjects: z.array(z.string()).min(1).default(SUBJECTS),
  /**
   * S.d. of an agent's ability on one question: a per-(agent, question) offset on the logit of
   * being right, shared by all its samples, rounds and contexts on that question. 0: its samples
   * are independent draws given the question's subject and difficulty.
   */
  latentSd: z.number().nonnegative().default(3.2),
  /**
   * Share of an agent's wrong-answer probability on its preferred wrong answer for the question
   * (the question's distractor, more often the harder the question, else another wrong option);
   * the rest is spread evenly over the other wrong options.
   */
  wrongFocus: z.number().min(0).max(1).default(0.6),
  /** Sampled round-1 answers per agent and question (sample 0 starts every debate). */
  round1Samples: z.number().int().positive().default(8),
  rounds: z.number().int().min(1).default(3),
  /** Recorded debates per question besides Full-Debate and No-communication: random keep masks. */
  randomTrajectories: z.number().int().nonnegative().default(2),
  randomKeep: z.number().min(0).max(1).default(0.5),
  /** Instruction tokens added to every prompt. */
  instructionTokens: z.number().int().nonnegative().default(80),
  agents: z.array(AgentProfile).default(DEFAULT_AGENTS),
  /** Add one adversarial agent to the team. */
  adversary: z.boolean().default(false),
  adversaryProfile: AgentProfile.default(ADVERSARY),
});
export type WorldConfig = z.infer<typeof WorldConfig>;

/**
 * Settings a stored world config lacks (a cache written by an earlier simulator): parsing would
 * fill them with today's defaults, and the simulator would no longer answer as it did.
 */
export function missingSettings(stored: Record<string, unknown>): string[] {
  const missing = Object.keys(WorldConfig.shape).filter((k) => !(k in stored));
  const profiles = [...(Array.isArray(stored.agents) ? stored.agents : []), ...(stored.adversaryProfile ? [stored.adversaryProfile] : [])] as Record<
    string,
    unknown
  >[];
  for (const p of profiles)
    missing.push(
      ...Object.keys(AgentProfile.shape)
        .filter((k) => !(k in p))
        .map((k) => `${String(p.id)}.${k}`),
    );
  return missing;
}

export const OPTIONS = ['A', 'B', 'C', 'D'];

/** The team of a world: its agents, plus the adversary when switched on. */
export function worldAgents(world: WorldConfig): AgentProfile[] {
  return world.adversary ? [...world.agents, world.adversaryProfile] : world.agents;
}

export const sigmoid = (x: number) => 1 / (1 + Math.exp(-x));
export const logit = (p: number) => Math.log(p / (1 - p));

export interface QuestionLatent {
  id: string;
  subject: string;
  difficulty: number; // 0 easy .. 1 hard
  gold: number; // option index
  distractor: number; // option index of the tempting wrong answer
  /** Number of answer options (default OPTIONS.length; a world fitted to open answers has its own per question). */
  options?: number;
}

/** What one agent brings to one question, drawn once (see `agentLatent`). */
export interface AgentLatent {
  /** Offset on the logit of being right, ~ N(0, latentSd^2). */
  offset: number;
  /** Its preferred wrong answer (option index). */
  wrong: number;
}

/** Chance that an agent's preferred wrong answer is the question's distractor. */
export const distractorPull = (q: QuestionLatent) => 0.4 + 0.5 * q.difficulty;

/** An agent's answer distribution over the options on its own (round 1, and its knowledge later). */
export function independentAnswer(world: Pick<WorldConfig, 'wrongFocus'>, agent: AgentProfile, q: QuestionLatent, latent: AgentLatent): number[] {
  const skill = agent.skill[q.subject] ?? 0.5;
  const pCorrect = sigmoid(logit(skill) + 5 * (0.5 - q.difficulty) + latent.offset);
  const wrong = 1 - pCorrect;
  const n = q.options ?? OPTIONS.length;
  // With no third option the preferred wrong answer takes every wrong draw.
  const focus = n > 2 ? world.wrongFocus : 1;
  const others = n > 2 ? (wrong * (1 - focus)) / (n - 2) : 0;
  return Array.from({ length: n }, (_, o) => (o === q.gold ? pCorrect : o === latent.wrong ? wrong * focus : others));
}

export interface ShownArgument {
  agent: AgentProfile;
  answer: number; // option index, -1 unparsed
  quality: number;
  own: boolean;
}

/**
 * Answer distribution of a revision: the agent's own knowledge (weighted), a pull to its previous answer
 * (stronger when its own response is shown again), and a pull from each shown peer argument, scaled by the
 * source's persuasion, the argument's quality and the recipient's sway for right or wrong answers.
 */
export function revisedAnswer(
  world: Pick<WorldConfig, 'wrongFocus'>,
  agent: AgentProfile,
  q: QuestionLatent,
  latent: AgentLatent,
  previous: number,
  shown: ShownArgument[],
): number[] {
  const own = independentAnswer(world, agent, q, latent);
  const logits = own.map((p) => agent.knowledge * Math.log(p));
  if (previous >= 0) logits[previous] += agent.stubbornness;
  for (const s of shown) {
    if (s.answer < 0) continue;
    if (s.own) logits[s.answer] += agent.ownBoost;
    else logits[s.answer] += s.agent.persuasion * (0.5 + s.quality) * (s.answer === q.gold ? agent.swayRight : agent.swayWrong);
  }
  const max = Math.max(...logits);
  const e = logits.map((l) => Math.exp(l - max));
  const z = e.reduce((a, b) => a + b, 0);
  return e.map((x, o) => (1 - agent.slip) * (x / z) + agent.slip * own[o]);
}
