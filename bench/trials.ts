// Interleaved, warmed-up timing trials. A shared machine drifts by 10-20% from one second to the
// next, and a process's first seconds run slower than its steady state (allocator, thread pools,
// caches): so every contender is first warmed up for a stretch of time in the process that is
// timed, then timed in rounds that rotate the order (A B C, B C A, C A B, ...), so that drift
// hits every contender alike and none always runs right after the same neighbour.

/** Something timed: `run(seconds)` works for about that long and returns its rate. */
export interface Contender {
  name: string;
  run(seconds: number): Promise<number>;
}

export interface Spread {
  trials: number[];
  min: number;
  median: number;
  max: number;
}

export interface TrialSettings {
  /** Seconds of untimed work per contender before the first round. */
  warmup: number;
  /** Seconds per timed trial. */
  seconds: number;
  /** Timed trials per contender (rounds). */
  trials: number;
}

export function spread(trials: number[]): Spread {
  const s = [...trials].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return { trials, min: s[0], median: s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2, max: s[s.length - 1] };
}

/** Warm up every contender, then time them in rotating rounds; each one's spread, by name. */
export async function interleaved(contenders: Contender[], o: TrialSettings): Promise<Map<string, Spread>> {
  for (const c of contenders) await c.run(o.warmup);
  const rates = new Map(contenders.map((c) => [c.name, [] as number[]]));
  for (let round = 0; round < o.trials; round++)
    for (let k = 0; k < contenders.length; k++) {
      const c = contenders[(round + k) % contenders.length];
      rates.get(c.name)!.push(await c.run(o.seconds));
    }
  return new Map([...rates].map(([name, r]) => [name, spread(r)]));
}

/** Rate of `work` (units per call) over at least `seconds` and at least `minCalls` calls. */
export async function rateOf(work: () => Promise<unknown> | unknown, units: number, seconds: number, minCalls = 1): Promise<number> {
  let calls = 0;
  const start = performance.now();
  while (calls < minCalls || performance.now() - start < seconds * 1000) {
    await work();
    calls++;
  }
  return (calls * units) / ((performance.now() - start) / 1000);
}
