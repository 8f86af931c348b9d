// SIGINT (Ctrl-C) and SIGTERM (a scheduler, `kill`): a long command stops cleanly. The first signal
// runs what the command registered to finish first (a job forwards it to its training children and
// waits for them; a queue worker lets its running cells end), then says what was saved and the exact
// command that continues, and exits 130 (SIGINT) or 143 (SIGTERM), as a shell reports a process
// killed by the signal. Locks are released and this process's temporary files removed at exit
// (lock.ts, atomic.ts). A second signal exits at once. Every file is written atomically or appended
// whole, so stopping at any turn of the event loop leaves nothing half-written; long work that awaits
// only promises (training steps, embedding batches) lets signals in every 50 ms (letSignalsIn), and
// long synchronous work (validating a cache, importing files) is a generator of steps run with stop
// points between them (stoppableSteps); a synchronous stretch in progress ends first, since a signal
// is handled between turns; one that arrives in a command's last such stretch (the few writes after
// a cache's rename) is said once the command is done (exit 0), with how long the event loop had
// been held when it was handled: a long stretch there is a missing stop point, and it says so.

export type StopSignal = 'SIGINT' | 'SIGTERM';

/** The exit status of a process stopped by `signal`: 128 + its number. */
export const STOP_EXIT: Record<StopSignal, number> = { SIGINT: 130, SIGTERM: 143 };

/** What a command registers: work to finish before the process exits, and what to say once it has. */
export interface Stop {
  /** Awaited before the process exits (a second signal exits at once). */
  finish?: (signal: StopSignal) => Promise<unknown> | undefined;
  /** Lines saying what was saved (run at exit, after every finish). */
  say?: () => string[];
}

const stops = new Set<Stop>();
let stopping: StopSignal | undefined;
let finished = false;
/** The line saying how to continue: a command's own (continueWith), else the default of handleInterrupts (the same command again). */
let continuing: () => string | undefined = () => undefined;
let again: () => string | undefined = () => undefined;

/** Register `stop` while a command runs; returns the call that removes it. */
export function onInterrupt(stop: Stop): () => void {
  stops.add(stop);
  return () => stops.delete(stop);
}

/** The signal the process is stopping on, if any: work not started yet should not start. */
export const interrupted = (): StopSignal | undefined => stopping;

/** The line that says how to continue after a stop (`to continue: npx cpp-workbench train --resume ...`); undefined: the default. */
export function continueWith(line: () => string | undefined): void {
  continuing = line;
}

/**
 * Called when a command has done all its work. A signal that arrived during its last synchronous
 * stretch (embedding, a cache's check before its rename, an import) is handled only at the next turn
 * of the event loop, and Node, with nothing left to do, would exit 0 before it: give it that turn so
 * it is said, not lost.
 */
export async function commandFinished(): Promise<void> {
  finished = true;
  await pollTwice();
}

/**
 * Two turns of the event loop: the first may run in the check phase of the turn in progress, before
 * any poll for a signal; the second runs after the next turn's poll, where a pending signal is handled.
 */
async function pollTwice(): Promise<void> {
  for (let turn = 0; turn < 2; turn++) await new Promise((next) => setImmediate(next));
}

let lastTurn = 0;
/**
 * Let a signal (or a parent's death, an IPC disconnect) in during long work: work that awaits only
 * promises (TF.js's CPU math, a loop over a cache's records) never reaches the event loop's poll,
 * where they are noticed. Every 50 ms of such work, two turns of the loop (pollTwice). Call it once
 * per step of the work.
 */
export async function letSignalsIn(): Promise<void> {
  if (performance.now() - lastTurn < 50) return;
  await pollTwice();
  lastTurn = performance.now();
}

/** Never settles: a command that ended (or failed) because it was interrupted waits here for the stop to exit. */
export const untilStopped = (): Promise<never> => new Promise(() => {});

/**
 * The part of the work the last named stop point was in (stopPoint's `at`, a step's yielded name),
 * kept on globalThis under this key so that a test's preloaded fixture
 * (tests/fixtures/sigintAtFirstTurn.mjs, SIGINT_AT) can stop a command at a stop point of that part.
 */
export const STOP_POINT_KEY = Symbol.for('cpp-workbench.stopPoint');

/**
 * A point where long work may stop: signals are let in (letSignalsIn), and once the process is
 * stopping it never returns. `at` names the part of the work it is in (STOP_POINT_KEY).
 */
export async function stopPoint(at?: string): Promise<void> {
  if (at !== undefined) (globalThis as Record<symbol, unknown>)[STOP_POINT_KEY] = at;
  await letSignalsIn();
  if (interrupted()) await untilStopped();
}

/**
 * Long synchronous work (validating a cache, importing files) is written as a generator that yields
 * between its steps (a line, a problem). `runSteps` runs it through at once (a library call);
 * `stoppableSteps` makes a stop point of every step, so that Ctrl-C stops it within the step in
 * progress, and what the command registered (onInterrupt) says how far it got. A step may yield
 * the name of the part of the work it is in (stopPoint's `at`).
 */
export function runSteps<T>(steps: Generator<unknown, T>): T {
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

export async function stoppableSteps<T>(steps: Generator<unknown, T>): Promise<T> {
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
    await stopPoint(typeof step.value === 'string' ? step.value : undefined);
  }
}

/**
 * Stop on SIGINT and SIGTERM as the header says, printing with `print`; `again`: the line saying how
 * to continue unless the command says another; `ignore`: signals left to the parent (a training
 * child of a job: a terminal's Ctrl-C reaches the whole process group, and the job forwards SIGTERM
 * to its children when it stops them).
 */
export function handleInterrupts(o: { print?: (line: string) => void; again?: () => string; ignore?: StopSignal[] } = {}): void {
  const print = o.print ?? console.error;
  const ignore = o.ignore ?? [];
  if (o.again) again = o.again;
  setInterval(() => {
    const now = performance.now();
    lastLate = now - lastTick - TICK_MS;
    lastTick = now;
  }, TICK_MS).unref();
  for (const signal of ['SIGINT', 'SIGTERM'] as const)
    process.on(signal, () => {
      if (ignore.includes(signal)) return;
      if (stopping) process.exit(STOP_EXIT[stopping]); // the second signal: at once
      if (finished) return print(finishedLine(signal));
      stopping = signal;
      void stop(signal, print);
    });
}

/** Every TICK_MS the event loop is free, the time: a signal handled later than that waited for the work that held the loop. */
const TICK_MS = 100;
let lastTick = performance.now();
/** How much later than due the last tick came: the event loop was held that long before it (a timer fires before a signal is handled in the same turn). */
let lastLate = 0;

/** A stop handled this long after it could have been is late (the goal: within half a second). */
const LATE_MS = 500;

/** What a signal handled after the command's work says: done, or done because nothing let it in. */
function finishedLine(signal: StopSignal): string {
  const sinceTick = performance.now() - lastTick;
  const held = Math.max(sinceTick - TICK_MS, sinceTick < TICK_MS ? lastLate : 0);
  return held > LATE_MS
    ? `${signal} arrived while the command ran up to ${(held / 1000).toFixed(1)} s without a stop point, and it finished meanwhile: its work is done and ` +
        'saved; nothing was stopped, nothing to continue (work that long should let a stop in: src/io/interrupt.ts)'
    : `${signal} arrived as the command finished: its work is done and saved; nothing was stopped, nothing to continue`;
}

async function stop(signal: StopSignal, print: (line: string) => void): Promise<void> {
  print(`\n${signal === 'SIGINT' ? 'interrupted (SIGINT)' : 'stopped by SIGTERM'}: stopping (signal again to stop at once)`);
  await Promise.allSettled([...stops].map(async (s) => s.finish?.(signal)));
  for (const s of stops)
    try {
      for (const line of s.say?.() ?? []) print(line);
    } catch (e) {
      print(`(what was saved cannot be said: ${(e as Error).message})`);
    }
  const next = continuing() ?? again();
  if (next) print(next);
  process.exit(STOP_EXIT[signal]);
}
