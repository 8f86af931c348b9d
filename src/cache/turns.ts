// The speaking order an import records (`turn`, docs/cache-format.md): within a round, an agent
// that read another's answer of the same round spoke after it. Transcript order decides the rest,
// and a log whose readings go round in a circle (a shown text matched to a later speaker's answer)
// keeps transcript order there: the replay then misses the exact tier on that revision, and the
// import report says why (src/env/protocol.ts unrebuilt).
import type { ResponseRecord } from './format.ts';

/** Set `turn` on one debate's responses (in transcript order within each round). */
export function assignTurns(responses: ResponseRecord[]): void {
  const rounds = new Map<number, ResponseRecord[]>();
  for (const r of responses) rounds.set(r.round, [...(rounds.get(r.round) ?? []), r]);
  for (const speakers of rounds.values()) {
    const left = [...speakers];
    for (let turn = 0; left.length; turn++) {
      const ready = left.findIndex((r) => r.context.every((id) => !left.some((o) => o !== r && o.id === id)));
      const [next] = left.splice(Math.max(ready, 0), 1); // none ready: a circle, transcript order
      next.turn = turn;
    }
  }
}
