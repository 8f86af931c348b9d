// No orphans: `ablate` killed alone as an OOM killer kills (SIGKILL to its pid, not its process
// group) by a parent that does not reap it (it stays a zombie), with its 2 warm training processes
// busy. Each training process stops its run (it keeps its last checkpoint and its train.log says
// why) instead of training on for nobody; the rerun takes over the lock the dead job left, with a
// line saying so, instead of being refused while the zombie's pid lingers. The cells train on
// TF.js's CPU backend, whose steps await only promises: without a turn of the event loop between
// steps (letSignalsIn) the processes never see their parent go.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { BUILT_CLI as CLI } from '../fixtures/cli.ts';
import { processState, trainingProcessesOf } from '../fixtures/trainingProcess.ts';
import { writeTinyCache } from '../fixtures/tinyWorld.ts';

const until = async (what: () => boolean) => {
  while (!what()) await new Promise((r) => setTimeout(r, 200));
};

it('ablate killed alone (SIGKILL, left a zombie): its training processes stop their runs; the rerun takes over its lock', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'cpp-orphans-'));
  writeTinyCache(join(dir, 'cache'));
  const grid = (name: string, epochs: number) => {
    const file = join(dir, `${name}.json`);
    const base = { rounds: 2, miss: 'error', epochs, batchSize: 6, hidden: 8, engine: 'tfjs', backend: 'cpu' };
    writeFileSync(file, JSON.stringify({ name, base, seeds: 2, caches: [join(dir, 'cache')], variants: [{ name }] }));
    return file;
  };
  const ablate = (file: string) => ['ablate', '--grid', file, '--out', join(dir, 'out'), '--workers', '2', '--split', 'validation'];
  // `sleep` becomes the job's parent and never reaps it: killed, the job stays a zombie.
  const shell = spawn(
    'sh',
    ['-c', `"$0" "$@" 2>"${join(dir, 'job.err')}" & echo $!; exec sleep 600`, process.execPath, ...CLI, ...ablate(grid('long', 100_000))],
    {
      stdio: ['ignore', 'pipe', 'ignore'],
    },
  );
  try {
    const job = Number(await new Promise<string>((r) => shell.stdout.once('data', (d: Buffer) => r(d.toString()))));
    const checkpoint = (seed: number) => join(dir, 'out', 'long', 'cache', `seed-${seed}`, 'checkpoint.json');
    await until(() => trainingProcessesOf(job).length === 2 && existsSync(checkpoint(0)) && existsSync(checkpoint(1)));
    const children = trainingProcessesOf(job);
    process.kill(job, 'SIGKILL');
    await until(() => processState(job) === 'Z');
    // Each stops its run: gone (or a zombie of init's, about to be reaped), having said why in its train.log.
    await until(() => children.every((c) => processState(c) === undefined || processState(c) === 'Z'));
    for (const seed of [0, 1])
      expect(readFileSync(join(dir, 'out', 'long', 'cache', `seed-${seed}`, 'train.log'), 'utf8')).toMatch(
        new RegExp(`the job that started this training process \\(pid ${job}\\) is gone: stopping; .*seed-${seed}: saved`),
      );
    // The job is still a zombie (its pid answers kill -0): its lock is taken over, and a line says so.
    expect(processState(job)).toBe('Z');
    const rerun = spawnSync(process.execPath, [...CLI, ...ablate(grid('short', 1))], { encoding: 'utf8' });
    expect(rerun.stderr).toContain(
      `${join(dir, 'out')}: taking over its lock (an ablation grid (long)), left by pid ${job}, which has died (a zombie its parent has not reaped)`,
    );
    expect(rerun.status).toBe(0);
  } finally {
    shell.kill('SIGKILL');
  }
}, 600_000);
