// A world with one member of the team replaced (a model upgraded or downgraded, a vendor swapped,
// an agent turned adversarial), for measuring what a trained policy is worth on the new team
// (`transfer`). Everything else is the original world's: the same seed, questions, splits and
// keep masks, and the other agents' latents and replies are drawn from keys that do not involve
// the newcomer, so they answer exactly as before wherever what they are shown is the same.
import { SettingsError } from '../io/errors.ts';
import { familyMember } from './family.ts';
import { logit, sigmoid, worldAgents, type AgentProfile, type WorldConfig } from './world.ts';

export const ABILITIES = ['stronger', 'weaker', 'adversarial'] as const;
/** A newcomer's ability, or `family-K`: member K of the family of agents (family.ts). */
export type Ability = (typeof ABILITIES)[number] | `family-${number}`;
const isFamily = (a: string): a is `family-${number}` => /^family-\d+$/.test(a);

/** How far a stronger (weaker) newcomer's skill moves, on the logit of being right, in every subject. */
export const SKILL_SHIFT = 1.5;

/** A replacement as `cache gen --replace` takes it: the agent replaced and the newcomer's ability. */
export interface Replacement {
  agent: string;
  ability: Ability;
}

/** `ID=ABILITY` (e.g. `brisk=stronger`) as a replacement; anything else is a SettingsError naming `flag`. */
export function parseReplacement(text: string, flag = '--replace'): Replacement {
  const at = text.indexOf('=');
  const agent = text.slice(0, at);
  const ability = text.slice(at + 1) as Ability;
  if (at <= 0 || !((ABILITIES as readonly string[]).includes(ability) || isFamily(ability)))
    throw new SettingsError(`${flag} ${text}: expected AGENT=ABILITY with ABILITY one of ${ABILITIES.join(', ')} or family-K (e.g. brisk=stronger)`);
  return { agent, ability };
}

/**
 * The newcomer that takes `replaced`'s seat: the same prices, length and temperament, a new id and
 * model (`<id>-<ability>`: its replies and latents are its own), and its stated ability: skill moved
 * by SKILL_SHIFT on the logit in every subject, or, adversarial, arguing for the distractor with the
 * world's adversary's persuasion and polish.
 */
export function newcomerOf(replaced: AgentProfile, ability: Ability, adversary: AgentProfile): AgentProfile {
  if (isFamily(ability)) return familyMember(Number(ability.slice('family-'.length)), replaced);
  const renamed = { ...replaced, id: `${replaced.id}-${ability}`, model: `${replaced.model}-${ability}` };
  if (ability === 'adversarial') return { ...renamed, adversarial: true, persuasion: adversary.persuasion, eloquence: adversary.eloquence };
  const shift = ability === 'stronger' ? SKILL_SHIFT : -SKILL_SHIFT;
  return { ...renamed, skill: Object.fromEntries(Object.entries(replaced.skill).map(([s, p]) => [s, sigmoid(logit(p) + shift)])) };
}

/** `world` with agent `r.agent` replaced by its newcomer (in its seat: the team keeps its order). */
export function replaceAgent(world: WorldConfig, r: Replacement): { world: WorldConfig; replaced: AgentProfile; newcomer: AgentProfile } {
  const team = worldAgents(world);
  const replaced = team.find((a) => a.id === r.agent);
  if (!replaced)
    throw new SettingsError(`--replace ${r.agent}=${r.ability}: the world has no agent '${r.agent}' (its team: ${team.map((a) => a.id).join(', ')})`);
  const newcomer = newcomerOf(replaced, r.ability, world.adversaryProfile);
  if (team.some((a) => a.id === newcomer.id)) throw new SettingsError(`--replace ${r.agent}=${r.ability}: the world has an agent '${newcomer.id}' already`);
  const swapped =
    world.adversary && world.adversaryProfile.id === r.agent
      ? { ...world, adversaryProfile: newcomer }
      : { ...world, agents: world.agents.map((a) => (a.id === r.agent ? newcomer : a)) };
  return { world: swapped, replaced, newcomer };
}

/** What a replacement changed, in one line (cache gen prints it). */
export function replacementLine(replaced: AgentProfile, newcomer: AgentProfile, ability: Ability): string {
  const skills = (a: AgentProfile) =>
    Object.values(a.skill)
      .map((p) => p.toFixed(2))
      .join('/');
  const what = isFamily(ability)
    ? `family member${newcomer.adversarial ? ', adversarial' : ''}: skill ${skills(newcomer)}, persuasion ${newcomer.persuasion.toFixed(2)}, ` +
      `stubbornness ${newcomer.stubbornness.toFixed(2)}, sway ${newcomer.swayRight.toFixed(1)}/${newcomer.swayWrong.toFixed(1)}, ${newcomer.meanTokens} tokens`
    : ability === 'adversarial'
      ? `argues for the distractor (persuasion ${newcomer.persuasion}, eloquence ${newcomer.eloquence})`
      : `skill ${skills(replaced)} -> ${skills(newcomer)} (${ability === 'stronger' ? '+' : '-'}${SKILL_SHIFT} on the logit)`;
  return `${replaced.id} (${replaced.model}) replaced by ${newcomer.id} (${newcomer.model}): ${what}${isFamily(ability) ? '' : '; prices, length and temperament kept'}`;
}
