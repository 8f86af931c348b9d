// A run's time split: setup's parts add up to setup, only setup's time goes to them, and the run's
// `time:` line says each part (train/timeSplit.ts).
import { afterEach, expect, it, vi } from 'vitest';
import { phaseClock, splitLine, TimeSplit } from '../../train/timeSplit.ts';

afterEach(() => {
  vi.useRealTimers();
});

it("setup's time goes to the part marked last, and the parts add up to setup; the time line says them", () => {
  vi.useFakeTimers({ toFake: ['performance'] });
  const clock = phaseClock();
  vi.advanceTimersByTime(100); // other
  clock.part('load');
  vi.advanceTimersByTime(2000);
  clock.part('embeddings');
  vi.advanceTimersByTime(5000);
  clock.part('engine');
  vi.advanceTimersByTime(700);
  clock.enter('steps');
  vi.advanceTimersByTime(9000); // steps: no part of setup
  clock.enter('setup'); // back in setup (a resumed run's provenance and log): part 'other' again
  vi.advanceTimersByTime(300);
  clock.enter('end');
  const t = clock.split();
  expect(TimeSplit.parse(t)).toEqual(t);
  expect(t.setupParts).toEqual({ hash: 0, load: 2, environments: 0, embeddings: 5, replays: 0, engine: 0.7, other: 0.4 });
  expect(t.setup.seconds).toBeCloseTo(8.1, 6);
  expect(t.steps.seconds).toBe(9);
  expect(splitLine(t)).toBe(
    'setup 8.1 s (hash 0.0, load 2.0, environments 0.0, embeddings 5.0, replays 0.0, engine 0.7, other 0.4), 1 step 9.0 s, 0 validations 0.0 s, 0 checkpoints 0.0 s, end 0.0 s (17.1 s)',
  );
});
