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
  /**
   * Send `request` to the idle process that ran last (a new one when none is idle), for a task its
   * entry serves (trainingProcess.ts serveTasks); `what` names it in an error. Its stderr goes to this
   * process's; resolves to its answer, rejects as childError says.
   */
  task<T>(request: object, what: string): Promise<T>;
  /** End every process (idle ones at once; call it when no run is out); resolves once they have exited. */
  close(): Promise<void>;
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

/** A task in progress (TrainingProcesses.task). */
interface Task {
  what: string;
  log: string;
  unwatch: () => void;
  resolve: (answer: unknown) => void;
  reject: (e: Error) => void;
}

interface Process {
  child: ChildProcess;
  run?: Running;
  task?: Task;
}

/** The module the processes run: train/trainingProcess.ts, or an entry that imports it and serves tasks too (`from`: its import.meta.url, `name`: its path from there without extension). */
export interface ProcessEntry {
  from: string;
  name: string;
}

export function trainingProcesses(entry: ProcessEntry = { from: import.meta.url, name: './trainingProcess' }): TrainingProcesses {
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
    const child = spawn(process.execPath, moduleArgs(entry.from, entry.name), {
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
      env: { ...process.env, [LAUNCHED_BY]: JSON.stringify(process.argv.slice(1)) },
    });
    const p: Process = { child };
    all.add(p);
    // What Node itself writes (a crash's last words) comes on the real stderr: the run's log, or this job's between runs.
    child.stderr!.on('data', (chunk: Buffer) => (p.run ? logged(p.run, chunk.toString()) : said(p, chunk.toString())));
    child.on('message', (m: RunReply) => {
      if ('log' in m) return p.run ? logged(p.run, m.log) : said(p, m.log);
      if (p.task) return taskEnded(p, m);
      const r = endRun(p)!;
      if ('done' in m) {
        r.resolve({ time: m.done, seconds: (performance.now() - r.started) / 1000 });
        hold(p, false);
        idle.push(p);
        return;
      }
      retire(p);
      if ('failed' in m) r.reject(childError(r.out, r.logFile, r.log, m.code, null, m.failed));
      else r.reject(new Error(`training in ${r.out}: the process answered as a task does`));
    });
    child.on('error', (e) => {
      // It could not be started (or signalled): the run fails with that error.
      retire(p);
      endRun(p)?.reject(e);
      endTask(p)?.reject(e);
    });
    // 'close', not 'exit': by then the last of its stderr has come.
    child.on('close', (code, signal) => {
      retire(p);
      const r = endRun(p);
      r?.reject(childError(r.out, r.logFile, r.log, code, signal));
      const t = endTask(p);
      t?.reject(childError(t.what, 'the output above', t.log, code, signal, undefined, t.what));
    });
    return p;
  }

  /** What a process says between runs (a task's lines, a crash's last words): this process's stderr. */
  const said = (p: Process, text: string) => {
    if (p.task) p.task.log += text;
    process.stderr.write(text);
  };
  const endTask = (p: Process) => {
    const t = p.task;
    p.task = undefined;
    t?.unwatch();
    return t;
  };
  /** A task's answer, or why it failed (then the process is not reused, as after a failed run). */
  function taskEnded(p: Process, m: Exclude<RunReply, { log: string }>) {
    const t = endTask(p)!;
    if ('answer' in m) {
      hold(p, false);
      idle.push(p);
      return t.resolve(m.answer);
    }
    retire(p);
    if ('done' in m) return t.reject(new Error(`${t.what}: the process answered as a run does`));
    // As if the task had failed in this process: a user error its message (and exit code), a bug its stack.
    const f = m.failed;
    if ('userError' in f) return t.reject(Object.assign(new UserError(f.userError), { exitCode: m.code }));
    t.reject(Object.assign(new Error(f.bug.split('\n')[0]), { stack: f.bug }));
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
    task<T>(request: object, what: string) {
      const p = idle.pop() ?? start();
      hold(p, true);
      return new Promise<T>((resolve, reject) => {
        p.task = { what, log: '', unwatch: watchChild(p.child), resolve: resolve as (answer: unknown) => void, reject };
        p.child.send(request);
      });
    },
    close() {
      const exits = [...all].map((p) => {
        // 'exit' (the process reaped), not 'close': an idle process's stderr may not report its end.
        const exited = p.child.exitCode !== null || p.child.signalCode !== null ? Promise.resolve() : new Promise<void>((e) => p.child.once('exit', () => e()));
        hold(p, true); // an idle process's handles, unreferenced, would let this one exit before it is awaited
        retire(p);
        if (p.run || p.task) p.child.kill();
        return exited;
      });
      return Promise.all(exits).then(() => {});
    },
  };
}

/**
 * Why a run in a training process failed: a user error, relayed as a UserError; a bug, an Error
 * caused by the process's (its stack); a crash (killed, or an error Node raised before the training
 * started), an Error saying the end of its log. Either Error has an `exitCode`: the one a command
 * would exit with (1, 70), or the crashed process's (null when killed).
 */
export function childError(
  out: string,
  logFile: string,
  log: string,
  code: number | null,
  signal: string | null,
  failure?: ChildFailure,
  /** What the process did, when not training the run in `out` (a task). */
  what = `training in ${out}`,
): Error {
  const stop = Object.entries(STOP_EXIT).find(([, exit]) => exit === code)?.[0];
  // Stopped by a signal (exit 130 or 143): it kept its last checkpoint; like a kill, not a failure of its settings.
  if (stop) return Object.assign(new Error(`${what} stopped by ${stop}: ${lastWords(log)}`), { exitCode: null });
  const failed = `${what} failed (exit ${code ?? signal})`;
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
