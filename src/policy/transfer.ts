// A trained policy moved to a team that differs from its own in one member (docs/transfer.md): which
// member was replaced, and the policy on the new team. A member is its agent id and its model, so
// two imports of the same questions whose teams differ in one model (the same positions a1, a2,
// ... under another model) differ in that member, as a simulated world with one agent replaced does.
import { SettingsError } from '../io/errors.ts';
import type { PolicyArtifact } from './artifact.ts';

/** The member that left (`seat` in the policy's team) and the one that took its seat. */
export interface TeamChange {
  seat: number;
  replaced: { id: string; model: string | null };
  newcomer: { id: string; model: string };
  /** The policy's team with the newcomer in the replaced member's seat. */
  team: string[];
}

/** An agent as the transfer tells members apart: its id and its model. */
type Agent = { id: string; model: string };

const member = (a: { id: string; model: string | null }) => (a.model === null ? a.id : `${a.id} (${a.model})`);

/**
 * The one member `team` (with each member's model in `oldAgents`, the agents of the cache it trained
 * on, or unknown when null) lost to a cache of `newAgents`: named by `replace` ([old id, new id]), or
 * worked out as the one member not in the new cache and the one agent there the old cache did not
 * have. Anything else is a SettingsError saying what differs.
 */
export function teamChange(team: string[], oldAgents: Agent[] | null, newAgents: Agent[], replace?: [string, string]): TeamChange {
  const modelOf = (id: string) => oldAgents?.find((a) => a.id === id)?.model ?? null;
  const same = (id: string, a: Agent) => a.id === id && modelOf(id) === a.model;
  const say = (why: string) => new SettingsError(`transfer: ${why}`);
  const change = (seat: number, newcomer: Agent): TeamChange => ({
    seat,
    replaced: { id: team[seat], model: modelOf(team[seat]) },
    newcomer: { id: newcomer.id, model: newcomer.model },
    team: team.map((id, i) => (i === seat ? newcomer.id : id)),
  });
  const missing = team.filter((id) => !newAgents.some((a) => a.id === id));
  if (replace) {
    const [old, arrived] = replace;
    const seat = team.indexOf(old);
    const newcomer = newAgents.find((a) => a.id === arrived);
    if (seat < 0) throw say(`--replace ${old}=${arrived}: '${old}' is not in the policy's team (${team.join(', ')})`);
    if (!newcomer) throw say(`--replace ${old}=${arrived}: the new cache has no agent '${arrived}' (${newAgents.map((a) => a.id).join(', ')})`);
    if (arrived !== old && team.includes(arrived)) throw say(`--replace ${old}=${arrived}: '${arrived}' is in the policy's team already`);
    const lost = missing.filter((id) => id !== old);
    if (lost.length) throw say(`the new cache lacks ${lost.join(', ')} of the policy's team besides '${old}': the teams differ in more than one member`);
    return change(seat, newcomer);
  }
  if (oldAgents === null)
    throw say(`the models of the policy's team are unknown (the cache it trained on is not readable): name the member replaced with --replace OLD=NEW`);
  const gone = team.filter((id) => !newAgents.some((a) => same(id, a)));
  // An arrival is an agent the policy's cache did not have (one it had outside the team is no newcomer).
  const arrivals = newAgents.filter((a) => !oldAgents.some((o) => o.id === a.id && o.model === a.model));
  if (gone.length === 1 && arrivals.length === 1) return change(team.indexOf(gone[0]), arrivals[0]);
  const left = gone.map((id) => member({ id, model: modelOf(id) }));
  throw say(
    `the policy's team (${team.map((id) => member({ id, model: modelOf(id) })).join(', ')}) and the new cache's agents ` +
      `(${newAgents.map(member).join(', ')}) differ in ` +
      `${gone.length === 0 ? 'no member' : `${left.join(', ')} left, ${arrivals.map(member).join(', ') || 'none'} arrived`}: ` +
      'transfer compares teams that differ in one member (name it with --replace OLD=NEW when the new cache has more agents)',
  );
}

/** The policy on the new team: its weights, with the newcomer's behavior embedding row set to `row` (or kept: the replaced member's). */
export function transferredPolicy(policy: PolicyArtifact, change: TeamChange, row?: Float32Array): PolicyArtifact {
  const D = policy.shape.dim;
  const behavior = Float32Array.from(policy.weights.behavior.data);
  if (row) behavior.set(row, change.seat * D);
  return { ...policy, team: change.team, weights: { ...policy.weights, behavior: { shape: policy.weights.behavior.shape, data: behavior } } };
}
