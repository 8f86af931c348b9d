// The device check: what a machine with a GPU says of the GPU engine, in one run of under 10
// minutes, written as JSON (check.json) and a Markdown table (check.md) into --out. Run from the
// offline bundle (`npm run device:bundle`, bench/device/bundle.ts; device-check.sh starts it) or
// from the sources (`tsx bench/device/check.ts --out DIR`). Steps, each timed and each with its own
// time limit, none stopping the others: the adapter; `bench gpu` (the GPU engine beside the CPU
// engine and PyTorch on CUDA, batches 256 to 65,536, and an evaluation's forward pass); a simulated
// world; the main config trained on webgpu and on onnx, their losses compared step by step; `eval`
// of the webgpu run's policy on each engine (the GPU engine plays 4,096 debates a batch).
// `--small` is a world and batches small enough for a software adapter (the check of the check).
import { spawn } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { readLog } from '../../train/runFolder.ts';
import type { GpuBench } from '../gpu.ts';
import { moduleArgs } from '../../src/io/childModule.ts';
import { adapterName, webgpuAdapter } from '../../src/policy/webgpu.ts';
import { checkTable, type CheckReport, type StepResult, type TrainComparison } from './report.ts';

const fromSources = import.meta.url.endsWith('.ts');
/** The bundle's root (app/ holds the bundled entries) or the repository's. */
const ROOT = resolve(import.meta.dirname, fromSources ? '../..' : '..');
/**
 * Node's arguments that run an entry: the bundled file; from the sources, the compiled dist/ where it
 * is fresh (the command line: plain Node, no tsx loader to start in each step), else the source through tsx
 * (src/io/childModule.ts; dist/ holds no bench).
 */
const entry = (bundled: string, source: string) => (fromSources ? moduleArgs(import.meta.url, `../../${source}`) : [join(ROOT, 'app', `${bundled}.js`)]);
const CLI = entry('index', 'cli/index');
const BENCH = entry('bench', 'bench/bench');

const args = process.argv.slice(2);
const value = (flag: string) => (args.includes(flag) ? args[args.indexOf(flag) + 1] : undefined);
const out = resolve(value('--out') ?? process.env.OUT ?? 'device-check');
const small = args.includes('--small');
/** Seconds the whole check may take: the device tool's 10 minutes less unpacking and a margin. */
const budget = Number(value('--seconds') ?? 540);
// The world and the runs stay out of --out: the device tool brings back 8 files at most.
const work = value('--work') ? resolve(value('--work')!) : mkdtempSync(join(tmpdir(), 'device-check-'));
mkdirSync(out, { recursive: true });
mkdirSync(work, { recursive: true });
/** Every step's output, one after the other (also on stdout). */
const log = createWriteStream(join(out, 'check.log'));
const started = performance.now();
const left = () => budget - (performance.now() - started) / 1000;

/** Runs node with `argv` in `cwd`, its output appended to check.log, killed after `limit` s (or when the budget runs out). */
function step(name: string, argv: string[], limit: number, cwd = work): Promise<StepResult> {
  const seconds = Math.min(limit, left() - 5);
  if (seconds < 5) return Promise.resolve({ name, ok: false, seconds: 0, note: 'not run: the time budget was spent' });
  const head = `\n== ${name} (at most ${Math.round(seconds)} s): node ${argv.join(' ')}\n`;
  process.stdout.write(head);
  log.write(head);
  const t = performance.now();
  return new Promise((done) => {
    const child = spawn(process.execPath, argv, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    for (const stream of [child.stdout, child.stderr])
      stream.on('data', (d: Buffer) => {
        process.stdout.write(d);
        log.write(d);
      });
    const timer = setTimeout(() => child.kill('SIGKILL'), seconds * 1000);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const took = (performance.now() - t) / 1000;
      const note = signal ? `killed after ${Math.round(seconds)} s (its limit)` : code === 0 ? '' : `exit ${code}`;
      done({ name, ok: code === 0, seconds: took, note });
    });
  });
}

/** The two runs' logs side by side: every step's loss and keep rate, each epoch's validation. */
function compareRuns(gpuRun: string, cpuRun: string): TrainComparison {
  const [g, c] = [readLog(gpuRun), readLog(cpuRun)];
  const steps = (l: typeof g) => l.filter((x) => x.type === 'step' && x.loss !== undefined);
  const [gs, cs] = [steps(g), steps(c)];
  const n = Math.min(gs.length, cs.length);
  let worst = 0;
  let sameKeep = 0;
  for (let k = 0; k < n; k++) {
    worst = Math.max(worst, Math.abs(gs[k].loss! - cs[k].loss!));
    if (gs[k].keepRate === cs[k].keepRate) sameKeep++;
  }
  const validation = (l: typeof g) => l.filter((x) => x.type === 'eval').map((x) => ({ accuracy: x.accuracy, costPct: x.costPct }));
  return {
    steps: { webgpu: gs.length, onnx: cs.length },
    maxLossDifference: worst,
    sameKeepRate: sameKeep,
    validation: { webgpu: validation(g), onnx: validation(c) },
  };
}

const commitOf = () => {
  const build = join(ROOT, 'BUILD.json');
  return existsSync(build) ? (JSON.parse(readFileSync(build, 'utf8')) as CheckReport['build']) : { commit: 'sources', built: new Date().toISOString() };
};

const report: CheckReport = {
  build: commitOf(),
  date: new Date().toISOString(),
  machine: `${cpus()[0]?.model ?? 'cpu'}, ${cpus().length} cores, Node ${process.version}`,
  loadBefore: loadavg()[0],
  small,
  steps: [],
};
const save = () => {
  report.loadAfter = loadavg()[0];
  writeFileSync(join(out, 'check.json'), `${JSON.stringify(report, null, 2)}\n`);
  writeFileSync(join(out, 'check.md'), checkTable(report));
};

// The adapter, in this process: what every later step's GPU engine gets.
const adapter = await webgpuAdapter().catch((e: Error) => e);
report.adapter =
  adapter instanceof Error ? { error: adapter.message } : { name: adapterName(adapter), description: adapter.description, software: adapter.software };
console.log(`adapter: ${adapter instanceof Error ? `none (${adapter.message})` : `${adapterName(adapter)} (${adapter.description})`}`);
save();

const gpuJson = join(out, 'bench-gpu.json');
// --small checks that every step runs, not the figures: one step a trial.
report.steps.push(await step('bench-gpu', [...BENCH, 'gpu', ...(small ? ['256', '--trial-seconds', '0'] : []), '--json', gpuJson], small ? 240 : 300, ROOT));
if (existsSync(gpuJson)) report.bench = JSON.parse(readFileSync(gpuJson, 'utf8')) as GpuBench;
save();

const cache = join(work, 'cache');
report.steps.push(await step('world', [...CLI, 'cache', 'gen', '--out', cache, '--questions', small ? '60' : '1200', '--force'], 120));
const config = join(ROOT, 'train/configs/main.json');
const run = (engine: string) => join(work, `train-${engine}`);
for (const engine of ['webgpu', 'onnx']) {
  const sizes = small ? ['--epochs', '1', '--batch-size', '4', '--rollouts', '2', '--hidden', '16'] : [];
  report.steps.push(
    await step(`train-${engine}`, [...CLI, 'train', '--config', config, '--cache', cache, '--engine', engine, '--out', run(engine), '--force', ...sizes], 180),
  );
  save();
}
if (report.steps.filter((s) => s.name.startsWith('train-')).every((s) => s.ok)) report.train = compareRuns(run('webgpu'), run('onnx'));
const policy = join(run('webgpu'), 'best.json');
if (existsSync(policy))
  for (const engine of ['webgpu', 'onnx'])
    report.steps.push(
      await step(
        `eval-${engine}`,
        [...CLI, 'eval', '--policy', policy, '--cache', cache, '--engine', engine, '--methods', 'full', '--out', join(work, `eval-${engine}`)],
        90,
      ),
    );
save();
console.log(`\n${checkTable(report)}\nwritten: ${['check.json', 'check.md', 'check.log', 'bench-gpu.json'].map((f) => join(out, f)).join(', ')}`);
log.end();
if (!value('--work')) rmSync(work, { recursive: true, force: true });
