// Training runs and a stop (SIGINT, SIGTERM: src/io/interrupt.ts). A run stops at once: it keeps its
// last checkpoint (written every epoch), which `train --resume` or the job's rerun continues from;
// what it says is where each run stands. A job's training processes (train/trainingProcesses.ts) ignore SIGINT,
// which a terminal's Ctrl-C sends to the whole process group: the job forwards SIGTERM to each child
// when it stops, waits for them to exit, then says which runs were saved. A queue's worker lets its
// running children finish instead (letChildrenFinish); if it exits before, they get SIGTERM then.
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { onInterrupt } from '../src/io/interrupt.ts';
import { readCheckpointHead } from './checkpoint.ts';
import { resolveConfig, runDone, type TrainConfig } from './config.ts';
import { runFiles } from './runFolder.ts';

/** Where the run in `out` stands: its checkpoint's epoch of the run's, its best epoch; or no checkpoint yet. */
export function savedRun(out: string): string {
  const file = runFiles(out).checkpoint;
  if (!existsSync(file)) return `${out}: no checkpoint yet (stopped before the first): the run starts anew`;
  const c = readCheckpointHead(file);
  const config = resolveConfig(c.config as Partial<TrainConfig>);
  const { epochs } = config;
  if (runDone(config, c)) return `${out}: finished (epoch ${c.epoch} of ${epochs})`;
  if (c.epoch === 0) return `${out}: saved its first checkpoint, before epoch 1 of ${epochs}; training starts there`;
  const best = c.best ? `; best.json: epoch ${c.best.epoch}` : '';
  return `${out}: saved the checkpoint of epoch ${c.epoch} of ${epochs}${best}; the epoch in progress is trained again`;
}

/** A stopped run says where it stands (a `train` command, a training child). */
export const sayRunOnStop = (out: string) => onInterrupt({ say: () => [savedRun(out)] });

/** The training children of this process, by their run folders; the runs it started (or resumed). */
const live = new Map<ChildProcess, string | undefined>();
const runs = new Set<string>();
let forward = true;

/** A queue's worker: a first signal lets the running children end (it stops taking cells meanwhile). */
export const letChildrenFinish = () => (forward = false);

let watching = false;
/**
 * Watch training child `child` of run `out` (train/runs.ts), or doing a task for the job (no `out`):
 * stopped with the job; returns the call for when it has exited.
 */
export function watchChild(child: ChildProcess, out?: string): () => void {
  if (!watching) {
    watching = true;
    // A worker's cells end or go back to the queue (its own line says so); a job's runs say where they stand.
    onInterrupt({ finish: () => (forward ? stopChildren() : undefined), say: () => (forward ? [...runs].map(savedRun) : []) });
    // Exiting otherwise (a second signal, an error): no child trains on without its job.
    process.on('exit', () => {
      for (const c of live.keys()) c.kill('SIGTERM');
    });
  }
  live.set(child, out);
  if (out !== undefined) runs.add(out);
  return () => live.delete(child);
}

/**
 * SIGTERM to every live child, and their exits awaited (each keeps its last checkpoint). Each is
 * referenced while awaited: one whose task ends meanwhile goes idle, unreferenced (train/trainingProcesses.ts),
 * and this process, with nothing else to wait on, would exit before its stop is said.
 */
const stopChildren = () =>
  Promise.all(
    [...live.keys()].map(
      (c) =>
        new Promise<void>((exited) => {
          c.once('close', () => exited());
          c.ref();
          c.kill('SIGTERM');
        }),
    ),
  );
