// Bounded concurrency: at most `max` tasks run at once; the others wait in arrival order. One
// limiter is shared by every agent of a team, so the team never has more calls in flight than its
// `concurrency`, whichever agents they go to.
import { SettingsError } from '../io/errors.ts';

export interface Limiter {
  run<T>(task: () => Promise<T>): Promise<T>;
  /** Tasks running now. */
  readonly active: number;
}

export function limiter(max: number): Limiter {
  if (!(Number.isInteger(max) && max > 0)) throw new SettingsError(`concurrency must be a positive integer, got ${max}`);
  let active = 0;
  const waiting: (() => void)[] = [];
  return {
    async run(task) {
      if (active < max) active++;
      else await new Promise<void>((start) => waiting.push(start)); // the finishing task hands over its slot
      try {
        return await task();
      } finally {
        const next = waiting.shift();
        if (next) next();
        else active--;
      }
    },
    get active() {
      return active;
    },
  };
}
