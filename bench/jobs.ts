// Job figures, each a fresh process of the built bin as a user starts it, in a new
// temporary folder (nothing reused), once (a job is long enough that its start-up is part of what
// is measured):
//   grid    6 one-epoch cells of train/configs/main.json with 2 workers beside one such cell alone
//           (goal <= 1.6x), and what a cell spends beyond its training steps as ablate prints it
//           (median; goal <= 1 s)
//   main    the main job, `cpp-workbench main` on the default cache (goal <= 20 s), and its seed 0's time split
//   table6  Table 6's default grid (110 cells) trained and evaluated with 2 workers (goal <= 6 min)
//   import  the DyLAN import of 44 files: the 7 recorded files again and again under other names,
//           about 4,400 problems (goal <= 18 s and <= 450 MB peak memory)
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { loadCache } from '../src/cache/load.ts';
import { UsageError } from '../src/io/errors.ts';
import { ensureDefaultCache } from '../src/sim/generate.ts';
import { beside } from './goals.ts';

export const BIN = join(import.meta.dirname, '..', 'bin', 'cpp-workbench.mjs');

// Said by the bin's process as it exits: its peak resident memory (kB) and CPU time (µs, user and
// system, its threads included, and on Linux its ended children's too: the training processes of
// a job; /proc counts them in ticks of 1/100 s), read back from its stderr. Under load the CPU time is the steadier figure.
const USAGE =
  "data:text/javascript,import{readFileSync}from'node:fs';process.on('exit',()=>{const u=process.resourceUsage();" +
  "let c=0;try{const f=readFileSync('/proc/self/stat','utf8').split(') ')[1].split(' ');c=(Number(f[13])+Number(f[14]))*1e4}catch{}" +
  "process.stderr.write('\\nbench usage '+u.maxRSS+' '+(u.userCPUTime+u.systemCPUTime+c)+'\\n')})";

export interface BinRun {
  seconds: number;
  stdout: string;
  stderr: string;
  peakMB: number;
  cpuSeconds: number;
}

/**
 * Runs `command` (the bin through `node`, or another program) to a successful end, checking it ran
 * the built code; with `usage`, `command` is node's and its peak memory and CPU time are read (else NaN).
 */
export function timed(label: string, command: string[], usage = false): BinRun {
  const [program, ...args] = usage ? [command[0], '--import', USAGE, ...command.slice(1)] : command;
  const t = performance.now();
  const r = spawnSync(program, args, { encoding: 'utf8', maxBuffer: 256 << 20 });
  const seconds = (performance.now() - t) / 1000;
  if (/^cpp-workbench: dist\/ is/m.test(r.stderr)) throw new UsageError(`bench: ${r.stderr.split('\n')[0]}: run it with \`npm run bench\`, which builds first`);
  if (r.status !== 0) throw new Error(`bench: ${label} failed (exit ${r.status ?? r.signal}): ${r.stderr.slice(-2000)}`);
  const used = /^bench usage (\d+) (\d+)$/m.exec(r.stderr);
  return {
    seconds,
    stdout: r.stdout,
    stderr: r.stderr,
    peakMB: used ? Number(used[1]) / 1024 : Number.NaN,
    cpuSeconds: used ? Number(used[2]) / 1e6 : Number.NaN,
  };
}

const bin = (label: string, ...args: string[]) => timed(label, [process.execPath, BIN, ...args], true);

function inTemp<T>(name: string, work: (dir: string) => T): T {
  const dir = mkdtempSync(join(tmpdir(), `bench-${name}-`));
  try {
    return work(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export function benchGrid(cache: string): void {
  const base = { ...JSON.parse(readFileSync('train/configs/main.json', 'utf8')), epochs: 1 };
  const grid = (dir: string, seeds: number) => {
    const file = join(dir, `grid-${seeds}.json`);
    writeFileSync(file, JSON.stringify({ name: `bench-${seeds}`, base, seeds, caches: [cache], variants: [{ name: 'main, one epoch', settings: {} }] }));
    return bin(`ablate of ${seeds} cells`, 'ablate', '--grid', file, '--workers', '2', '--out', join(dir, `results-${seeds}`));
  };
  inTemp('grid', (dir) => {
    const one = grid(dir, 1);
    const six = grid(dir, 6);
    const ratio = six.seconds / one.seconds;
    console.log(`\nGrid of one-epoch cells (train/configs/main.json, epochs 1, on ${cache}), ablate with 2 workers, fresh processes, once:`);
    const cpu = `CPU ${one.cpuSeconds.toFixed(1)} s and ${six.cpuSeconds.toFixed(1)} s`;
    console.log(`  one cell alone ${one.seconds.toFixed(1)} s; 6 cells ${six.seconds.toFixed(1)} s (${cpu}, the job and its training processes)`);
    const note = `${one.seconds.toFixed(1)} s alone, ${six.seconds.toFixed(1)} s for 6; ${cpu}`;
    const verdict = beside('grid: 6 one-epoch cells, 2 workers / one cell alone', ratio, 'x', { limit: 1.6, atMost: true }, note);
    console.log(`  6 cells / one cell ${ratio.toFixed(2)}x  ${verdict}`);
    const beyond = /cell time beyond the training steps[^:]*: median ([\d.]+) s, most ([\d.]+) s over (\d+) cells/.exec(six.stdout + six.stderr);
    if (!beyond) throw new Error(`bench: ablate did not print the cells' time beyond their training steps:\n${six.stdout}`);
    const [median, most] = [Number(beyond[1]), Number(beyond[2])];
    const spread = `median of ${beyond[3]} cells; most ${most.toFixed(1)} s`;
    const overhead = beside('grid: a cell beyond its steps', median, 's', { limit: 1, atMost: true }, spread);
    console.log(`  a cell's time beyond its training steps: median ${median.toFixed(1)} s, most ${most.toFixed(1)} s  ${overhead}`);
  });
}

export function benchMain(cache: string): void {
  inTemp('main', (dir) => {
    const run = bin('main', 'main', '--cache', cache, '--out', join(dir, 'job'));
    const split = /^time: (.*)$/m.exec(readFileSync(join(dir, 'job', 'seed-0', 'train.log'), 'utf8'));
    console.log(`\nMain job (cpp-workbench main --cache ${cache}, its default seeds and workers), a fresh folder, once:`);
    const cpu = `CPU ${run.cpuSeconds.toFixed(1)} s (the job and its training processes)`;
    console.log(`  ${run.seconds.toFixed(1)} s, ${cpu}  ${beside('main job', run.seconds, 's', { limit: 20, atMost: true }, cpu)}`);
    console.log(`  seed 0's time split (its train.log): ${split?.[1] ?? '(no time line)'}`);
  });
}

export function benchTable6(): void {
  for (const cache of ['cache/default', 'cache/adversary']) ensureDefaultCache(cache); // made before the clock starts
  inTemp('table6', (dir) => {
    const run = bin('Table 6', 'ablate', '--grid', 'train/grids/table6.json', '--workers', '2', '--out', join(dir, 'table6'));
    const minutes = run.seconds / 60;
    console.log(`\nTable 6 (train/grids/table6.json: 110 cells trained, then evaluated), ablate with 2 workers, a fresh folder, once:`);
    const cpu = `CPU ${(run.cpuSeconds / 60).toFixed(1)} min`;
    console.log(`  ${minutes.toFixed(1)} min, ${cpu}  ${beside('Table 6: 110 cells trained and evaluated', minutes, 'min', { limit: 6, atMost: true }, cpu)}`);
  });
}

export function benchImport(): void {
  const packed = join('tests', 'fixtures', 'dylan-math'); // the 7 recorded files, gzip'd
  const recorded = readdirSync(packed).filter((f) => f.endsWith('.json.gz'));
  inTemp('import', (dir) => {
    // 44 files, each a recorded one under a name of its own (question ids are `<file stem>/<problem>`).
    const files = Array.from({ length: 44 }, (_, i) => {
      const name = recorded[i % recorded.length];
      const file = join(dir, `${name.slice(0, -'.json.gz'.length)}_copy${i}.json`);
      writeFileSync(file, gunzipSync(readFileSync(join(packed, name))));
      return file;
    });
    const prices = join('cache', 'example', 'prices.json');
    const run = bin('DyLAN import', 'cache', 'import', '--format', 'du', ...files, '--out', join(dir, 'cache'), '--model', 'gpt-3.5-turbo', '--prices', prices);
    const problems = loadCache(join(dir, 'cache')).questions.length.toLocaleString('en-US');
    console.log(`\nDyLAN import (cpp-workbench cache import --format du), 44 files (the 7 recorded ones under other names), ${problems} questions:`);
    const note = `${problems} questions; CPU ${run.cpuSeconds.toFixed(1)} s`;
    console.log(
      `  ${run.seconds.toFixed(1)} s (CPU ${run.cpuSeconds.toFixed(1)} s)  ` +
        beside('DyLAN import, 44 files: time', run.seconds, 's', { limit: 18, atMost: true }, note),
    );
    console.log(`  peak memory ${run.peakMB.toFixed(0)} MB  ${beside('DyLAN import, 44 files: peak memory', run.peakMB, 'MB', { limit: 450, atMost: true })}`);
  });
}
