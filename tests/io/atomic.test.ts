// A write the file system refuses (a full disk, a read-only folder, a permission): the file there
// before stays as it was, the temporary file goes, and the error is one line naming the path and
// the cause. The file system errors are injected into node:fs (tests/fixtures/fsFaults.ts; a real full disk: tests/io/diskFull.test.ts).
import { closeSync, mkdtempSync, openSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { clearFault, fault } from '../fixtures/fsFaults.ts';

vi.mock('node:fs', async (original) => (await import('../fixtures/fsFaults.ts')).faultyFs(await original()));
const { appendToFile, appendWhole, writeFileAtomic, writeFilesAtomic } = await import('../../src/io/atomic.ts');

afterEach(clearFault);

const folder = () => mkdtempSync(join(tmpdir(), 'cpp-atomic-'));

/** What `f` throws (its whole message: one line), or that it threw nothing. */
function said(f: () => void): string {
  try {
    f();
  } catch (e) {
    return (e as Error).message;
  }
  return 'nothing thrown';
}

describe('a write the file system refuses', () => {
  it('a full disk halfway through a file: the file there stays, no temporary file is left, one line says the path and the cause', () => {
    const dir = folder();
    const file = join(dir, 'checkpoint.json');
    writeFileSync(file, '{"epoch":1}');
    Object.assign(fault, { path: /checkpoint\.json\.\d+\.tmp$/, code: 'ENOSPC', room: 5 });
    expect(said(() => writeFileAtomic(file, ['{"epoch":2,', '"weights":"..."}']))).toBe(
      `${file}: not written: no space left on device (ENOSPC); the file there before is unchanged`,
    );
    expect(readFileSync(file, 'utf8')).toBe('{"epoch":1}');
    expect(readdirSync(dir)).toEqual(['checkpoint.json']);
    fault.code = undefined; // space again: the same write goes through
    writeFileAtomic(file, ['{"epoch":2}']);
    expect(readFileSync(file, 'utf8')).toBe('{"epoch":2}');
  });

  it('a short write is carried on to the end (was: the rest of the chunk was lost, and the cut file renamed into place)', () => {
    const file = join(folder(), 'cache.jsonl');
    // 1,000 bytes a call: every write is short, none fails.
    Object.assign(fault, { path: /cache\.jsonl\.\d+\.tmp$/, code: 'ENOSPC', room: Number.POSITIVE_INFINITY, most: 1000 });
    const text = 'x'.repeat(100_000);
    writeFileAtomic(file, [text, text]);
    expect(readFileSync(file, 'utf8')).toBe(text + text);
  });

  it('a read-only folder: one line naming the file and the cause; nothing written', () => {
    const dir = folder();
    const file = join(dir, 'comparison.md');
    Object.assign(fault, { path: /comparison\.md/, code: 'EROFS', room: 0 });
    expect(said(() => writeFileAtomic(file, ['# report']))).toBe(`${file}: not written: read-only file system (EROFS); nothing was written there`);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('the files of a report are replaced together: a full disk at the third leaves all of them as they were', () => {
    const dir = folder();
    const files = ['comparison.md', 'comparison.csv', 'accuracy-cost.svg'].map((f) => join(dir, f));
    for (const f of files) writeFileSync(f, 'before');
    Object.assign(fault, { path: /accuracy-cost\.svg\.\d+\.tmp$/, code: 'ENOSPC', room: 0 });
    expect(said(() => writeFilesAtomic(files.map((f) => [f, ['after']])))).toBe(
      `${files[2]}: not written: no space left on device (ENOSPC); the file there before is unchanged`,
    );
    expect(files.map((f) => readFileSync(f, 'utf8'))).toEqual(['before', 'before', 'before']);
    expect(readdirSync(dir).sort()).toEqual(['accuracy-cost.svg', 'comparison.csv', 'comparison.md']);
  });

  it('an append cut short by a full disk is cut off again: the file ends with its last whole line', () => {
    const file = join(folder(), 'log.jsonl');
    writeFileSync(file, '{"step":1}\n');
    Object.assign(fault, { path: /log\.jsonl$/, code: 'ENOSPC', room: 4 });
    expect(said(() => appendToFile(file, '{"step":2}\n'))).toBe(
      `${file}: not written: no space left on device (ENOSPC); it ends with its last whole line, as before this write`,
    );
    expect(readFileSync(file, 'utf8')).toBe('{"step":1}\n');
    // An open journal the same way (fsynced appends); with space again, the next append goes in whole.
    const fd = openSync(file, 'a');
    fault.room = 3;
    expect(said(() => appendWhole(fd, file, '{"step":2}\n', true))).toMatch(`${file}: not written: no space left on device (ENOSPC)`);
    expect(readFileSync(file, 'utf8')).toBe('{"step":1}\n');
    fault.code = undefined;
    appendWhole(fd, file, '{"step":2}\n', true);
    closeSync(fd);
    expect(readFileSync(file, 'utf8')).toBe('{"step":1}\n{"step":2}\n');
  });
});
