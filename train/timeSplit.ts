// Where a training session's wall time goes: setup (settings and cache checks, cache, embeddings,
// environments, Full-Debate replays, engine), the training steps, the validation evaluations, the
// checkpoints written, and the end (learning curves, closing files). The trainer marks where each
// phase starts; the time up to the next mark is that phase's. A run's provenance keeps the split
// of each session, train.log says it in one line, and a grid's job prints what a cell spent beyond
// its training steps (train/grid.ts).
import { z } from 'zod';

export const PHASES = ['setup', 'steps', 'validation', 'checkpoints', 'end'] as const;
export type Phase = (typeof PHASES)[number];

const Part = z.strictObject({ seconds: z.number().nonnegative(), count: z.number().int().nonnegative() });
/** Seconds of each phase and how many times it was entered (steps taken, evaluations, checkpoints written). */
export const TimeSplit = z.strictObject(Object.fromEntries(PHASES.map((p) => [p, Part])) as Record<Phase, typeof Part>);
export type TimeSplit = z.infer<typeof TimeSplit>;

/** A clock in phase `setup` from now on; `enter` switches phases, `split` reads the seconds so far. */
export function phaseClock() {
  const split = Object.fromEntries(PHASES.map((p) => [p, { seconds: 0, count: 0 }])) as TimeSplit;
  let phase: Phase = 'setup';
  let since = performance.now();
  const settle = () => {
    const now = performance.now();
    split[phase].seconds += (now - since) / 1000;
    since = now;
  };
  split.setup.count = 1;
  return {
    /** The time from here to the next mark belongs to `next`; a step, an evaluation or a checkpoint entered counts one. */
    enter(next: Phase): void {
      settle();
      split[next].count = next === 'setup' || next === 'end' ? 1 : split[next].count + 1;
      phase = next;
    },
    /** The split up to now, in milliseconds' precision. */
    split(): TimeSplit {
      settle();
      return Object.fromEntries(PHASES.map((p) => [p, { seconds: Math.round(split[p].seconds * 1000) / 1000, count: split[p].count }])) as TimeSplit;
    },
  };
}

/** The split as one line: `setup 2.9 s, 114 steps 9.5 s, 3 validations 0.5 s, 4 checkpoints 0.6 s, end 1.0 s (14.5 s)`. */
export function splitLine(t: TimeSplit): string {
  const s = (x: number) => `${x.toFixed(1)} s`;
  const counted = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`;
  const total = PHASES.reduce((sum, p) => sum + t[p].seconds, 0);
  return (
    `setup ${s(t.setup.seconds)}, ${counted(t.steps.count, 'step')} ${s(t.steps.seconds)}, ${counted(t.validation.count, 'validation')} ` +
    `${s(t.validation.seconds)}, ${counted(t.checkpoints.count, 'checkpoint')} ${s(t.checkpoints.seconds)}, end ${s(t.end.seconds)} (${s(total)})`
  );
}
