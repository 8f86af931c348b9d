import type { ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanTemp, LOCK_FILE, lockFolder, lockHolder as holderOf } from '../../src/io/lock.ts';
import { killHolder, lockHolder } from '../fixtures/lockHolder.ts';

const children: ChildProcess[] = [];
afterEach(async () => {
  for (const c of children.splice(0)) await killHolder(c);
});
const holder = async (dir: string) => {
  const child = await lockHolder(dir);
  children.push(child);
  return child;
};

describe('folder locks (one writer at a time)', () => {
  it("a second writer is refused with the holder named (pid and start time); a killed holder's lock is taken over", async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'cpp-lock-')), 'run');
    const child = await holder(dir);
    expect(holderOf(dir)?.pid).toBe(child.pid);
    let message = '';
    try {
      lockFolder(dir, 'a training run');
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).toContain(`${dir} is being written by another process (a test holder: pid ${child.pid} on `);
    expect(message).toMatch(/started \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d/);
    expect(message).toContain('wait for it to finish, or stop it');
    await killHolder(child);
    // Killed: its lock file stays, names a pid that no longer runs, and is taken over.
    expect(existsSync(join(dir, LOCK_FILE))).toBe(true);
    const release = lockFolder(dir, 'a training run');
    expect(holderOf(dir)?.pid).toBe(process.pid);
    release();
    expect(existsSync(join(dir, LOCK_FILE))).toBe(false);
  }, 300_000);

  it("a lock copied along with its folder is not the copy's: the copy can be written at once", async () => {
    const root = mkdtempSync(join(tmpdir(), 'cpp-lock-'));
    const child = await holder(join(root, 'run'));
    cpSync(join(root, 'run'), join(root, 'copy'), { recursive: true });
    const release = lockFolder(join(root, 'copy'), 'a training run');
    release();
    expect(() => lockFolder(join(root, 'run'), 'a training run')).toThrow(`pid ${child.pid}`);
  }, 300_000);

  it('a refused write leaves no folder it made only to lock', () => {
    const root = mkdtempSync(join(tmpdir(), 'cpp-lock-'));
    const release = lockFolder(join(root, 'a', 'b'), 'a training run');
    release();
    expect(readdirSync(root)).toEqual([]);
  });

  it('temporary files of dead writers (spill files too) are removed by the next writer; those of live ones stay', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cpp-lock-'));
    mkdirSync(join(dir, 'embeddings'));
    // pid 2^22 + 1 is above Linux's pid_max: no process has it.
    const dead = 4194305;
    writeFileSync(join(dir, `checkpoint.json.${dead}.tmp`), 'half a checkpoint');
    writeFileSync(join(dir, 'embeddings', `bof-256.jsonl.${dead}.tmp`), 'half a file');
    mkdirSync(join(dir, `export.${dead}.tmp`));
    // A killed columns build's and import's spill files.
    writeFileSync(join(dir, `cache.columns.${dead}.text.tmp`), 'spilled texts');
    writeFileSync(join(dir, `import.${dead}.responses.tmp`), 'spilled records');
    writeFileSync(join(dir, `log.jsonl.${process.pid}.tmp`), 'being written now');
    writeFileSync(join(dir, 'notes.tmp'), 'not ours');
    const release = lockFolder(dir, 'a training run');
    release();
    expect(readdirSync(dir).sort()).toEqual(['embeddings', `log.jsonl.${process.pid}.tmp`, 'notes.tmp']);
    expect(readdirSync(join(dir, 'embeddings'))).toEqual([]);
    expect(cleanTemp(dir)).toEqual([]);
  });
});
