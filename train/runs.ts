// Training runs in child processes (so two cores train two runs at once): a finished run is
// reused, an interrupted one resumed, a failed one reported with the end of its log.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { appendToFile, writeFileAtomic } from '../src/io/atomic.ts';
import { RefusedError, UserError } from '../src/io/errors.ts';
import { interrupted, STOP_EXIT } from '../src/io/interrupt.ts';
import { withLock, withLockSync } from '../src/io/lock.ts';
import { LAUNCHED_BY } from '../src/provenance.ts';
import { resolveConfig, type TrainConfig } from './config.ts';
import { readCheckpoint } from './checkpoint.ts';
import { identityDifferences } from './identity.ts';
import { clearRun, runFiles } from './runFolder.ts';
import { watchChild } from './stopped.ts';
import type { ChildFailure } from './trainChild.ts';

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
  const saved = readCheckpoint(file);
  const differences = identityDifferences({ config: saved.config as Partial<TrainConfig>, cacheHash: saved.cacheHash }, { settings, cacheHash });
  return { action: saved.epoch >= resolveConfig(settings).epochs ? 'reuse' : 'resume', epoch: saved.epoch, differences };
}

/** A finished run in `out` (by its checkpoint's epoch alone: the caller knows it is its own run). */
export const isFinished = (out: string, epochs: number) => existsSync(runFiles(out).checkpoint) && readCheckpoint(runFiles(out).checkpoint).epoch >= epochs;

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

/**
 * Train `settings` (which name their `out` folder) unless this run is finished there already; the
 * child's stderr goes to `<out>/train.log`; `onEpoch` is called at every validation line.
 * `cacheHash`: the content of the settings' cache (a run of another is not reused, see checkRun).
 */
export async function runTraining(
  settings: Partial<TrainConfig> & { out: string },
  cacheHash: string,
  onEpoch: () => void,
  force = false,
): Promise<'reused' | 'trained'> {
  const out = settings.out;
  if (checkRun(settings, cacheHash, force).action === 'reuse') {
    await completeFinished(out);
    return 'reused';
  }
  const stopping = interrupted();
  if (stopping) throw new RefusedError(`${out}: not started: the job is stopping (${stopping})`);
  mkdirSync(out, { recursive: true });
  const settingsFile = join(out, 'settings.json');
  writeFileAtomic(settingsFile, [JSON.stringify(settings, null, 2) + '\n']);
  const args = ['--import', TSX_LOADER, fileURLToPath(new URL('./trainChild.ts', import.meta.url)), settingsFile];
  if (existsSync(runFiles(out).checkpoint)) args.push('--resume');
  // train.log is the child's stderr as it comes: a kill of this job keeps what the child said so far.
  const logFile = join(out, 'train.log');
  writeFileAtomic(logFile, []);
  return new Promise((resolve, reject) => {
    // The child's provenance names the job (main, ablate) that started it; the error it fails on
    // comes back over the IPC channel (trainChild.ts) as well as in its log.
    const child = spawn(process.execPath, args, {
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
      env: { ...process.env, [LAUNCHED_BY]: JSON.stringify(process.argv.slice(1)) },
    });
    const exited = watchChild(child, out); // a stop of this job stops the child (train/stopped.ts)
    let log = '';
    let logging = true;
    let failure: ChildFailure | undefined;
    child.on('message', (m: ChildFailure) => (failure = m));
    child.stderr!.on('data', (chunk: Buffer) => {
      const text = chunk.toString();
      log += text;
      // A copy for the user: a full disk stops it (said once); the run's own log is its log.jsonl.
      if (logging)
        try {
          appendToFile(logFile, text);
        } catch (e) {
          logging = false;
          console.error(`warning: ${(e as Error).message}`);
        }
      for (const _ of text.matchAll(/^epoch \d+:/gm)) onEpoch();
    });
    // 'close', not 'exit': by then the last of its stderr and its message have come.
    child.on('close', (code, signal) => {
      exited();
      if (code === 0) return resolve('trained');
      reject(childError(out, logFile, log, code, signal, failure));
    });
  });
}

/**
 * Why a training child failed (trainChild.ts): a user error, relayed as a UserError; a bug, an Error
 * caused by the child's (its stack); a crash (killed, or an error Node raised before the training
 * started), an Error saying the end of its log. Either Error has the child's `exitCode` (null when killed).
 */
export function childError(out: string, logFile: string, log: string, code: number | null, signal: string | null, failure?: ChildFailure): Error {
  const stop = Object.entries(STOP_EXIT).find(([, exit]) => exit === code)?.[0];
  // Stopped by a signal (exit 130 or 143): it kept its last checkpoint; like a kill, not a failure of its settings.
  if (stop) return Object.assign(new Error(`training in ${out} stopped by ${stop}: ${lastWords(log)}`), { exitCode: null });
  const failed = `training in ${out} failed (exit ${code ?? signal})`;
  if (failure && 'userError' in failure) return new UserError(`${failed}: ${failure.userError} (all of it in ${logFile})`);
  if (!failure) return Object.assign(new Error(`${failed}: ${lastWords(log)} (all of it in ${logFile})`), { exitCode: code });
  const bug = Object.assign(new Error(), { stack: failure.bug });
  return Object.assign(new Error(`${failed}: ${failure.bug.split('\n')[0]}; a bug in cpp-workbench: its stack trace is in ${logFile}`, { cause: bug }), {
    exitCode: code,
  });
}

/**
 * tsx's loader by its absolute location (this package's own tsx): `--import tsx` would be resolved
 * from the working folder, where a job run from outside the package finds none.
 */
const TSX_LOADER = import.meta.resolve('tsx');

/** The end of a failed child's stderr that says why: its last lines, less the stack frames and Node's version line. */
export function lastWords(log: string): string {
  const lines = log
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('at ') && !/^Node\.js v\d/.test(l));
  // An uncaught error ends with its stack and properties: its message is the line naming the error.
  return lines.filter((l) => /^[\w.]*(Error|Exception)\b.*:/.test(l)).at(-1) ?? lines.slice(-3).join(' | ');
}

/**
 * A finished run reused: the files a run writes at its end, missing when its process was killed
 * between the last checkpoint and its exit, are written now (learning-curves.svg from log.jsonl),
 * under the run folder's lock (a lock left by the killed process is taken over, see src/io/lock.ts).
 */
async function completeFinished(out: string): Promise<void> {
  await withLock(out, 'a finished training run (its end-of-run files)', async () => {
    if (!existsSync(runFiles(out).curves)) await (await import('./curves.ts')).writeRunCurves(out);
  });
}

/** Run `task` over `items`, `workers` at a time; results (or errors) in item order. */
export async function pool<T, R>(items: T[], workers: number, task: (item: T) => Promise<R>): Promise<PromiseSettledResult<R>[]> {
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
    }),
  );
  return results;
}
