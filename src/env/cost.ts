// Pricing (docs/method.md §1): a call costs inTokens x priceIn + outTokens x priceOut of the agent's model.
// Input tokens come from what was recorded where the call is the recorded one: a response looked
// up with exactly the context it was recorded with (round-1 answers, the exact and record tiers)
// brings its own `inTokens`, the prompt as it was really sent (chat history, instructions, summary
// entries and all). Elsewhere (signature and model tiers, whose stand-in was recorded with another
// context) they are computed: promptTokens + the outTokens of every kept response. Reports say
// which share of calls was priced each way.
import type { Cache } from '../cache/types.ts';
import type { Tier, TierCounts } from './tiers.ts';

export function callCost(cache: Cache, agent: number, inTokens: number, outTokens: number): number {
  const a = cache.agents[agent];
  return inTokens * a.priceIn + outTokens * a.priceOut;
}

/** Calls priced from a recorded response's own inTokens, and calls whose input tokens were computed. */
export interface PricingCounts {
  recorded: number;
  computed: number;
}
export const emptyPricing = (): PricingCounts => ({ recorded: 0, computed: 0 });

/** The tiers whose response was recorded with exactly the call's context. */
export const pricedFromRecord = (tier: Tier) => tier === 'exact' || tier === 'record';

/** How the calls of a debate were priced: its round-1 calls (recorded) and its revision lookups by tier (see pricedFromRecord). */
export const pricing = (tiers: TierCounts, round1Calls: number): PricingCounts => ({
  recorded: round1Calls + tiers.exact + tiers.record,
  computed: tiers.signature + tiers.model,
});

export function addPricing(into: PricingCounts, from: PricingCounts): void {
  into.recorded += from.recorded;
  into.computed += from.computed;
}
