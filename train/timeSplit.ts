// Where a training session's wall time goes: setup (settings and cache checks, cache, embeddings,
// environments, Full-Debate replays, engine), the training steps, the validation evaluations, the
// checkpoints written, and the end (learning curves, closing files). Setup is split further into
// its parts (SETUP_PARTS), so that what a run spends before its first step is seen part by part. The trainer marks where each
// phase starts; the time up to the next mark is that phase's. A run's provenance keeps the split
// of each session, train.log says it in one line, and a grid's job prints what a cell spent beyond
// its training steps (train/grid.ts).
import { z } from 'zod';

export const PHASES = ['setup', 'steps', 'validation', 'checkpoints', 'end'] as const;
export type Phase = (typeof PHASES)[number];

/**
 * The parts of setup: the cache's content hash (a run's identity), loading the cache, the
 * environments (their replay indexes), the embeddings (made on a cache's first use), the
 * Full-Debate replays of the training and validation questions, the engine (its thread, the
 * forward graph built and its session created; the training graph is built with the first step),
 * and the rest (settings, checks, the first checkpoint's provenance, teams, the log).
 */
export const SETUP_PARTS = ['hash', 'load', 'environments', 'embeddings', 'replays', 'engine', 'other'] as const;
export type SetupPart = (typeof SETUP_PARTS)[number];

const Part = z.strictObject({ seconds: z.number().nonnegative(), count: z.number().int().nonnegative() });
/** Seconds of each phase and how many times it was entered (steps taken, evaluations, checkpoints written), and setup's seconds by part. */
export const TimeSplit = z.strictObject({
  ...(Object.fromEntries(PHASES.map((p) => [p, Part])) as Record<Phase, typeof Part>),
  // Absent in the provenance of runs from before setup was split.
  setupParts: z.strictObject(Object.fromEntries(SETUP_PARTS.map((p) => [p, z.number().nonnegative()])) as Record<SetupPart, z.ZodNumber>).optional(),
});
export type TimeSplit = z.infer<typeof TimeSplit>;

/** A clock in phase `setup` (part `other`) from now on; `enter` switches phases, `part` setup's parts, `split` reads the seconds so far. */
export function phaseClock() {
  const split = Object.fromEntries(PHASES.map((p) => [p, { seconds: 0, count: 0 }])) as unknown as Omit<TimeSplit, 'setupParts'>;
  const parts = Object.fromEntries(SETUP_PARTS.map((p) => [p, 0])) as Record<SetupPart, number>;
  let phase: Phase = 'setup';
  let part: SetupPart = 'other';
  let since = performance.now();
  const settle = () => {
    const now = performance.now();
    split[phase].seconds += (now - since) / 1000;
    if (phase === 'setup') parts[part] += (now - since) / 1000;
    since = now;
  };
  split.setup.count = 1;
  return {
    /** The time from here to the next mark belongs to `next`; a step, an evaluation or a checkpoint entered counts one. */
    enter(next: Phase): void {
      settle();
      split[next].count = next === 'setup' || next === 'end' ? 1 : split[next].count + 1;
      phase = next;
      part = 'other';
    },
    /** In setup: the time from here to the next mark belongs to its part `next`. */
    part(next: SetupPart): void {
      settle();
      part = next;
    },
    /** The split up to now, in milliseconds' precision. */
    split(): TimeSplit {
      settle();
      const ms = (x: number) => Math.round(x * 1000) / 1000;
      return {
        ...(Object.fromEntries(PHASES.map((p) => [p, { seconds: ms(split[p].seconds), count: split[p].count }])) as unknown as Omit<TimeSplit, 'setupParts'>),
        setupParts: Object.fromEntries(SETUP_PARTS.map((p) => [p, ms(parts[p])])) as Record<SetupPart, number>,
      };
    },
  };
}

/**
 * The split as one line: `setup 2.9 s (hash 0.1, load 0.3, environments 0.2, embeddings 0.1,
 * replays 0.6, engine 1.2, other 0.4), 114 steps 9.5 s, 3 validations 0.5 s, 4 checkpoints 0.6 s,
 * end 1.0 s (14.5 s)`.
 */
export function splitLine(t: TimeSplit): string {
  const s = (x: number) => `${x.toFixed(1)} s`;
  const counted = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`;
  const total = PHASES.reduce((sum, p) => sum + t[p].seconds, 0);
  const parts = t.setupParts ? ` (${SETUP_PARTS.map((p) => `${p} ${t.setupParts![p].toFixed(1)}`).join(', ')})` : '';
  return (
    `setup ${s(t.setup.seconds)}${parts}, ${counted(t.steps.count, 'step')} ${s(t.steps.seconds)}, ${counted(t.validation.count, 'validation')} ` +
    `${s(t.validation.seconds)}, ${counted(t.checkpoints.count, 'checkpoint')} ${s(t.checkpoints.seconds)}, end ${s(t.end.seconds)} (${s(total)})`
  );
}
