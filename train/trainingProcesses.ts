// Warm training processes: child processes (train/trainingProcess.ts) that train one run at a time
// and stay for the next, so that the runs of a grid or of the main job after the first on a cache
// skip the start-up (Node, tsx, the modules), loading the cache, fitting its response model,
// reading its embeddings and starting ONNX Runtime. Processes, not worker threads: each has its own
// ONNX Runtime with its own native threads (--threads), its own heap, and a crash (a native abort,
// running out of memory, kill -9) takes down that process and its run only; the next run starts a
// fresh process. A run that fails with an error of its own (a user error or a bug) is said as a
// process of its own would say it, and its process is not reused (a bug may have left it in a
// state no other run should start from). A stop of the job (SIGINT, SIGTERM) stops the runs in
// progress as train/stopped.ts says: the processes ignore a terminal's SIGINT, the job sends each
// busy one SIGTERM, and each keeps its run's last checkpoint and exits 143.
import { type ChildProcess, spawn } from 'node:child_process';
import { moduleArgs } from '../src/io/childModule.ts';
import { appendToFile } from '../src/io/atomic.ts';
import { UserError } from '../src/io/errors.ts';
import { STOP_EXIT } from '../src/io/interrupt.ts';
import { LAUNCHED_BY } from '../src/provenance.ts';
import type { ChildFailure, RunReply, RunRequest } from './trainingProcess.ts';
import { watchChild } from './stopped.ts';
import type { TimeSplit } from './timeSplit.ts';

/** One run for a process: its folder, settings file, and where its log goes. */
export interface RunJob extends RunRequest {
  out: string;
  /** The run's train.log: everything the process writes while it trains this run, as it comes. */
  logFile: string;
  /** Called at every validation line (`epoch N: ...`). */
  onEpoch: () => void;
}

/** A trained run: its time split, and the wall seconds from asking a process to its answer. */
export interface Trained {
  time: TimeSplit;
  seconds: number;
}

export interface TrainingProcesses {
  /** Train `job` in an idle process (a new one when none is idle); rejects as runs.ts childError says. */
  train(job: RunJob): Promise<Trained>;
  /** End every process (idle ones at once; call it when no run is out). */
  close(): void;
}

interface Running extends RunJob {
  log: string;
  /** Whether train.log is still written: a full disk stops the copy (said once); the run's own log is its log.jsonl. */
  logging: boolean;
  started: number;
  /** Called when the run ends (train/stopped.ts watches the process while it trains this run). */
  unwatch: () => void;
  resolve: (t: Trained) => void;
  reject: (e: Error) => void;
}

interface Process {
  child: ChildProcess;
  run?: Running;
}

export function trainingProcesses(): TrainingProcesses {
  const idle: Process[] = [];
  const all = new Set<Process>();

  // An idle process does not keep this one alive (it exits when its channel closes).
  const hold = (p: Process, busy: boolean) => {
    for (const handle of [p.child, p.child.channel, p.child.stderr] as ({ ref(): void; unref(): void } | null | undefined)[])
      busy ? handle?.ref() : handle?.unref();
  };
  const logged = (r: Running, text: string) => {
    r.log += text;
    if (r.logging)
      try {
        appendToFile(r.logFile, text);
      } catch (e) {
        r.logging = false;
        console.error(`warning: ${(e as Error).message}`);
      }
    for (const _ of text.matchAll(/^epoch \d+:/gm)) r.onEpoch();
  };

  /** The run `p` was training, now over: no longer the process's, nor watched for a stop. */
  const endRun = (p: Process) => {
    const r = p.run;
    p.run = undefined;
    r?.unwatch();
    return r;
  };

  function start(): Process {
    // Its provenance names the job (main, ablate, worker) that started it.
    const child = spawn(process.execPath, moduleArgs(import.meta.url, './trainingProcess'), {
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
      env: { ...process.env, [LAUNCHED_BY]: JSON.stringify(process.argv.slice(1)) },
    });
    const p: Process = { child };
    all.add(p);
    // What Node itself writes (a crash's last words) comes on the real stderr: the run's log, or this job's between runs.
    child.stderr!.on('data', (chunk: Buffer) => (p.run ? logged(p.run, chunk.toString()) : process.stderr.write(chunk)));
    child.on('message', (m: RunReply) => {
      if ('log' in m) return logged(p.run!, m.log);
      const r = endRun(p)!;
      if ('done' in m) {
        r.resolve({ time: m.done, seconds: (performance.now() - r.started) / 1000 });
        hold(p, false);
        idle.push(p);
        return;
      }
      retire(p);
      r.reject(childError(r.out, r.logFile, r.log, m.code, null, m.failed));
    });
    child.on('error', (e) => {
      // It could not be started (or signalled): the run fails with that error.
      retire(p);
      endRun(p)?.reject(e);
    });
    // 'close', not 'exit': by then the last of its stderr has come.
    child.on('close', (code, signal) => {
      retire(p);
      const r = endRun(p);
      r?.reject(childError(r.out, r.logFile, r.log, code, signal));
    });
    return p;
  }

  function retire(p: Process) {
    all.delete(p);
    if (idle.includes(p)) idle.splice(idle.indexOf(p), 1);
    if (p.child.connected) p.child.disconnect();
  }

  return {
    train(job) {
      const p = idle.pop() ?? start();
      hold(p, true);
      return new Promise<Trained>((resolve, reject) => {
        p.run = { ...job, log: '', logging: true, started: performance.now(), unwatch: watchChild(p.child, job.out), resolve, reject };
        p.child.send({ settingsFile: job.settingsFile, resume: job.resume } satisfies RunRequest);
      });
    },
    close() {
      for (const p of [...all]) {
        retire(p);
        if (p.run) p.child.kill();
      }
    },
  };
}

/**
 * Why a run in a training process failed: a user error, relayed as a UserError; a bug, an Error
 * caused by the process's (its stack); a crash (killed, or an error Node raised before the training
 * started), an Error saying the end of its log. Either Error has an `exitCode`: the one a command
 * would exit with (1, 70), or the crashed process's (null when killed).
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

/** The end of a failed process's stderr that says why: its last lines, less the stack frames and Node's version line. */
export function lastWords(log: string): string {
  const lines = log
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('at ') && !/^Node\.js v\d/.test(l));
  // An uncaught error ends with its stack and properties: its message is the line naming the error.
  return lines.filter((l) => /^[\w.]*(Error|Exception)\b.*:/.test(l)).at(-1) ?? lines.slice(-3).join(' | ');
}
