// Kill trials: a command is killed (SIGKILL to it and its children) or stopped (SIGINT to its
// process group as a terminal's Ctrl-C does, SIGTERM to it alone as a scheduler does) at a seeded
// random moment after its start-up, then run again as a user would (the command a stopped one said
// continues it, resume, or the same command), and what it wrote is
// compared with an uninterrupted run's: byte for byte, but for the wall times and timestamps that
// tree.ts NORMALISATION names. Each trial also checks that nothing outside what the command
// writes changed, that every file it left parses (after the kill and after the rerun), and that no
// `*.tmp` file of the killed write is left after the rerun. Half the `train` trials resume a copy
// of the killed run folder: the original must not change. A command stopped by
// SIGINT or SIGTERM must also exit 130 or 143, say the command that continues, and leave no lock and
// no temporary file. Each trial says which phase of the run the kill landed in (start-up, training,
// evaluation, checkpoint, finishing; `writing` for commands without training).
import { existsSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import seedrandom from 'seedrandom';
import { cli, copyTree, freshDir, gitLockLeft, STACK_TRACE, tail, type CliRun, type StopSignal } from './harness.ts';
import { changes, leftoverTemp, normalisedTree, snapshot, tempNow, unparseable, type Snapshot } from './tree.ts';
import { DYLAN, INPUT } from './inputs.ts';

export interface KillCommand {
  name: string;
  /** The command, with paths relative to a copy of the inputs. */
  args: string[];
  /** What it writes (folders or files, relative): compared with the uninterrupted run; nothing else may change. */
  writes: string[];
  /** Commands that continue after a kill, tried in order until one exits 0 (a refusal is counted, with what it said). */
  rerun: string[][];
  /** The run folder resumed from a copy (`--out` replaced) in every other trial. */
  copy?: { from: string; to: string };
  available?: () => boolean;
  /** The output line that ends start-up (kills are drawn after it); default: the first of `writes` appearing. */
  startup?: RegExp;
  /** The phase of the run, from what it said so far (when no temporary file shows a write in progress); default `writing`. */
  phase?: (out: string) => Phase;
}

export type Phase = 'start-up' | 'training' | 'evaluation' | 'checkpoint' | 'writing' | 'finishing' | 'ended';
export const PHASES: Phase[] = ['start-up', 'training', 'evaluation', 'checkpoint', 'writing', 'finishing', 'ended'];

/**
 * Where a training run is, from its last progress line: validation ends with `epoch N: validation
 * ...` (then the checkpoint is written and the next epoch trains); the run's progress line (one bar
 * over the run, printed every tenth of it) says `| epoch N/M | validation` during a validation
 * (older runs: `epoch N/M: ...` when an epoch's steps ended); after the last epoch's validation come
 * the learning curves and provenance (`finishing`). A validation no progress line fell in counts as training.
 */
export function trainingPhase(out: string): Phase {
  const lines = out.split('\n').filter((l) => /^(training on |training CPP |epoch \d+(\/\d+)?: |train: .*\| epoch \d+\/\d+ \||done: )/.test(l));
  const last = lines.at(-1);
  if (!last) return 'start-up';
  if (last.startsWith('done: ')) return 'finishing';
  const epochs = Number(/epoch \d+\/(\d+)/.exec(out)?.[1]);
  const epoch = Number(/epoch (\d+)/.exec(last)?.[1]);
  if (/^epoch \d+\/\d+: |\| validation$/.test(last)) return 'evaluation';
  return /^epoch \d+: validation|\| validated$/.test(last) && epoch === epochs ? 'finishing' : 'training';
}

const force = (args: string[]) => [...args, '--force'];
// 60 epochs: kills are drawn after start-up (Node, tsx and ONNX Runtime: 6-12 s), and about three
// quarters of the rest is training (an epoch: ~0.1 s); the learning curves take the last ~2 s.
const trainArgs = ['train', '--cache', INPUT.cache, '--config', INPUT.config, '--epochs', '60', '--out', 'killed-run'];
const genArgs = ['cache', 'gen', '--out', 'generated', '--questions', '300', '--seed', '3', '--name', 'killed'];
const importArgs = ['cache', 'import', '--format', 'du', INPUT.dylan, '--out', 'imported', '--model', 'gpt-3.5-turbo', '--prices', INPUT.prices];
const fromParquetArgs = ['cache', 'from-parquet', INPUT.table, '--out', 'from-parquet'];
const mainArgs = ['main', '--cache', INPUT.cache, '--seeds', '2', '--config', INPUT.config, '--out', 'job'];
const ablateArgs = ['ablate', '--grid', INPUT.grid, '--out', 'grid-out', '--workers', '2'];
const recordArgs = ['record', '--cache', INPUT.sparse, '--method', 'random', '--keep-rate', '0.5', '--split', 'train'];

export const KILL_COMMANDS: KillCommand[] = [
  {
    name: 'train',
    args: trainArgs,
    writes: ['killed-run'],
    rerun: [['train', '--resume', '--out', 'killed-run'], trainArgs, force(trainArgs)],
    copy: { from: 'killed-run', to: 'moved-run' },
    startup: /^training on /m,
    phase: trainingPhase,
  },
  { name: 'ablate', args: ablateArgs, writes: ['grid-out'], rerun: [ablateArgs, force(ablateArgs)] },
  { name: 'main', args: mainArgs, writes: ['job'], rerun: [mainArgs, force(mainArgs)], startup: /^training CPP /m },
  { name: 'cache gen', args: genArgs, writes: ['generated'], rerun: [genArgs, force(genArgs)] },
  { name: 'cache import', args: importArgs, writes: ['imported'], rerun: [importArgs, force(importArgs)], available: () => existsSync(DYLAN) },
  { name: 'cache from-parquet', args: fromParquetArgs, writes: ['from-parquet'], rerun: [fromParquetArgs, force(fromParquetArgs)] },
  { name: 'cache embed', args: ['cache', 'embed', INPUT.plain], writes: [`${INPUT.plain}/embeddings`], rerun: [['cache', 'embed', INPUT.plain]] },
  { name: 'record', args: recordArgs, writes: [`${INPUT.sparse}/journal.jsonl`], rerun: [recordArgs] },
];

/**
 * What a command wrote, keyed `#<i of writes>/<path>`, normalised (so that a copy compares with the
 * original); `copiedFrom`: the folder a written one was copied from.
 */
export function output(ws: string, writes: string[], copiedFrom?: string): Snapshot {
  const out: Snapshot = new Map();
  writes.forEach((w, i) => {
    const path = join(ws, w);
    if (!existsSync(path)) return;
    const names = copiedFrom ? [copiedFrom, w] : [w];
    const tree = w.endsWith('.jsonl')
      ? new Map([...normalisedTree(join(path, '..'), names)].filter(([k]) => k === w.split('/').pop()))
      : normalisedTree(path, names);
    for (const [k, h] of tree) out.set(`#${i}/${k}`, h);
  });
  return out;
}

/** Files whose normalised content differs between two outputs (or that only one has). */
export const differing = (a: Snapshot, b: Snapshot) => changes(a, b).map((c) => c.slice(0, 1) + c.slice(1).replace(/^#\d+\//, ''));

export interface Reference {
  command: KillCommand;
  ms: number;
  /** When its start-up ended (ms after the spawn). */
  startupMs: number;
  output: Snapshot;
  /** Files two uninterrupted runs already disagree on (should be none: they would be reported as kill damage otherwise). */
  unstable: string[];
}

/** Run the command uninterrupted (twice with `control`, to find what differs between two clean runs), in WORK/`part`/. */
export async function reference(command: KillCommand, inputs: string, control = false, part = 'kill'): Promise<Reference> {
  const runs: { ms: number; startupMs: number; output: Snapshot }[] = [];
  for (let i = 0; i < (control ? 2 : 1); i++) {
    const ws = freshDir(part, slug(command.name), `reference-${i}`);
    copyTree(inputs, ws);
    const run = await uninterrupted(command, ws);
    runs.push({ ms: run.ms, startupMs: run.startupMs ?? 0, output: output(ws, command.writes) });
  }
  const [first] = runs;
  return { command, ms: first.ms, startupMs: first.startupMs, output: first.output, unstable: runs.length > 1 ? differing(first.output, runs[1].output) : [] };
}

/** `command` run to its end in `ws` (its start-up timed), which must exit 0. */
export async function uninterrupted(command: KillCommand, ws: string): Promise<CliRun> {
  const run = await cli(command.args, { cwd: ws, startup: startupOf(command, ws) });
  if (run.code !== 0) throw new Error(`${command.name}: the uninterrupted run (${command.args.join(' ')}) exited ${run.code}: ${tail(run.out, 8)}`);
  return run;
}

/** What ends `command`'s start-up in workspace `ws`: its own line, else the first of its writes appearing. */
const startupOf = (command: KillCommand, ws: string) => command.startup ?? (() => command.writes.some((w) => existsSync(join(ws, w))));

/** Locks under what `command` writes (a file written: its folder's lock). */
function locksUnder(ws: string, writes: string[]): string[] {
  return writes.flatMap((w) => {
    const dir = join(ws, /\.\w+$/.test(w) ? dirname(w) : w);
    return existsSync(dir) ? [...snapshot(dir).keys()].filter((p) => /(^|\/)\.lock$/.test(p)).map((p) => `${w}: ${p}`) : [];
  });
}

/** The command a stopped command said continues it (`to continue: npx cpp-workbench ARGS`), as words. */
export function saidToContinue(out: string): string[] | undefined {
  const line = /^to continue: npx cpp-workbench (.+)$/m.exec(out)?.[1];
  return line ? [...line.matchAll(/'((?:[^']|'\\'')*)'|(\S+)/g)].map((m) => (m[1] !== undefined ? m[1].replace(/'\\''/g, "'") : m[2])) : undefined;
}

export interface KillTrial {
  command: string;
  signal: StopSignal;
  trial: number;
  /** ms after start-up ended. */
  killAtMs: number;
  phase: Phase;
  /** A stop by SIGINT or SIGTERM: its exit code, the locks and temporary files it left, whether it said the command that continues. */
  stopped?: { code: number | null; locksLeft: string[]; tempLeft: string[]; saidContinue: boolean };
  /** Killed before it finished (else it had ended by itself at that moment: a trial of the rerun only). */
  killed: boolean;
  copied: boolean;
  /** Non-zero exits before the one that finished, with the last lines of what each said. */
  refusals: { args: string; code: number | null; said: string }[];
  finished: boolean;
  identical: boolean;
  /** Files that differ from the uninterrupted run (+ only here, - only there, ~ content). */
  differing: string[];
  /** Files outside what the command writes that were created, changed or removed (the repository's git index lock too). */
  outside: string[];
  unparseableAfterKill: string[];
  unparseable: string[];
  leftoverTemp: string[];
  stackTrace: boolean;
  hung: boolean;
  ms: number;
}

export const slug = (s: string) => s.replace(/\W+/g, '-');

/** One trial: stop `ref.command` with `signal` `killAtMs` after its start-up, rerun, compare. The trial's folder is removed unless it failed. */
export async function killTrial(ref: Reference, inputs: string, trial: number, killAtMs: number, signal: StopSignal = 'SIGKILL'): Promise<KillTrial> {
  const command = ref.command;
  const start = performance.now();
  const began = Date.now();
  const ws = freshDir('kill', slug(command.name), `${signal}-${trial}`);
  copyTree(inputs, ws);
  let writes = command.writes;
  let before = snapshot(ws, writes);
  let phase: Phase = 'ended';
  const whereAt = (out: string) => {
    phase = tempNow(ws).length ? 'checkpoint' : (command.phase?.(out) ?? 'writing');
  };
  const first = await cli(command.args, { cwd: ws, startup: startupOf(command, ws), stop: { signal, afterMs: killAtMs, before: whereAt } });
  const runs: CliRun[] = [first];
  const killed = first.killed;
  if (!killed) phase = 'ended';
  const said = saidToContinue(first.out);
  const stopped =
    signal === 'SIGKILL' || !killed
      ? undefined
      : { code: first.code, locksLeft: locksUnder(ws, writes), tempLeft: leftoverTemp(ws), saidContinue: said !== undefined };
  const unparseableAfterKill = writes.flatMap((w) => (existsSync(join(ws, w)) ? unparseable(join(ws, w)).map((f) => `${w}/${f}`) : []));
  let reruns = said && stopped ? [said, ...command.rerun] : command.rerun;
  const copied = command.copy !== undefined && trial % 2 === 1 && existsSync(join(ws, command.copy.from));
  if (copied) {
    const { from, to } = command.copy!;
    copyTree(join(ws, from), join(ws, to));
    writes = writes.map((w) => (w === from ? to : w));
    reruns = reruns.map((args) => args.map((a) => (a === from ? to : a)));
    before = snapshot(ws, writes); // the original folder included: resuming the copy must not touch it
  }
  const refusals: KillTrial['refusals'] = [];
  let finished = runs[0].code === 0;
  for (const args of finished ? [] : reruns) {
    const run = await cli(args, { cwd: ws });
    runs.push(run);
    if (run.code === 0) {
      finished = true;
      break;
    }
    refusals.push({ args: args.join(' '), code: run.code, said: tail(run.out, 2) });
  }
  const out = output(ws, writes, copied ? command.copy!.from : undefined);
  const result: KillTrial = {
    command: command.name,
    signal,
    trial,
    killAtMs: Math.round(killAtMs),
    phase,
    stopped,
    killed,
    copied,
    refusals,
    finished,
    differing: differing(ref.output, out).filter((f) => !ref.unstable.includes(f)),
    identical: false,
    outside: [...changes(before, snapshot(ws, writes)), ...gitLockLeft(began)],
    unparseableAfterKill,
    unparseable: writes.flatMap((w) => (existsSync(join(ws, w)) ? unparseable(join(ws, w)).map((f) => `${w}/${f}`) : [])),
    // A copied trial leaves the killed original as it was (`outside` checks it), temporary file included.
    leftoverTemp: leftoverTemp(ws).filter((p) => !copied || !p.startsWith(`${command.copy!.from}/`)),
    stackTrace: runs.some((r) => STACK_TRACE.test(r.out)),
    hung: runs.some((r) => r.hung),
    ms: performance.now() - start,
  };
  result.identical = finished && result.differing.length === 0;
  if (trialPassed(result)) rmSync(ws, { recursive: true, force: true });
  return result;
}

export const trialPassed = (t: KillTrial) =>
  t.identical &&
  (!t.stopped || stopPassed(t.signal, t.stopped)) &&
  t.outside.length === 0 &&
  t.unparseable.length === 0 &&
  t.unparseableAfterKill.length === 0 &&
  t.leftoverTemp.length === 0 &&
  !t.stackTrace &&
  !t.hung;

/**
 * A clean stop: exit 130 (SIGINT) or 143 (SIGTERM) saying the command that continues, no lock or
 * temporary file left. Exit 0 passes too: the signal came as the command was ending, after its work
 * (the trial's `identical` then holds for that run alone, with no rerun).
 */
export const stopPassed = (signal: StopSignal, s: NonNullable<KillTrial['stopped']>) =>
  (s.code === 0 || (s.code === (signal === 'SIGINT' ? 130 : 143) && s.saidContinue)) && s.locksLeft.length === 0 && s.tempLeft.length === 0;

/**
 * `trials` trials of `command` per signal of `signals`, stopped at moments drawn (seeded by `seed`,
 * the command's name and the signal) uniformly between the end of start-up and 95% of the rest of
 * the uninterrupted run; `made`: that run, when another call's trials already made it (of the same
 * command and inputs).
 */
export async function killTrials(
  command: KillCommand,
  inputs: string,
  trials: number,
  seed: string,
  onTrial: (t: KillTrial) => void = () => {},
  control = false,
  signals: StopSignal[] = ['SIGKILL'],
  made?: Promise<Reference>,
): Promise<{ reference: Reference; trials: KillTrial[] }> {
  const ref = await (made ?? reference(command, inputs, control));
  const results: KillTrial[] = [];
  for (const signal of signals) {
    // Kill -9 keeps the seed it had before SIGINT and SIGTERM trials were added.
    const random = seedrandom(signal === 'SIGKILL' ? `${seed}/${command.name}` : `${seed}/${command.name}/${signal}`);
    for (let i = 0; i < trials; i++) {
      const at = 0.95 * (ref.ms - ref.startupMs) * random();
      let t = await killTrial(ref, inputs, i, at, signal);
      // A run quicker than the reference (on a machine less loaded than when it ran) may end before
      // a late kill: that trial is tried again at half the moment, then a quarter.
      for (let again = 1; !t.killed && again <= 2; again++) t = await killTrial(ref, inputs, i, at / 2 ** again, signal);
      onTrial(t);
      results.push(t);
    }
  }
  return { reference: ref, trials: results };
}
