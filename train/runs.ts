// Training runs of a job, in training processes (train/trainingProcesses.ts: two cores train two
// runs at once): a finished run is reused, an interrupted one resumed, a failed one reported with
// the end of its log.
import { existsSync, mkdirSync, readdirSync, rmdirSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { writeFileAtomic } from '../src/io/atomic.ts';
import { failedRuns, RefusedError, UserError } from '../src/io/errors.ts';
import { interrupted } from '../src/io/interrupt.ts';
import { progress } from '../src/progress.ts';
import { withLock, withLockSync } from '../src/io/lock.ts';
import { readCheckpointHead } from './checkpoint.ts';
import { resolveConfig, runDone, type TrainConfig } from './config.ts';
import { identityDifferences } from './identity.ts';
import { clearRun, runFiles } from './runFolder.ts';
import { trainingProcesses, type Trained, type TrainingProcesses } from './trainingProcesses.ts';

export interface RunStatus {
  /** Start a run (none there), resume an interrupted one, or reuse a finished one. */
  action: 'start' | 'resume' | 'reuse';
  /** The epoch of the run's checkpoint (0 when none). */
  epoch: number;
  /** How the run there differs from the one asked for (its settings, its cache content): empty when it is this run. */
  differences: string[];
}

/**
 * What a job would do with run folder `settings.out` to train `settings` on a cache of content
 * `cacheHash`: start, resume or reuse, and whether the run there is another one (train/identity.ts).
 */
export function runStatus(settings: Partial<TrainConfig> & { out: string }, cacheHash: string): RunStatus {
  const file = runFiles(settings.out).checkpoint;
  if (!existsSync(file)) return { action: 'start', epoch: 0, differences: [] };
  const saved = readCheckpointHead(file);
  const differences = identityDifferences({ config: saved.config as Partial<TrainConfig>, cacheHash: saved.cacheHash }, { settings, cacheHash });
  return { action: runDone(resolveConfig(settings), saved) ? 'reuse' : 'resume', epoch: saved.epoch, differences };
}

/** A finished run of `config` in its folder (by its checkpoint's epoch and step alone: the caller knows it is its own run). */
export const isFinished = (config: TrainConfig) =>
  existsSync(runFiles(config.out).checkpoint) && runDone(config, readCheckpointHead(runFiles(config.out).checkpoint));

/** The refusal of a run folder holding another run, naming each difference. */
export const otherRunError = (out: string, differences: string[]) =>
  new RefusedError(
    `${out} holds a run of other settings or another cache (${differences.join('; ')}): pass --force to train it anew there, or choose another folder`,
  );

/**
 * How a job treats run folder `settings.out`: reuse the run there if it is this one and finished,
 * resume it if interrupted; a run of other settings or another cache is an error naming each
 * difference, or, with `force`, emptied (under its lock) to be trained anew.
 */
export function checkRun(settings: Partial<TrainConfig> & { out: string }, cacheHash: string, force = false): RunStatus {
  const status = runStatus(settings, cacheHash);
  if (status.differences.length === 0) return status;
  if (!force) throw otherRunError(settings.out, status.differences);
  withLockSync(settings.out, 'a training run (emptied by --force)', () => clearRun(settings.out));
  return { action: 'start', epoch: 0, differences: [] };
}

/** How a job's run ended: reused (finished earlier), or trained now, with its time split and wall time. */
export type RunOutcome = { status: 'reused' } | { status: 'trained'; trained: Trained };

/**
 * Train `settings` (which name their `out` folder) unless this run is finished there already, in
 * one of `processes` (warm training processes a job keeps for its runs), or else in a process of
 * its own; the process's stderr goes to `<out>/train.log`; `onEpoch` is called at every validation
 * line. `cacheHash`: the content of the settings' cache (a run of another is not reused, see checkRun).
 */
export async function runTraining(
  settings: Partial<TrainConfig> & { out: string },
  cacheHash: string,
  onEpoch: () => void,
  o: { force?: boolean; processes?: TrainingProcesses } = {},
): Promise<RunOutcome> {
  const out = settings.out;
  if (checkRun(settings, cacheHash, o.force).action === 'reuse') {
    await completeFinished(out);
    return { status: 'reused' };
  }
  const stopping = interrupted();
  if (stopping) throw new RefusedError(`${out}: not started: the job is stopping (${stopping})`);
  const made = existsSync(out) ? undefined : mkdirSync(out, { recursive: true });
  const settingsFile = join(out, 'settings.json');
  const logFile = join(out, 'train.log');
  const fresh = [settingsFile, logFile].filter((f) => !existsSync(f));
  writeFileAtomic(settingsFile, [JSON.stringify(settings, null, 2) + '\n']);
  // train.log is the process's stderr as it comes: a kill of this job keeps what it said so far.
  writeFileAtomic(logFile, []);
  const processes = o.processes ?? trainingProcesses();
  try {
    return { status: 'trained', trained: await processes.train({ out, settingsFile, resume: existsSync(runFiles(out).checkpoint), logFile, onEpoch }) };
  } catch (e) {
    // Refused before its first checkpoint (its cache, its settings): no run is there, so nothing of
    // one is left (the refusal is its whole log); a folder of another run keeps its files.
    if (e instanceof UserError && fresh.length === 2 && !existsSync(runFiles(out).checkpoint)) {
      for (const f of fresh) rmSync(f, { force: true });
      if (made !== undefined) removeEmptyFolders(out, made);
      e.message = e.message.replace(` (all of it in ${logFile})`, '');
    }
    throw e;
  } finally {
    if (!o.processes) processes.close();
  }
}

/** Remove `dir` and its parents up to `top` while they are empty. */
function removeEmptyFolders(dir: string, top: string): void {
  for (let d = resolve(dir); ; d = dirname(d)) {
    if (readdirSync(d).length > 0) return;
    rmdirSync(d);
    if (d === resolve(top)) return;
  }
}

/**
 * A finished run reused: the files a run writes at its end, missing when its process was killed
 * between the last checkpoint and its exit, are written now (learning-curves.svg from log.jsonl),
 * under the run folder's lock (a lock left by the killed process is taken over, see src/io/lock.ts).
 */
export async function completeFinished(out: string): Promise<void> {
  await withLock(out, 'a finished training run (its end-of-run files)', async () => {
    if (!existsSync(runFiles(out).curves)) await (await import('./curves.ts')).writeRunCurves(out);
  });
}

/**
 * Run `task` over `items`, `workers` at a time; results (or errors) in item order. `drained` is
 * called each time a worker finds no item left to start (the others may still be running theirs).
 */
export async function pool<T, R>(items: T[], workers: number, task: (item: T) => Promise<R>, drained?: () => void): Promise<PromiseSettledResult<R>[]> {
  const results: PromiseSettledResult<R>[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(workers, items.length) }, async () => {
      for (let i = next++; i < items.length; i = next++) {
        try {
          results[i] = { status: 'fulfilled', value: await task(items[i]) };
        } catch (e) {
          results[i] = { status: 'rejected', reason: e };
        }
      }
      drained?.();
    }),
  );
  return results;
}

/**
 * Train `runs` (each naming its `out` folder; finished ones reused, interrupted ones resumed, see
 * runTraining), `workers` at a time in warm training processes (a run after the first in a process
 * finds the cache, its embeddings and ONNX Runtime loaded), under a progress bar of their epochs;
 * `before` is awaited before each run starts. Returns each run's outcome in order; runs that failed
 * are one error.
 */
export async function trainRuns(
  runs: (Partial<TrainConfig> & { out: string })[],
  cacheHash: string,
  o: {
    workers: number;
    label: string;
    force?: boolean;
    before?: (settings: Partial<TrainConfig> & { out: string }) => Promise<void>;
    /** The job's training processes, kept for what it does next (the caller closes them); default: processes of these runs alone. */
    processes?: TrainingProcesses;
    /** Called once, when the first worker finds no run left to start: its process idles while the other runs finish. */
    idle?: () => void;
  },
): Promise<RunOutcome[]> {
  const bar = progress(
    o.label,
    runs.reduce((s, r) => s + resolveConfig(r).epochs, 0),
  );
  let done = 0;
  const processes = o.processes ?? trainingProcesses();
  let idle = o.idle;
  const trained = await pool(
    runs,
    o.workers,
    async (r) => {
      await o.before?.(r);
      return runTraining(r, cacheHash, () => bar.update(++done), { force: o.force, processes });
    },
    () => {
      idle?.();
      idle = undefined;
    },
  ).finally(() => (o.processes ? undefined : processes.close()));
  bar.stop();
  const failed = trained.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed.length)
    throw failedRuns(
      failed.map((f) => (f.reason as Error).message).join('\n'),
      failed.map((f) => f.reason),
    );
  return trained.map((r) => (r as PromiseFulfilledResult<RunOutcome>).value);
}
