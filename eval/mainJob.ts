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
import { readConfigFile } from '../train/config.ts';
import { runFiles } from '../train/trainer.ts';
import { evalJob, METHODS } from './evalPolicy.ts';
import { ensureDefaultCache } from '../src/sim/generate.ts';

export interface MainOptions {
  cache: string;
  split: Split;
  settings: Partial<DebateSettings>;
  config: string;
  seeds: number;
  runs: string;
  workers: number;
}

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
  const { table, files } = await evalJob({ policies, cache: o.cache, split: o.split, backend: 'auto', settings: o.settings, methods: [...METHODS], seeds: o.seeds, config: o.config, reference: 'Full-Debate', out: join(o.runs, 'report') });
  return `\nCPP (${o.seeds} seeds, settings ${o.config}, best validation checkpoints) against every baseline\n\n${table}\n\nwritten: ${files.join(', ')}`;
}
