// Scale: how load, memory, baselines, replay, validation, embedding and a training epoch grow with
// the cache, on generated worlds of 1,000, 10,000 and 100,000 questions (`npm run bench -- scale`,
// or `npm run bench -- scale 1000 10000` for some sizes: 100,000 takes half an hour to generate, once,
// in a process of Node's default heap whose CPU time and peak are said). Each figure is a fresh process:
//   load      loadCache from the columns file (cache.columns), its time and the process's peak memory
//   replay    Full-Debate replays of every question, one thread, debates/s (in the load's process)
//   baselines `cpp-workbench baselines --split test`, the built bin, time and peak memory
//   validate  `cpp-workbench cache validate`, time and peak memory
//   embed     `cpp-workbench cache embed` of every text (the embeddings removed first), time and peak memory
//   epoch     one training epoch of train/configs/main.json (`train --epochs 1`) on the embedded
//             cache, time, peak memory and its setup's share (its `time:` line)
// Each with its CPU time (the process, its threads and ended children): under load the steadier
// figure. Every command runs with Node's default heap.
// Goals at 100,000 questions: load <= 10 s, baselines <= 60 s, peak memory <= 3 GB, one epoch
// <= 10 minutes with setup under 10% of it, embedding and the epoch <= 20 minutes; growth per 10x
// no worse than linear (<= 10x).
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cacheFilePath } from '../src/cache/load.ts';
import { UsageError } from '../src/io/errors.ts';
import { beside } from './goals.ts';
import { BIN, timed } from './jobs.ts';

export const SCALE_SIZES = [1000, 10000, 100000];
/** The bench's 10,000-question cache is the load section's. */
const dirOf = (questions: number) => (questions === 10000 ? 'cache/bench-10k' : `cache/bench-${questions}`);

const LOAD = (dir: string) => `
  const { loadCache } = await import('./src/cache/load.ts');
  const { makeEnvironment } = await import('./src/env/environment.ts');
  const { keepAll, replay } = await import('./src/env/debate.ts');
  const t = performance.now();
  const cpu = process.cpuUsage();
  const cache = loadCache(${JSON.stringify(dir)});
  const loadMs = performance.now() - t;
  const used = process.cpuUsage(cpu);
  const env = makeEnvironment(cache, { miss: 'model' });
  let debates = 0;
  const start = performance.now();
  while (performance.now() - start < 3000) for (const q of cache.questions) { replay(env, q.index, keepAll); if (++debates % 1000 === 0 && performance.now() - start >= 3000) break; }
  console.log(JSON.stringify({ loadMs, loadCpuMs: (used.user + used.system) / 1000, perSecond: debates / ((performance.now() - start) / 1000), responses: cache.responses.length }));
`;

interface Row {
  questions: number;
  responses: number;
  loadS: number;
  loadCpuS: number;
  loadMB: number;
  perSecond: number;
  baselinesS: number;
  baselinesCpuS: number;
  baselinesMB: number;
  validateCpuS: number;
  validateMB: number;
  embedCpuS: number;
  embedMB: number;
  epochS: number;
  epochCpuS: number;
  epochMB: number;
  /** The epoch's setup, seconds of wall time (its `time:` line). */
  setupS: number;
}

async function ensureScaleCache(questions: number): Promise<string> {
  const dir = dirOf(questions);
  if (!existsSync(cacheFilePath(dir))) {
    console.error(`generating ${dir} (${questions.toLocaleString('en-US')} questions), once`);
    // Generation streams (its check writes the columns as it parses): Node's default heap.
    const gen = timed(
      `generate ${dir}`,
      [
        process.execPath,
        '--import',
        'tsx',
        '-e',
        `await (await import('./src/sim/generate.ts')).generateCache(${JSON.stringify(dir)}, { questions: ${questions} }, 'bench-${questions}')`,
      ],
      true,
    );
    console.error(`  ${dir}: generated in ${gen.seconds.toFixed(1)} s (CPU ${gen.cpuSeconds.toFixed(1)} s, peak ${gen.peakMB.toFixed(0)} MB)`);
  }
  return dir;
}

function measure(questions: number, dir: string, withEpoch: boolean): Row {
  const load = timed(`load of ${dir}`, [process.execPath, '--import', 'tsx', '-e', LOAD(dir)], true);
  const figures = JSON.parse(load.stdout.trim().split('\n').at(-1)!);
  const baselines = timed(`baselines on ${dir}`, [process.execPath, BIN, 'baselines', '--cache', dir, '--split', 'test'], true);
  // Each figure said as it comes, so that a run stopped in a long epoch keeps what it measured.
  console.error(
    `  ${dir}: load ${(figures.loadMs / 1000).toFixed(2)} s (CPU ${(figures.loadCpuMs / 1000).toFixed(2)} s, peak ${load.peakMB.toFixed(0)} MB), ` +
      `replay ${Math.round(figures.perSecond)} debates/s, baselines ${baselines.seconds.toFixed(1)} s (CPU ${baselines.cpuSeconds.toFixed(1)} s, peak ${baselines.peakMB.toFixed(0)} MB)`,
  );
  const validate = timed(`cache validate of ${dir}`, [process.execPath, BIN, 'cache', 'validate', dir], true);
  // Embedding from nothing: the bench's cache keeps its vectors for the epoch after.
  rmSync(join(dir, 'embeddings'), { recursive: true, force: true });
  const embed = timed(`cache embed of ${dir}`, [process.execPath, BIN, 'cache', 'embed', dir], true);
  console.error(
    `  ${dir}: validate CPU ${validate.cpuSeconds.toFixed(1)} s, peak ${validate.peakMB.toFixed(0)} MB; ` +
      `embed ${embed.seconds.toFixed(1)} s (CPU ${embed.cpuSeconds.toFixed(1)} s, peak ${embed.peakMB.toFixed(0)} MB)`,
  );
  const out = mkdtempSync(join(tmpdir(), 'bench-scale-'));
  try {
    const train = [process.execPath, BIN, 'train', '--config', 'train/configs/main.json', '--cache', dir, '--epochs', '1', '--out', join(out, 'run')];
    const none = { seconds: Number.NaN, cpuSeconds: Number.NaN, peakMB: Number.NaN, stderr: '' };
    const epoch = withEpoch ? timed(`one epoch on ${dir}`, train, true) : none;
    const setupS = Number(/^time: setup ([\d.]+) s/m.exec(epoch.stderr)?.[1] ?? Number.NaN);
    if (withEpoch)
      console.error(
        `  ${dir}: one epoch ${epoch.seconds.toFixed(1)} s (CPU ${epoch.cpuSeconds.toFixed(1)} s, peak ${epoch.peakMB.toFixed(0)} MB); ` +
          `${/^time: .*$/m.exec(epoch.stderr)?.[0] ?? ''}`,
      );
    return {
      questions,
      responses: figures.responses,
      loadS: figures.loadMs / 1000,
      loadCpuS: figures.loadCpuMs / 1000,
      loadMB: load.peakMB,
      perSecond: figures.perSecond,
      baselinesS: baselines.seconds,
      baselinesCpuS: baselines.cpuSeconds,
      baselinesMB: baselines.peakMB,
      validateCpuS: validate.cpuSeconds,
      validateMB: validate.peakMB,
      embedCpuS: embed.cpuSeconds,
      embedMB: embed.peakMB,
      epochS: epoch.seconds,
      epochCpuS: epoch.cpuSeconds,
      epochMB: epoch.peakMB,
      setupS,
    };
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

const COLUMNS: [string, (r: Row) => number, (x: number) => string][] = [
  ['load s', (r) => r.loadS, (x) => x.toFixed(2)],
  ['load CPU s', (r) => r.loadCpuS, (x) => x.toFixed(2)],
  ['load peak MB', (r) => r.loadMB, (x) => x.toFixed(0)],
  ['replay debates/s', (r) => r.perSecond, (x) => Math.round(x).toLocaleString('en-US')],
  ['baselines s', (r) => r.baselinesS, (x) => x.toFixed(1)],
  ['baselines CPU s', (r) => r.baselinesCpuS, (x) => x.toFixed(1)],
  ['baselines peak MB', (r) => r.baselinesMB, (x) => x.toFixed(0)],
  ['validate CPU s', (r) => r.validateCpuS, (x) => x.toFixed(1)],
  ['validate peak MB', (r) => r.validateMB, (x) => x.toFixed(0)],
  ['embed CPU s', (r) => r.embedCpuS, (x) => x.toFixed(1)],
  ['embed peak MB', (r) => r.embedMB, (x) => x.toFixed(0)],
  ['one epoch s', (r) => r.epochS, (x) => (Number.isNaN(x) ? '-' : x.toFixed(1))],
  ['one epoch CPU s', (r) => r.epochCpuS, (x) => (Number.isNaN(x) ? '-' : x.toFixed(1))],
  ['one epoch peak MB', (r) => r.epochMB, (x) => (Number.isNaN(x) ? '-' : x.toFixed(0))],
  ['epoch setup s', (r) => r.setupS, (x) => (Number.isNaN(x) ? '-' : x.toFixed(1))],
];

export async function benchScale(sizes: number[], withEpoch = true): Promise<void> {
  for (const s of sizes) if (!Number.isInteger(s) || s < 100) throw new UsageError(`bench scale: a size is a number of questions (at least 100), not '${s}'`);
  console.log(`\nScale: generated worlds, each figure a fresh process (load and replay: one; baselines and the epoch: the built bin):`);
  const rows: Row[] = [];
  for (const questions of sizes) {
    const dir = await ensureScaleCache(questions);
    rows.push(measure(questions, dir, withEpoch));
    console.error(`  measured ${dir}`);
  }
  const header = ['questions', 'responses', ...COLUMNS.map(([name]) => name)];
  const lines = rows.map((r) => [r.questions.toLocaleString('en-US'), r.responses.toLocaleString('en-US'), ...COLUMNS.map(([, get, fmt]) => fmt(get(r)))]);
  // Growth per 10x: a row's figure over the figure of the row a tenth its size (replay: the rate's inverse, time per debate).
  for (const r of rows) {
    const smaller = rows.find((s) => s.questions * 10 === r.questions);
    if (smaller)
      lines.push([
        `x10 to ${r.questions.toLocaleString('en-US')}`,
        (r.responses / smaller.responses).toFixed(1),
        ...COLUMNS.map(([name, get]) => `${(name.startsWith('replay') ? get(smaller) / get(r) : get(r) / get(smaller)).toFixed(1)}x`),
      ]);
  }
  console.log(`| ${header.join(' | ')} |\n|${header.map(() => ' ---: ').join('|')}|\n${lines.map((l) => `| ${l.join(' | ')} |`).join('\n')}`);
  console.log('  (growth rows: each figure over the one a tenth the size; replay: time per debate; 10x is linear)');
  const top = rows.find((r) => r.questions === 100000);
  if (top) {
    console.log(`  100,000 questions: load ${beside('scale: load of 100,000 questions', top.loadS, 's', { limit: 10, atMost: true })}`);
    console.log(`  baselines ${beside('scale: baselines on 100,000 questions', top.baselinesS, 's', { limit: 60, atMost: true })}`);
    const peak = Math.max(top.loadMB, top.baselinesMB, top.validateMB, top.embedMB, Number.isNaN(top.epochMB) ? 0 : top.epochMB);
    console.log(`  peak memory ${beside('scale: peak memory at 100,000 questions', peak, 'MB', { limit: 3072, atMost: true })}`);
  }
}
