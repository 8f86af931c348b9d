// Ctrl-C trials: every command that can run longer than a second, on a cache of 2,000 questions,
// stopped by SIGINT to its process group (a terminal's Ctrl-C) at a seeded random moment of its run.
// Each trial records how long the command took to end after the signal, its exit (130: stopped;
// killed by the signal itself: it came during Node's start-up, before the command's handler; 0:
// it finished first), whether it said it stopped, and whether it left its output as it was: no
// file of a new output, no `*.tmp`, no lock, and its inputs unchanged (names, sizes, modification times).
import { existsSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import seedrandom from 'seedrandom';
import { cli, copyTree, freshDir, tail } from './harness.ts';
import { leftoverTemp } from './tree.ts';
import { DYLAN, INPUT } from './inputs.ts';
import { markdownTable } from '../src/table.ts';

export interface StopCommand {
  name: string;
  args: string[];
  /** New outputs (relative paths): none may hold a file after a stop, unless `keeps` names it. */
  writes: string[];
  /** Outputs a stop keeps as they are when it comes (record's journal: each reply a whole line, so that a rerun asks none again). */
  keeps?: string[];
  available?: () => boolean;
}

/** The 2,000-question cache and its Parquet table, made once per suite run beside the inputs. */
const BIG = 'big';
const BIG_PARQUET = 'big.parquet';

export const STOP_COMMANDS: StopCommand[] = [
  { name: 'cache validate', args: ['cache', 'validate', BIG], writes: [] },
  { name: 'cache stats', args: ['cache', 'stats', BIG], writes: [] },
  { name: 'cache audit', args: ['cache', 'audit', BIG], writes: [] },
  { name: 'cache to-parquet', args: ['cache', 'to-parquet', BIG, '--out', 'exported.parquet'], writes: ['exported.parquet'] },
  { name: 'cache from-parquet', args: ['cache', 'from-parquet', BIG_PARQUET, '--out', 'from-parquet'], writes: ['from-parquet'] },
  {
    name: 'cache import',
    args: ['cache', 'import', '--format', 'du', INPUT.dylan, '--out', 'imported', '--model', 'gpt-3.5-turbo', '--prices', INPUT.prices],
    writes: ['imported'],
    available: () => existsSync(DYLAN),
  },
  { name: 'cache gen', args: ['cache', 'gen', '--out', 'generated', '--questions', '2000', '--seed', '5', '--name', 'g'], writes: ['generated'] },
  { name: 'baselines', args: ['baselines', '--cache', BIG], writes: [] },
  { name: 'eval', args: ['eval', '--cache', BIG, '--methods', 'full,random', '--out', 'eval-out'], writes: ['eval-out'] },
  { name: 'record', args: ['record', '--cache', BIG, '--method', 'random'], writes: [join(BIG, 'journal.jsonl')], keeps: [join(BIG, 'journal.jsonl')] },
];

export interface StopTrial {
  command: string;
  trial: number;
  /** When the signal was sent, ms after the spawn; the run's length uninterrupted. */
  atMs: number;
  runMs: number;
  /** ms from the signal to the command's end. */
  latencyMs: number;
  code: number | null;
  signal: string | null;
  /** exit 130 saying it stopped; the signal's own death (Node's start-up); or 0 (it finished first). */
  outcome: 'stopped' | 'start-up' | 'finished' | 'other';
  /** A signal handled after the work said the loop was held (a missing stop point). */
  late: boolean;
  /** New output files, `*.tmp` or locks left, input files changed. */
  left: string[];
}

/** Names, sizes and modification times of every file under `dir`: what a command that only reads leaves as it was. */
function listing(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => statSync(join(dir, f)).isFile())
    .sort()
    .map((f) => `${f} ${statSync(join(dir, f)).size} ${statSync(join(dir, f)).mtimeMs}`);
}

/** Make the 2,000-question cache and its Parquet table in `inputs` (commands a user would run). */
export async function makeBig(inputs: string, log: (line: string) => void): Promise<void> {
  for (const args of [
    ['cache', 'gen', '--out', BIG, '--questions', '2000', '--seed', '21', '--name', 'big'],
    ['cache', 'to-parquet', BIG, '--out', BIG_PARQUET],
  ]) {
    if (args[1] === 'gen' && existsSync(join(inputs, BIG))) continue;
    const run = await cli(args, { cwd: inputs });
    log(`stops inputs: ${args.join(' ')} (${(run.ms / 1000).toFixed(1)} s)`);
    if (run.code !== 0) throw new Error(`making the inputs: ${args.join(' ')} exited ${run.code}: ${tail(run.out, 8)}`);
  }
}

/**
 * `trials` Ctrl-C trials of `command` in a copy of `inputs`: uninterrupted runs first (the length
 * of the second, and the time to a quick refusal, Node's start-up), then SIGINT at moments drawn uniformly between
 * the end of start-up and 95% of the run.
 */
export async function stopTrials(command: StopCommand, inputs: string, trials: number, seed: string, onTrial: (t: StopTrial) => void): Promise<StopTrial[]> {
  const ws = freshDir('stops', command.name.replace(/\W+/g, '-'));
  copyTree(inputs, ws);
  // Run twice: the first run in the copy rebuilds what a copy makes stale (cache.columns records its cache.jsonl's inode); the second is the length.
  let reference = await cli(command.args, { cwd: ws });
  for (const w of command.writes) rmSync(join(ws, w), { recursive: true, force: true });
  if (reference.code === 0) reference = await cli(command.args, { cwd: ws });
  if (reference.code !== 0) throw new Error(`${command.name}: the uninterrupted run exited ${reference.code}: ${tail(reference.out, 8)}`);
  const startup = (await cli([...command.args.slice(0, command.name.split(' ').length), '--no-such-flag'], { cwd: ws })).ms;
  const random = seedrandom(`${seed}|stops|${command.name}`);
  const results: StopTrial[] = [];
  for (let trial = 1; trial <= trials; trial++) {
    for (const w of command.writes) rmSync(join(ws, w), { recursive: true, force: true }); // a fresh output each trial
    const before = listing(ws);
    const atMs = startup + random() * 0.95 * Math.max(0, reference.ms - startup);
    const run = await cli(command.args, { cwd: ws, stop: { signal: 'SIGINT', afterMs: atMs } });
    const stopped = run.code === 130 && /interrupted \(SIGINT\): stopping/.test(run.out);
    const outcome = stopped ? 'stopped' : run.signal === 'SIGINT' ? 'start-up' : run.code === 0 ? 'finished' : 'other';
    const after = listing(ws);
    const kept = (f: string) => (command.keeps ?? []).includes(f.split(' ')[0]);
    const left =
      outcome === 'finished'
        ? leftoverTemp(ws)
        : [
            ...after.filter((f) => !before.includes(f) && !kept(f)).map((f) => `+${f.split(' ')[0]}`),
            ...before.filter((f) => !after.includes(f) && !kept(f)).map((f) => `~${f.split(' ')[0]}`),
          ];
    const t: StopTrial = {
      command: command.name,
      trial,
      atMs: Math.round(run.stoppedMs ?? atMs),
      runMs: Math.round(reference.ms),
      latencyMs: Math.round(run.ms - (run.stoppedMs ?? run.ms)),
      code: run.code,
      signal: run.signal,
      outcome,
      late: /without a stop point/.test(run.out),
      left,
    };
    onTrial(t);
    results.push(t);
  }
  return results;
}

/** A trial passes when the command ended within half a second of the signal and left its output as it was (or had finished, and said so truthfully). */
export const stopTrialPassed = (t: StopTrial) => t.outcome !== 'other' && !t.late && t.left.length === 0 && (t.outcome === 'finished' || t.latencyMs <= 500);

/** The report's section on the Ctrl-C trials: a row per command, and the failed trials. */
export function stopsSections(stops: StopTrial[]): string[] {
  if (!stops.length) return [];
  const out: string[] = [];
  const count = <T>(xs: T[], f: (x: T) => boolean) => xs.filter(f).length;
  const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  const quantile = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))];
  const rows = [...new Set(stops.map((t) => t.command))].map((command) => {
    const ts = stops.filter((t) => t.command === command);
    const stoppedMs = ts.filter((t) => t.outcome !== 'finished').map((t) => t.latencyMs);
    return [
      command,
      seconds(ts[0].runMs),
      ts.length,
      count(ts, (t) => t.outcome === 'stopped'),
      count(ts, (t) => t.outcome === 'start-up'),
      count(ts, (t) => t.outcome === 'finished'),
      count(ts, (t) => t.outcome === 'other'),
      stoppedMs.length ? `${quantile(stoppedMs, 0.5)} / ${Math.max(...stoppedMs)}` : '-',
      count(ts, (t) => t.outcome !== 'finished' && t.latencyMs > 500),
      count(ts, (t) => t.late),
      count(ts, (t) => t.left.length > 0),
      count(ts, stopTrialPassed),
    ];
  });
  out.push(
    `### Ctrl-C on a cache of 2,000 questions\n\n${markdownTable(
      [
        'command',
        'uninterrupted run',
        'trials',
        'exit 130, said it stopped',
        'killed in start-up',
        'finished first',
        'other exits',
        'ms to the end after the signal (median / max)',
        'over 500 ms',
        'held without a stop point',
        'output or inputs changed',
        'passed',
      ],
      rows,
    )}`,
  );
  const failed = stops.filter((t) => !stopTrialPassed(t));
  if (failed.length) out.push(`Failed Ctrl-C trials:\n\n${failed.map((t) => `- ${t.command} #${t.trial}: ${JSON.stringify(t)}`).join('\n')}`);
  return out;
}
