// A team file as one endpoint: each request goes to its agent's OpenAI-compatible endpoint, and all
// of them share one limiter, one retry count and one cap. `--endpoints FILE` of the replaying
// commands and `debate --team FILE` load it here.
import type { Cache } from '../cache/types.ts';
import type { Endpoint } from '../env/endpoint.ts';
import { makeBudget, type Budget, type BudgetState } from './budget.ts';
import { limiter } from './limiter.ts';
import { openaiEndpoint, type TeamShared } from './openai.ts';
import { emptyRetryCounts, type RetryCounts } from './retry.ts';
import { loadTeamFile, type Caps, type TeamFile } from './team.ts';
import { InputError } from '../io/errors.ts';

export interface TeamEndpoint extends Endpoint {
  team: TeamFile;
  budget: Budget;
  /** Calls, tokens and dollars so far (the cap's state), and retries by cause. */
  stats(): { budget: BudgetState; retries: RetryCounts };
}

/**
 * The endpoint of a team file for a cache. Every agent of the team must be an agent of the cache,
 * at the cache's prices (the cache's cost figures and the cap's dollars would disagree otherwise).
 * `caps` (e.g. from --budget-usd / --max-calls) override the file's budget.
 */
const perMillion = (perToken: number) => Number((perToken * 1e6).toPrecision(12));

export function loadTeamEndpoints(file: string, cache: Cache, caps: Partial<Caps> = {}, env: NodeJS.ProcessEnv = process.env): TeamEndpoint {
  const team = loadTeamFile(file);
  const problems: string[] = [];
  for (const [id, agent] of Object.entries(team.agents)) {
    const a = cache.agentIndex.get(id);
    if (a === undefined) {
      problems.push(`agents.${id}: no agent '${id}' in cache ${cache.file} (it has ${cache.agents.map((x) => x.id).join(', ')})`);
      continue;
    }
    const { priceIn, priceOut } = cache.agents[a];
    const same = (perToken: number, price: number) => Math.abs(perToken * 1e6 - price) <= 1e-9 * Math.max(1, price);
    if (!same(priceIn, agent.price.in) || !same(priceOut, agent.price.out))
      problems.push(
        `agents.${id}.price: ${agent.price.in} / ${agent.price.out} per million tokens, but ` +
          `cache ${cache.file} prices '${id}' at ${perMillion(priceIn)} / ${perMillion(priceOut)}`,
      );
  }
  if (problems.length) throw new InputError(problems.map((p) => `${file}: ${p}`).join('\n'));

  const budget = makeBudget({ ...team.budget, ...caps });
  const shared: TeamShared = { limiter: limiter(team.concurrency), retry: team.retry, retries: emptyRetryCounts(), budget };
  const endpoints = new Map(Object.entries(team.agents).map(([id, agent]) => [id, openaiEndpoint(id, agent, shared, file, env)]));
  return {
    name: `team ${file}`,
    team,
    budget,
    stats: () => ({ budget: budget.state(), retries: structuredClone(shared.retries) }),
    refuses: (req) => endpoints.get(req.agent.id)?.refuses?.(req) ?? null,
    respond(req) {
      const endpoint = endpoints.get(req.agent.id);
      if (!endpoint)
        return Promise.reject(new InputError(`${file}: agent '${req.agent.id}' has no endpoint (the team file names ${[...endpoints.keys()].join(', ')})`));
      return endpoint.respond(req);
    },
  };
}
