// The family of simulated agents a team-general policy trains across
// (docs/transfer.md, "A team-general policy"): member k is drawn from stated ranges by its index
// alone, so a member is the same agent in every world that seats it, and members the training never
// used are held-out agents.
import seedrandom from 'seedrandom';
import { logit, sigmoid, type AgentProfile } from './world.ts';

/** The ranges each member is drawn from (uniform; prices log-uniform). */
export const FAMILY_RANGES = {
  /** P(correct) at medium difficulty, per subject: a base level, then ±0.8 on the logit per subject. */
  skill: [0.25, 0.85],
  persuasion: [0.5, 2.0],
  stubbornness: [0.5, 3.0],
  /** Sway towards a right / a wrong argument (drawn apart: some agents tell right from wrong better). */
  sway: [3, 7.5],
  meanTokens: [80, 420],
  /** Price per output token (input: a third of it). */
  priceOut: [0.3e-6, 30e-6],
  /** Share of members that argue for the distractor, with eloquence 0.35 (the world adversary's polish). */
  adversarial: 0.25,
} as const;

const between = (random: () => number, [lo, hi]: readonly [number, number]) => lo + (hi - lo) * random();

/** Family member `k`: its id and model `family-k`, `sim/family-k`; its subjects those of `like` (the agent whose seat it takes). */
export function familyMember(k: number, like: AgentProfile): AgentProfile {
  const random = seedrandom(`family|${k}`);
  const R = FAMILY_RANGES;
  const base = logit(between(random, R.skill));
  const skill = Object.fromEntries(Object.keys(like.skill).map((s) => [s, sigmoid(base + 0.8 * (2 * random() - 1))]));
  const priceOut = Math.exp(between(random, [Math.log(R.priceOut[0]), Math.log(R.priceOut[1])]));
  const adversarial = random() < R.adversarial;
  return {
    ...like,
    id: `family-${k}`,
    model: `sim/family-${k}`,
    skill,
    persuasion: between(random, R.persuasion),
    stubbornness: between(random, R.stubbornness),
    swayRight: between(random, R.sway),
    swayWrong: between(random, R.sway),
    meanTokens: Math.round(between(random, R.meanTokens)),
    priceOut,
    priceIn: priceOut / 3,
    ...(adversarial && { adversarial: true, eloquence: 0.35 }),
  };
}
