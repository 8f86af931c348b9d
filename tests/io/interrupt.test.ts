// SIGINT and SIGTERM (src/io/interrupt.ts): the first signal finishes what the command registered,
// says what was saved and how to continue, exits 130 or 143; the lock is released and the temporary
// file removed; a second signal exits at once. (The commands: tests/train/stopped.test.ts.)
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const SCRIPT = resolve(import.meta.dirname, '../fixtures/interruptible.ts');

/** Run the fixture with a stop of `finishMs`, send `signals` (one every 300 ms) once it is ready; its exit code and stderr. */
function interrupted(finishMs: number | 'sync', signals: NodeJS.Signals[]): Promise<{ code: number | null; err: string; dir: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'cpp-stop-'));
  const child = spawn(process.execPath, ['--import', 'tsx', SCRIPT, dir, String(finishMs)], { stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  child.stdout.on('data', (d: Buffer) => {
    if (d.toString().includes('ready')) signals.forEach((s, i) => setTimeout(() => child.kill(s), 300 * i));
  });
  return new Promise((done) => child.on('close', (code) => done({ code, err, dir })));
}

describe('a stop by signal', () => {
  it.each([
    ['SIGINT', 130, 'interrupted (SIGINT)'],
    ['SIGTERM', 143, 'stopped by SIGTERM'],
  ] as const)(
    '%s: finishes, says what was saved and how to continue, exits %i; no lock or temporary file is left',
    async (signal, code, first) => {
      const r = await interrupted(200, [signal]);
      expect(r.err.trim().split('\n')).toEqual([`${first}: stopping (signal again to stop at once)`, 'saved: what was finished', 'to continue: run it again']);
      expect(r.code).toBe(code);
      expect(readdirSync(r.dir)).toEqual([]);
    },
    60_000,
  );

  it('a signal during 3 s of synchronous work without a stop point, after which the command finishes, is said with how long the work held it; exit 0', async () => {
    const r = await interrupted('sync', ['SIGINT']);
    const lines = r.err.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^SIGINT arrived while the command ran up to (\d+\.\d) s without a stop point, and it finished meanwhile: its work is done and saved; nothing was stopped, nothing to continue \(work that long should let a stop in: src\/io\/interrupt\.ts\)$/,
    );
    expect(Number(/up to (\d+\.\d) s/.exec(lines[0])![1])).toBeGreaterThan(0.5);
    expect(r.code).toBe(0);
    expect(readdirSync(r.dir)).toEqual([]);
  }, 300_000);

  it('a second signal exits at once, releasing the lock and removing the temporary file all the same', async () => {
    // (No wall-clock bound: the 60 s the first stop would wait for never ends, so 'saved:' is never said.)
    const r = await interrupted(60_000, ['SIGINT', 'SIGINT']);
    expect(r.err).not.toContain('saved:');
    expect(r.code).toBe(130);
    expect(readdirSync(r.dir)).toEqual([]);
  }, 300_000);
});
