// Kill -9 trials: a command is killed (SIGKILL to it and its children) at a seeded random moment of
// its run, then run again as a user would (resume, or the same command), and what it wrote is
// compared with an uninterrupted run's: byte for byte, but for the wall times and timestamps that
// harness.ts NORMALISATION names. Each trial also checks that nothing outside what the command
// writes changed, that every file it left parses (after the kill and after the rerun), and that no
// `*.tmp` file of the killed write is left after the rerun. Half the `train` trials resume a copy
// of the killed run folder (issue 16, point 1): the original must not change.
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import seedrandom from 'seedrandom';
import {
  changes,
  cli,
  copyTree,
  freshDir,
  gitLockLeft,
  leftoverTemp,
  normalisedTree,
  snapshot,
  STACK_TRACE,
  tail,
  unparseable,
  type CliRun,
  type Snapshot,
} from './harness.ts';
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
}

const force = (args: string[]) => [...args, '--force'];
// Six epochs: about half of the run is training (the rest is starting Node, tsx and ONNX Runtime).
const trainArgs = ['train', '--cache', INPUT.cache, '--config', INPUT.config, '--epochs', '6', '--out', 'killed-run'];
const genArgs = ['cache', 'gen', '--out', 'generated', '--questions', '300', '--seed', '3', '--name', 'killed'];
const importArgs = ['cache', 'import', '--format', 'du', INPUT.dylan, '--out', 'imported', '--model', 'gpt-3.5-turbo', '--prices', INPUT.prices];
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
  },
  { name: 'ablate', args: ablateArgs, writes: ['grid-out'], rerun: [ablateArgs, force(ablateArgs)] },
  { name: 'main', args: mainArgs, writes: ['job'], rerun: [mainArgs, force(mainArgs)] },
  { name: 'cache gen', args: genArgs, writes: ['generated'], rerun: [genArgs, force(genArgs)] },
  { name: 'cache import', args: importArgs, writes: ['imported'], rerun: [importArgs, force(importArgs)], available: () => existsSync(DYLAN) },
  { name: 'cache embed', args: ['cache', 'embed', INPUT.plain], writes: [`${INPUT.plain}/embeddings`], rerun: [['cache', 'embed', INPUT.plain]] },
  { name: 'record', args: recordArgs, writes: [`${INPUT.sparse}/journal.jsonl`], rerun: [recordArgs] },
];

/**
 * What a command wrote, keyed `#<i of writes>/<path>`, normalised (so that a copy compares with the
 * original); `copiedFrom`: the folder a written one was copied from.
 */
function output(ws: string, writes: string[], copiedFrom?: string): Snapshot {
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
const differing = (a: Snapshot, b: Snapshot) => changes(a, b).map((c) => c.slice(0, 1) + c.slice(1).replace(/^#\d+\//, ''));

export interface Reference {
  command: KillCommand;
  ms: number;
  output: Snapshot;
  /** Files two uninterrupted runs already disagree on (should be none: they would be reported as kill damage otherwise). */
  unstable: string[];
}

/** Run the command uninterrupted (twice with `control`, to find what differs between two clean runs). */
export async function reference(command: KillCommand, inputs: string, control = false): Promise<Reference> {
  const runs: { ms: number; output: Snapshot }[] = [];
  for (let i = 0; i < (control ? 2 : 1); i++) {
    const ws = freshDir('kill', slug(command.name), `reference-${i}`);
    copyTree(inputs, ws);
    const run = await cli(command.args, { cwd: ws });
    if (run.code !== 0) throw new Error(`${command.name}: the uninterrupted run (${command.args.join(' ')}) exited ${run.code}: ${tail(run.out, 8)}`);
    runs.push({ ms: run.ms, output: output(ws, command.writes) });
  }
  return { command, ms: runs[0].ms, output: runs[0].output, unstable: runs.length > 1 ? differing(runs[0].output, runs[1].output) : [] };
}

export interface KillTrial {
  command: string;
  trial: number;
  killAtMs: number;
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

/** One trial: kill `ref.command` after `killAtMs`, rerun, compare. The trial's folder is removed unless it failed. */
export async function killTrial(ref: Reference, inputs: string, trial: number, killAtMs: number): Promise<KillTrial> {
  const command = ref.command;
  const start = performance.now();
  const began = Date.now();
  const ws = freshDir('kill', slug(command.name), `trial-${trial}`);
  copyTree(inputs, ws);
  let writes = command.writes;
  let before = snapshot(ws, writes);
  const runs: CliRun[] = [await cli(command.args, { cwd: ws, killAfterMs: killAtMs })];
  const killed = runs[0].killed;
  const unparseableAfterKill = writes.flatMap((w) => (existsSync(join(ws, w)) ? unparseable(join(ws, w)).map((f) => `${w}/${f}`) : []));
  let reruns = command.rerun;
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
    trial,
    killAtMs: Math.round(killAtMs),
    killed,
    copied,
    refusals,
    finished,
    differing: differing(ref.output, out).filter((f) => !ref.unstable.includes(f)),
    identical: false,
    outside: [...changes(before, snapshot(ws, writes)), ...gitLockLeft(began)],
    unparseableAfterKill,
    unparseable: writes.flatMap((w) => (existsSync(join(ws, w)) ? unparseable(join(ws, w)).map((f) => `${w}/${f}`) : [])),
    leftoverTemp: leftoverTemp(ws),
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
  t.outside.length === 0 &&
  t.unparseable.length === 0 &&
  t.unparseableAfterKill.length === 0 &&
  t.leftoverTemp.length === 0 &&
  !t.stackTrace &&
  !t.hung;

/**
 * `trials` kill trials of `command`, killed at moments drawn (seeded by `seed` and the command's
 * name) uniformly between 5% and 95% of the uninterrupted run's wall time.
 */
export async function killTrials(
  command: KillCommand,
  inputs: string,
  trials: number,
  seed: string,
  onTrial: (t: KillTrial) => void = () => {},
  control = false,
): Promise<{ reference: Reference; trials: KillTrial[] }> {
  const ref = await reference(command, inputs, control);
  const random = seedrandom(`${seed}/${command.name}`);
  const results: KillTrial[] = [];
  for (let i = 0; i < trials; i++) {
    const t = await killTrial(ref, inputs, i, ref.ms * (0.05 + 0.9 * random()));
    onTrial(t);
    results.push(t);
  }
  return { reference: ref, trials: results };
}
