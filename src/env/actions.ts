// The action space of a debate (docs/method.md §4-6). In round t >= 2 each recipient i decides, for each of
// its candidates j, keep or prune. Candidate j = 0 is the recipient's own round t-1 response, then
// the other members in team order. Actions are numbered round-major, then recipient, then
// candidate: x = (t - 2)·A² + i·A + j for a team of A. Every per-action array (decisions, rewards,
// returns, the influence graph, the static mask) uses this one numbering.

/** Actions of one round: A recipients x A candidates. */
export const actionsPerRound = (agents: number) => agents * agents;

/** Actions of one debate of `rounds` rounds (round 1 has none). */
export const actionsPerDebate = (agents: number, rounds: number) => (rounds - 1) * agents * agents;

/** Index of the action of recipient i on candidate j in round t. */
export const actionIndex = (agents: number, t: number, i: number, j: number) => ((t - 2) * agents + i) * agents + j;

/** The (round, recipient, candidate) of action x; inverse of actionIndex. */
export function actionOf(agents: number, x: number): { t: number; i: number; j: number } {
  const per = agents * agents;
  return { t: 2 + Math.floor(x / per), i: Math.floor((x % per) / agents), j: x % agents };
}

/** Candidate order for recipient i: own response first, then the others in team order. */
export function candidateOrder(teamSize: number, i: number): number[] {
  const order = [i];
  for (let j = 0; j < teamSize; j++) if (j !== i) order.push(j);
  return order;
}
