// A real full disk and a real read-only folder (a small tmpfs, mounted as root; skipped, saying why,
// where mount is not permitted): the command stops with one line naming the path and the cause,
// exit 1, no stack trace; what was there stays (the last checkpoint, a cache, a report), no
// temporary file or lock is left; with space again (or writable again), the same command, or
// `train --resume`, continues. Faults injected into node:fs: tests/io/atomic.test.ts.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statfsSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileBytes } from '../fixtures/bytes.ts';
import { writeTinyCache } from '../fixtures/tinyWorld.ts';

const BIN = resolve(import.meta.dirname, '../../bin/cpp-workbench.mjs');
const base = mkdtempSync(join(tmpdir(), 'cpp-disk-'));
const disk = join(base, 'disk');

/** Why a tmpfs cannot be mounted here, or null when it can. */
function cannotMount(): string | null {
  if (process.getuid?.() !== 0) return `not root (uid ${process.getuid?.()}): mount needs root`;
  mkdirSync(disk, { recursive: true });
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=16m', 'tmpfs', disk], { stdio: 'pipe' });
    return null;
  } catch (e) {
    return `mount -t tmpfs is not permitted here: ${String((e as { stderr?: Buffer }).stderr ?? e).trim()}`;
  }
}
const why = cannotMount();
const mount = (options: string) => execFileSync('mount', ['-o', `remount,${options}`, disk]);

/** Leave `bytes` free on the tmpfs (a filler file takes the rest); 0 empties the filler. */
function leaveFree(bytes: number | null): void {
  rmSync(join(disk, 'filler'), { force: true });
  if (bytes === null) return;
  const s = statfsSync(disk);
  writeFileSync(join(disk, 'filler'), Buffer.alloc(Math.max(0, s.bavail * s.bsize - bytes)));
}

const cli = (args: string[]) => {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd: base, encoding: 'utf8' });
  return { code: r.status, err: r.stderr.trim(), out: r.stdout };
};
/** What a refused command must leave: no temporary file, no lock. */
const leftovers = (dir: string) => readdirSync(dir, { recursive: true }).filter((f) => /\.tmp$|(^|\/)\.lock$/.test(String(f)));
const train = (epochs: number) => [
  'train',
  '--cache',
  'cache',
  '--rounds',
  '2',
  '--miss',
  'error',
  '--batch-size',
  '6',
  '--hidden',
  '16',
  '--epochs',
  String(epochs),
];

describe.skipIf(why !== null)(`a full disk and a read-only folder, on a tmpfs${why ? ` (skipped: ${why})` : ''}`, () => {
  let checkpointBytes = 0;
  beforeAll(() => {
    writeTinyCache(join(base, 'cache'));
    // The size of a checkpoint of this run, to leave room for two of them and not three.
    const sizing = cli([...train(1), '--out', 'sizing']);
    expect(sizing.code, sizing.err).toBe(0);
    checkpointBytes = statSync(join(base, 'sizing', 'checkpoint.json')).size;
  }, 600_000);
  afterAll(() => execFileSync('umount', [disk]));

  it('train: a checkpoint that does not fit stops the run in one line; --resume continues once there is space', () => {
    const out = join(disk, 'run');
    // The first checkpoint and the first best policy fit; the next checkpoint, written beside the last, does not.
    leaveFree(Math.round(2.6 * checkpointBytes));
    const full = cli([...train(3), '--out', out]);
    expect(full.err.split('\n').at(-1)).toMatch(new RegExp(`^${out}/[\\w.]+: not written: no space left on device \\(ENOSPC\\); `));
    expect(full.code).toBe(1);
    expect(full.err).not.toMatch(/^\s+at /m);
    expect(JSON.parse(readFileSync(join(out, 'checkpoint.json'), 'utf8')).epoch).toBeLessThan(3);
    expect(leftovers(out)).toEqual([]);
    leaveFree(null);
    expect(cli(['train', '--resume', '--out', out]).code).toBe(0);
    expect(JSON.parse(readFileSync(join(out, 'checkpoint.json'), 'utf8')).epoch).toBe(3);
  }, 600_000);

  it('train --resume in a read-only folder: one line naming the folder and the cause; nothing changes; writable again, it goes on', () => {
    const out = join(disk, 'ro-run');
    expect(cli([...train(1), '--out', out]).code).toBe(0);
    // A run with an epoch left to train (--resume of a finished run writes nothing, not even its lock).
    const saved = JSON.parse(readFileSync(join(out, 'checkpoint.json'), 'utf8'));
    writeFileSync(join(out, 'checkpoint.json'), JSON.stringify({ ...saved, config: { ...saved.config, epochs: 2 } }));
    const before = fileBytes(join(out, 'checkpoint.json'));
    mount('ro');
    try {
      const ro = cli(['train', '--resume', '--out', out]);
      expect(ro.err).toMatch(new RegExp(`^${out}/\\.lock: not written: read-only file system \\(EROFS\\); `));
      expect(ro.code).toBe(1);
    } finally {
      mount('rw');
    }
    expect(fileBytes(join(out, 'checkpoint.json'))).toEqual(before);
    expect(leftovers(out)).toEqual([]);
    expect(cli(['train', '--resume', '--out', out]).code).toBe(0);
  }, 600_000);

  it('cache gen on a full disk: one line naming cache.jsonl; a cache there before stays whole', () => {
    const out = join(disk, 'world');
    expect(cli(['cache', 'gen', '--out', out, '--questions', '12']).code).toBe(0);
    const before = fileBytes(join(out, 'cache.jsonl'));
    leaveFree(64 * 1024);
    const full = cli(['cache', 'gen', '--out', out, '--questions', '400', '--force']);
    expect(full.err.split('\n').at(-1)).toBe(`${out}/cache.jsonl: not written: no space left on device (ENOSPC); the file there before is unchanged`);
    expect(full.code).toBe(1);
    expect(fileBytes(join(out, 'cache.jsonl'))).toEqual(before);
    expect(leftovers(out)).toEqual([]);
    leaveFree(null);
  }, 600_000);
});
