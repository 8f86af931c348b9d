// Training runs in child processes (so two cores train two runs at once): a finished run is
// reused, an interrupted one resumed, a failed one reported with the end of its log.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeFileAtomic } from '../src/cache/write.ts';
import { loadCheckpoint } from '../src/policy/artifact.ts';
import { LAUNCHED_BY } from '../src/provenance.ts';
import { COMPUTE_SETTINGS, resolveConfig, type TrainConfig } from './config.ts';
import { runFiles } from './runFolder.ts';

/** What training `out` to `epochs` epochs does: reuse a finished run, resume an interrupted one, or start one. */
export function runAction(out: string, epochs: number): { action: 'reuse' | 'resume' | 'start'; epoch: number } {
  if (!existsSync(runFiles(out).checkpoint)) return { action: 'start', epoch: 0 };
  const epoch = loadCheckpoint(runFiles(out).checkpoint).epoch;
  return { action: epoch >= epochs ? 'reuse' : 'resume', epoch };
}

export const isFinished = (out: string, epochs: number) => runAction(out, epochs).action === 'reuse';

/**
 * A run folder that already holds a run of other settings is an error naming them: it would be
 * reused or resumed as if it were this run (how it computes may differ; settings added to the
 * trainer after the run was saved are not compared).
 */
export function checkRunSettings(settings: Partial<TrainConfig> & { out: string }): void {
  const file = runFiles(settings.out).checkpoint;
  if (!existsSync(file)) return;
  const saved = loadCheckpoint(file).config;
  const wanted = resolveConfig(settings) as Record<string, unknown>;
  const differ = Object.keys(wanted).filter((k) => k in saved && !(COMPUTE_SETTINGS as readonly string[]).includes(k) && JSON.stringify(saved[k]) !== JSON.stringify(wanted[k]));
  if (differ.length)
    throw new Error(`${settings.out} holds a run with other settings (${differ.map((k) => `${k} ${JSON.stringify(saved[k])} there, ${JSON.stringify(wanted[k])} asked`).join('; ')}): choose another folder, or delete it to train anew`);
}

/**
 * Train `settings` (which name their `out` folder) unless already finished; the child's stderr goes
 * to `<out>/train.log`; `onEpoch` is called at every validation line.
 */
export function runTraining(settings: Partial<TrainConfig> & { out: string }, epochs: number, onEpoch: () => void): Promise<'reused' | 'trained'> {
  const out = settings.out;
  checkRunSettings(settings);
  if (isFinished(out, epochs)) return Promise.resolve('reused');
  mkdirSync(out, { recursive: true });
  const settingsFile = join(out, 'settings.json');
  writeFileAtomic(settingsFile, [JSON.stringify(settings, null, 2) + '\n']);
  const args = ['--import', 'tsx', fileURLToPath(new URL('./trainChild.ts', import.meta.url)), settingsFile];
  if (existsSync(runFiles(out).checkpoint)) args.push('--resume');
  return new Promise((resolve, reject) => {
    // The child's provenance names the job (main, ablate) that started it.
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, [LAUNCHED_BY]: JSON.stringify(process.argv.slice(1)) } });
    let log = '';
    child.stderr.on('data', (chunk: Buffer) => {
      const text = chunk.toString();
      log += text;
      for (const _ of text.matchAll(/^epoch \d+:/gm)) onEpoch();
    });
    child.on('exit', (code, signal) => {
      writeFileSync(join(out, 'train.log'), log);
      if (code === 0) resolve('trained');
      // exitCode 1: the training raised an error (trainChild.ts); a signal or another code: a crash.
      else reject(Object.assign(new Error(`training in ${out} failed (exit ${code ?? signal}): ${log.trim().split('\n').slice(-3).join(' | ')}`), { exitCode: code }));
    });
  });
}

/** Run `task` over `items`, `workers` at a time; results (or errors) in item order. */
export async function pool<T, R>(items: T[], workers: number, task: (item: T) => Promise<R>): Promise<PromiseSettledResult<R>[]> {
  const results: PromiseSettledResult<R>[] = new Array(items.length);
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(workers, items.length) }, async () => {
    for (let i = next++; i < items.length; i = next++) {
      try {
        results[i] = { status: 'fulfilled', value: await task(items[i]) };
      } catch (e) {
        results[i] = { status: 'rejected', reason: e };
      }
    }
  }));
  return results;
}
