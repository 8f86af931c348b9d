// Entry of a warm training process: `node dist/train/trainingProcess.js` (or the source through tsx, src/io/childModule.ts), started by
// train/trainingProcesses.ts. It trains one run at a time, as its parent asks, and stays for the
// next, keeping loaded what runs share: the code, the cache with its fitted response model and
// its embeddings (src/cache/kept.ts), ONNX Runtime and its sessions (src/policy/onnxEngine.ts).
// Everything written to stderr while it trains (the trainer's lines, progress, warnings) goes to
// the parent as `log` messages, which it keeps in that run's train.log; so does an error, said as
// the command line says it (src/io/errors.ts reportError): a user error as its message, a bug as
// its stack. Then it says how the run ended: its time split, or the error (user error or bug).
import { dirname, join } from 'node:path';
import { appendToFile } from '../src/io/atomic.ts';
import { reportError, stackOf, userMessage } from '../src/io/errors.ts';
import { handleInterrupts, STOP_EXIT } from '../src/io/interrupt.ts';
import { readConfigFile, resolveConfig } from './config.ts';
import { savedRun, sayRunOnStop } from './stopped.ts';
import type { TimeSplit } from './timeSplit.ts';
import { train } from './trainer.ts';

/** What the parent asks: train the run whose settings are in `settingsFile` (the run is that file's folder). */
export interface RunRequest {
  settingsFile: string;
  resume: boolean;
}

/** Why a run failed: a user error's message, or a bug's stack. */
export type ChildFailure = { userError: string } | { bug: string };

/**
 * What the process sends: a piece of its stderr, then the run's time split (a task's answer, see
 * serveTasks), or why it failed and the exit code a command would give.
 */
export type RunReply = { log: string } | { done: TimeSplit } | { answer: unknown } | { failed: ChildFailure; code: number };

// A reply that cannot be sent (the job retired this process while it worked: it is stopping, or gone)
// is dropped, as a line is: nobody is there to read it, and the job learns of this process's end from
// its exit; the disconnect then ends this process (above). Raised, it would crash it with EPIPE.
const send = (reply: RunReply) => new Promise<void>((sent) => (process.connected ? process.send!(reply, () => sent()) : sent()));

/** Why `e` failed, with the exit code a command would give; said as the command line would say it (reportError) by `print`. */
async function sendFailure(e: unknown, print?: (text: string) => void): Promise<void> {
  const code = reportError(e, print);
  const said = userMessage(e);
  await send({ failed: said !== undefined ? { userError: said } : { bug: stackOf(e) }, code });
}

/** The run in progress, if any. */
let running: string | undefined;
const parent = process.ppid;

// The parent gone (its job ended, or was killed alone: kill -9, the OOM killer), this process has
// nobody to train for: a run in progress stops as a stop by signal stops it (it keeps its last
// checkpoint; the job's rerun continues it), and its train.log says why. The trainer lets the
// disconnect in between its steps (letSignalsIn).
process.on('disconnect', () => {
  if (running !== undefined)
    try {
      appendToFile(join(running, 'train.log'), `\nthe job that started this training process (pid ${parent}) is gone: stopping; ${savedRun(running)}\n`);
    } catch {
      // nowhere to say it: the checkpoint stands
    }
  process.exit(running === undefined ? 0 : STOP_EXIT.SIGTERM);
});

// A line written after the parent died, before the disconnect is noticed, fails to send: with no
// callback that failure would be an uncaught error, ending the process before the disconnect
// handler stops the run and says why. It is dropped: the parent is not there to read it.
const dropped = () => {};
process.stderr.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
  if (process.connected) process.send!({ log: typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8') } satisfies RunReply, dropped);
  const done = rest.find((r) => typeof r === 'function') as (() => void) | undefined;
  done?.();
  return true;
}) as typeof process.stderr.write;

// SIGTERM from the job (train/stopped.ts) stops the run in progress, keeping its last checkpoint, and
// exits 143; a terminal's SIGINT (sent to the whole process group) is the job's to act on.
handleInterrupts({ ignore: ['SIGINT'] });

process.on('message', async (m: RunRequest | object) => {
  if (!('settingsFile' in m)) return; // a task (serveTasks)
  const { settingsFile, resume } = m;
  const unsay = sayRunOnStop(dirname(settingsFile));
  running = dirname(settingsFile);
  try {
    // The run is the folder its settings file is in (a path saved in the file is never used to write);
    // its provenance names the run this process was asked for, as the command of a process of its own would.
    const command = [...process.argv.slice(1), settingsFile, ...(resume ? ['--resume'] : [])];
    const { time } = await train(resolveConfig(readConfigFile(settingsFile), { out: dirname(settingsFile) }), { resume, command });
    await send({ done: time });
  } catch (e) {
    await sendFailure(e);
  } finally {
    running = undefined;
    unsay();
  }
});

/**
 * Serve another kind of request than a run (`is` tells which) in this process, between runs: an
 * entry that imports this one adds it (jobs/trainingProcessMain.ts: the main job's comparison), so
 * that it finds loaded what the runs before it loaded. Its stderr goes to the parent as a run's does;
 * then it sends `handle`'s answer, or why it failed.
 */
export function serveTasks<T extends object>(is: (m: object) => m is T, handle: (request: T) => Promise<unknown>): void {
  process.on('message', async (m: object) => {
    if (!is(m)) return;
    try {
      await send({ answer: await handle(m) });
    } catch (e) {
      // Not said here: the parent says it as its own error.
      await sendFailure(e, () => {});
    }
  });
}
