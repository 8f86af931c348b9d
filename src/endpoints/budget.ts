// The hard cap of a team's live calls, in dollars and in calls. A call reserves its worst case
// before it is sent (prompt tokens at the input price plus maxTokens at the output price); a call
// whose worst case could take spending past the cap, or one call past the call cap, is refused with
// a BudgetExceededError, so the cap is never passed while the server honours maxTokens. A finished
// call settles at its reported usage; a failed one releases its dollars (rejected and dropped
// attempts are not billed by the APIs we know) but still counts as a call.
import { EndpointCapReached } from '../env/endpoint.ts';
import type { Caps } from './team.ts';

export class BudgetExceededError extends EndpointCapReached {}

export interface BudgetState {
  maxUsd: number | null;
  maxCalls: number | null;
  /** Calls started (finished, failed or in flight). */
  calls: number;
  inFlight: number;
  /** Dollars of finished calls, and the worst case reserved for calls in flight. */
  usd: number;
  reservedUsd: number;
  inTokens: number;
  outTokens: number;
  /** Calls refused at the cap. */
  refused: number;
}

export interface Budget {
  /** Why a call of this worst case would be refused now (a cap it could pass), or null. */
  refusal(worstUsd: number, what: string): string | null;
  /** Reserve a call's worst case; throws BudgetExceededError when the call could pass a cap. */
  reserve(worstUsd: number, what: string): { worstUsd: number };
  settle(reservation: { worstUsd: number }, usd: number, inTokens: number, outTokens: number): void;
  release(reservation: { worstUsd: number }): void;
  state(): BudgetState;
}

const dollars = (x: number) => `$${x.toFixed(4)}`;

export function makeBudget(caps: Caps): Budget {
  const s: BudgetState = { maxUsd: caps.maxUsd, maxCalls: caps.maxCalls, calls: 0, inFlight: 0, usd: 0, reservedUsd: 0, inTokens: 0, outTokens: 0, refused: 0 };
  const refusal = (worstUsd: number, what: string): string | null => {
    if (s.maxCalls !== null && s.calls >= s.maxCalls) return `call cap reached: ${what} refused, ${s.calls} of at most ${s.maxCalls} calls made`;
    if (s.maxUsd !== null && s.usd + s.reservedUsd + worstUsd > s.maxUsd)
      return (
        `dollar cap reached: ${what} could cost up to ${dollars(worstUsd)}, and ${dollars(s.usd)} is spent and ${dollars(s.reservedUsd)} reserved ` +
        `for calls in flight, of the ${dollars(s.maxUsd)} cap`
      );
    return null;
  };
  return {
    refusal,
    reserve(worstUsd, what) {
      const refused = refusal(worstUsd, what);
      if (refused !== null) {
        s.refused++;
        throw new BudgetExceededError(refused);
      }
      s.calls++;
      s.inFlight++;
      s.reservedUsd += worstUsd;
      return { worstUsd };
    },
    settle(r, usd, inTokens, outTokens) {
      s.inFlight--;
      s.reservedUsd -= r.worstUsd;
      s.usd += usd;
      s.inTokens += inTokens;
      s.outTokens += outTokens;
    },
    release(r) {
      s.inFlight--;
      s.reservedUsd -= r.worstUsd;
    },
    state: () => ({ ...s, reservedUsd: Math.max(0, s.reservedUsd) }),
  };
}
