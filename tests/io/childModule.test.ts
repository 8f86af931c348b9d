import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

// A checkout of its own: the module under test, a source and its compiled copy, and a build stamp,
// so that sources can be made newer than the build without touching this checkout.
const root = mkdtempSync(join(tmpdir(), 'cpp-child-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
for (const dir of ['src/io', 'train', 'eval', 'jobs', 'cli', 'dist/train']) mkdirSync(join(root, dir), { recursive: true });
copyFileSync(new URL('../../src/io/childModule.ts', import.meta.url), join(root, 'src/io/childModule.ts'));
symlinkSync(new URL('../../node_modules', import.meta.url), join(root, 'node_modules'));
for (const file of ['tsconfig.json', 'tsconfig.build.json', 'train/step.ts', 'train/caller.ts', 'dist/train/step.js']) writeFileSync(join(root, file), '');
const stamp = join(root, 'dist/tsconfig.build.tsbuildinfo');
writeFileSync(stamp, '');
const past = new Date(Date.now() - 60_000);
for (const file of ['tsconfig.json', 'tsconfig.build.json', 'src/io/childModule.ts', 'train/step.ts', 'train/caller.ts'])
  utimesSync(join(root, file), past, past);
const { moduleArgs } = (await import(pathToFileURL(join(root, 'src/io/childModule.ts')).href)) as typeof import('../../src/io/childModule.ts');
const caller = pathToFileURL(join(root, 'train/caller.ts')).href;

describe('a child process runs the package code as the checkout holds it', () => {
  it('from the sources, the compiled copy when dist/ is newer than every source', () => {
    expect(moduleArgs(caller, './step')).toEqual([join(root, 'dist/train/step.js')]);
  });

  it('from the sources through tsx when a source is newer than the build, or the module has no compiled copy', () => {
    const args = moduleArgs(caller, './other');
    expect(args[0]).toBe('--import');
    expect(args.at(-1)).toBe(join(root, 'train/other.ts'));
    const future = new Date(Date.now() + 60_000);
    utimesSync(join(root, 'train/step.ts'), future, future);
    expect(moduleArgs(caller, './step').at(-1)).toBe(join(root, 'train/step.ts'));
    utimesSync(join(root, 'train/step.ts'), past, past);
    expect(moduleArgs(caller, './step')).toEqual([join(root, 'dist/train/step.js')]);
  });

  it('from compiled code, the compiled module', () => {
    expect(moduleArgs(pathToFileURL(join(root, 'dist/train/caller.js')).href, './step')).toEqual([join(root, 'dist/train/step.js')]);
  });
});
