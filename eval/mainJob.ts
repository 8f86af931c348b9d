// The main job (`npm start`): baselines on the default simulated world, then a CPP policy trained
// with `train/configs/main.json` for several seeds (two at a time, in child processes; finished
// seeds are reused and interrupted ones resumed), evaluated on the test split and compared.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Split } from '../src/cache/format.ts';
import type { DebateSettings } from '../src/env/settings.ts';
import { loadCheckpoint } from '../src/policy/artifact.ts';
import { progress } from '../src/progress.ts';
import { markdownTable } from '../src/table.ts';
import { readConfigFile } from '../train/config.ts';
import { runFiles } from '../train/trainer.ts';
import { evalJob } from './evalPolicy.ts';
import { baselineJob, ensureDefaultCache } from './main.ts';

export interface MainOptions {
  cache: string;
  split: Split;
  settings: Partial<DebateSettings>;
  config: string;
  seeds: number;
  runs: string;
  workers: number;
}

const mean = (x: number[]) => x.reduce((a, b) => a + b, 0) / x.length;
const sd = (x: number[]) => (x.length < 2 ? NaN : Math.sqrt(x.reduce((a, b) => a + (b - mean(x)) ** 2, 0) / (x.length - 1)));
/** "m ± sd (n = k)", never a bare ±. */
export const meanSd = (x: number[], digits = 1) => `${mean(x).toFixed(digits)} ± ${Number.isNaN(sd(x)) ? '-' : sd(x).toFixed(digits)} (n = ${x.length})`;

function trainSeed(o: MainOptions, seed: number, onEpoch: () => void): Promise<void> {
  const out = join(o.runs, `seed-${seed}`);
  const epochs = Number(readConfigFile(o.config).epochs ?? 12);
  const files = runFiles(out);
  if (existsSync(files.checkpoint) && loadCheckpoint(files.checkpoint).epoch >= epochs) return Promise.resolve();
  const args = ['--import', 'tsx', 'src/cli.ts', 'train', '--config', o.config, '--cache', o.cache, '--seed', String(seed), '--out', out];
  if (existsSync(files.checkpoint)) args.push('--resume');
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let log = '';
    child.stderr.on('data', (chunk: Buffer) => {
      log += chunk.toString();
      for (const _ of chunk.toString().matchAll(/^epoch \d+:/gm)) onEpoch();
    });
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`training seed ${seed} failed (exit ${code}):\n${log.slice(-2000)}`))));
  });
}

export async function mainJob(o: MainOptions): Promise<string> {
  ensureDefaultCache(o.cache);
  const baselines = baselineJob(o);
  console.log(baselines);
  const seeds = Array.from({ length: o.seeds }, (_, s) => s);
  const epochs = Number(readConfigFile(o.config).epochs ?? 12);
  console.error(`\ntraining CPP (${o.config}) for ${o.seeds} seeds, ${o.workers} at a time, in ${o.runs}/`);
  const bar = progress('train CPP', seeds.length * epochs);
  let done = 0;
  const queue = [...seeds];
  await Promise.all(Array.from({ length: Math.min(o.workers, seeds.length) }, async () => {
    for (let seed = queue.shift(); seed !== undefined; seed = queue.shift()) await trainSeed(o, seed, () => bar.update(++done));
  }));
  bar.stop();
  const policies = seeds.map((s) => runFiles(join(o.runs, `seed-${s}`)).best);
  const { results } = await evalJob({ policies, cache: o.cache, split: o.split, backend: 'auto', settings: o.settings });
  const [full, none, ...cpp] = results;
  const acc = (r: (typeof results)[number]) => (100 * r.correct) / r.questions;
  const cost = (r: (typeof results)[number]) => (100 * r.cost) / full.cost;
  const kept = (r: (typeof results)[number]) => (100 * r.keptEdges) / r.maxEdges;
  const table = markdownTable(
    ['method', 'accuracy % (mean ± sd, n seeds)', 'cost %', 'kept edges %'],
    [
      [full.method, acc(full).toFixed(1), '100.0', '100.0'],
      [none.method, acc(none).toFixed(1), cost(none).toFixed(1), kept(none).toFixed(1)],
      ['CPP (FuseGLU, best validation checkpoint)', meanSd(cpp.map(acc)), meanSd(cpp.map(cost)), meanSd(cpp.map(kept))],
      ...cpp.map((r, s) => [`  seed ${s}`, acc(r).toFixed(1), cost(r).toFixed(1), kept(r).toFixed(1)]),
    ],
  );
  return `\nCPP against Full-Debate on the ${o.split} split (${full.questions} questions); runs in ${o.runs}/, settings ${o.config}\n\n${table}`;
}
