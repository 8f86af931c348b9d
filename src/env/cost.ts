// Pricing (SPEC §1): a call costs inTokens x priceIn + outTokens x priceOut of the agent's model.
import type { Cache } from '../cache/load.ts';

export function callCost(cache: Cache, agent: number, inTokens: number, outTokens: number): number {
  const a = cache.agents[agent];
  return inTokens * a.priceIn + outTokens * a.priceOut;
}
