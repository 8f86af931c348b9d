// Ctrl-C (SIGINT) and SIGTERM during training (train/stopped.ts, src/io/interrupt.ts): `train` says
// which checkpoint it saved and the exact command that continues, releases its lock and exits 130;
// that command ends where an uninterrupted run ends. `main`, stopped by a SIGTERM to itself alone (a
// scheduler), forwards it to its training children, says which runs were saved, and exits 143; its
// rerun finishes the job.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { generateCache } from '../../src/sim/generate.ts';
import { readLog, runFiles } from '../../train/runFolder.ts';

const BIN = resolve(import.meta.dirname, '../../bin/cpp-workbench.mjs');
const dir = mkdtempSync(join(tmpdir(), 'cpp-stopped-'));

/** Run the command line in `dir`; `signal` is sent (to the command alone) once `when()` holds. */
function run(args: string[], signal?: { name: NodeJS.Signals; when: () => boolean }): Promise<{ code: number | null; err: string }> {
  const child = spawn(process.execPath, [BIN, ...args], { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const poll = signal && setInterval(() => signal.when() && (clearInterval(poll), child.kill(signal.name)), 100);
  return new Promise((done) => child.on('close', (code) => (clearInterval(poll), done({ code, err }))));
}

/** The epoch of the checkpoint in run folder `out` (-1 when none). */
const epochOf = (out: string) => {
  try {
    return JSON.parse(readFileSync(runFiles(join(dir, out)).checkpoint, 'utf8')).epoch as number;
  } catch {
    return -1;
  }
};
/** Lock files and temporary files left in `folder`. */
const leftovers = (folder: string) => readdirSync(join(dir, folder), { recursive: true }).filter((f) => /\.tmp$|(^|\/)\.lock$/.test(String(f)));
const withoutTimes = (out: string) => readLog(join(dir, out)).map(({ time: _, seconds: __, decisionsPerSecond: ___, ...l }) => l);

beforeAll(async () => {
  await generateCache(join(dir, 'cache'), { questions: 60, seed: 11 }, 'stopped');
  writeFileSync(join(dir, 'small.json'), JSON.stringify({ epochs: 12, batchSize: 4, hidden: 16 }));
}, 600_000);

describe('a stop by signal during training', () => {
  const train = (out: string) => ['train', '--cache', 'cache', '--config', 'small.json', '--out', out];

  it('train: Ctrl-C says the checkpoint saved and the command that continues; that command ends where an uninterrupted run ends', async () => {
    const stopped = await run(train('stopped'), { name: 'SIGINT', when: () => epochOf('stopped') >= 2 });
    expect(stopped.err).toMatch(/interrupted \(SIGINT\): stopping/);
    expect(stopped.err).toMatch(/stopped: saved the checkpoint of epoch \d+ of 12; best\.json: epoch \d+; the epoch in progress is trained again/);
    expect(stopped.code).toBe(130);
    expect(leftovers('stopped')).toEqual([]);
    const next = /^to continue: npx cpp-workbench (.*)$/m.exec(stopped.err)?.[1];
    expect(next).toBe('train --resume --out stopped');
    expect((await run(next!.split(' '))).code).toBe(0);
    expect((await run(train('whole'))).code).toBe(0);
    expect(withoutTimes('stopped')).toEqual(withoutTimes('whole'));
    expect(readFileSync(runFiles(join(dir, 'stopped')).best, 'utf8')).toBe(readFileSync(runFiles(join(dir, 'whole')).best, 'utf8'));
  }, 600_000);

  it('main: a SIGTERM to the job alone stops its training children too; it says which runs were saved; the rerun finishes', async () => {
    const main = ['main', '--cache', 'cache', '--seeds', '2', '--workers', '2', '--config', 'small.json', '--out', 'job'];
    const stopped = await run(main, { name: 'SIGTERM', when: () => epochOf('job/seed-0') >= 1 || epochOf('job/seed-1') >= 1 });
    expect(stopped.err).toMatch(/stopped by SIGTERM: stopping/);
    for (const seed of [0, 1]) expect(stopped.err).toMatch(new RegExp(`^job/seed-${seed}: (saved|no checkpoint yet|finished)`, 'm'));
    expect(stopped.err).toContain(`to continue: npx cpp-workbench ${main.join(' ')}`);
    expect(stopped.code).toBe(143);
    // The children stopped with the job: each said where its run stands, in its train.log.
    for (const seed of [0, 1]) expect(readFileSync(join(dir, `job/seed-${seed}/train.log`), 'utf8')).toMatch(/stopped by SIGTERM/);
    expect(leftovers('job')).toEqual([]);
    expect((await run(main)).code).toBe(0);
    expect(existsSync(join(dir, 'job/report/comparison.md'))).toBe(true);
  }, 600_000);
});
