// bin/cpp-workbench.mjs chooses what runs: dist/ when it is built and no source is newer; in a
// checkout whose dist/ is missing or older, the sources through tsx, with a line saying why. Tried
// in a stand-in checkout (the real bin, a one-line command line in each place) so that nothing of
// this repository is touched; tests/package.test.ts runs the real one from the packed package.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const repo = resolve(import.meta.dirname, '../..');

function standIn(): { dir: string; run: () => { status: number | null; stdout: string; stderr: string } } {
  const dir = mkdtempSync(join(tmpdir(), 'cpp-bin-'));
  for (const d of ['bin', 'src', 'train', 'eval', 'jobs', 'cli', 'dist/cli']) mkdirSync(join(dir, d), { recursive: true });
  copyFileSync(join(repo, 'bin/cpp-workbench.mjs'), join(dir, 'bin/cpp-workbench.mjs'));
  symlinkSync(join(repo, 'node_modules'), join(dir, 'node_modules'));
  writeFileSync(join(dir, 'package.json'), '{ "type": "module" }\n');
  for (const f of ['tsconfig.json', 'tsconfig.build.json']) writeFileSync(join(dir, f), '{}\n');
  writeFileSync(join(dir, 'src/library.ts'), 'export const x: number = 1;\n');
  writeFileSync(join(dir, 'cli/index.ts'), "const from: string = 'the sources';\nconsole.log(from, process.argv.slice(2).join(' '));\n");
  writeFileSync(join(dir, 'dist/cli/index.js'), "console.log('dist', process.argv.slice(2).join(' '));\n");
  writeFileSync(join(dir, 'dist/tsconfig.build.tsbuildinfo'), '{}\n');
  const run = () => spawnSync(process.execPath, [join(dir, 'bin/cpp-workbench.mjs'), '--help'], { cwd: tmpdir(), encoding: 'utf8' });
  return { dir, run };
}

/** Set a file's modification time `seconds` from now. */
const age = (file: string, seconds: number) => utimesSync(file, new Date(), new Date(Date.now() + seconds * 1000));

describe('bin/cpp-workbench.mjs', () => {
  it('runs dist/ when it is newer than every source, saying nothing', () => {
    const { dir, run } = standIn();
    age(join(dir, 'dist/tsconfig.build.tsbuildinfo'), 10);
    expect(run()).toMatchObject({ status: 0, stdout: 'dist --help\n', stderr: '' });
  });

  it('runs the sources through tsx, and says why, when a source is newer than dist/ or dist/ is not built', () => {
    const { dir, run } = standIn();
    age(join(dir, 'dist/tsconfig.build.tsbuildinfo'), -10);
    const stale = run();
    expect(stale.stdout).toBe('the sources --help\n');
    expect(stale.stderr).toMatch(/^cpp-workbench: dist\/ is older than \S+: running the TypeScript sources through tsx .*`npm run build` updates dist\/\n$/);
    age(join(dir, 'dist/tsconfig.build.tsbuildinfo'), 10);
    age(join(dir, 'src/library.ts'), 20); // an edit after the build
    expect(run().stderr).toContain('dist/ is older than src/library.ts');
    rmSync(join(dir, 'dist/tsconfig.build.tsbuildinfo'));
    expect(run()).toMatchObject({ stdout: 'the sources --help\n', stderr: expect.stringContaining('cpp-workbench: dist/ is not built:') });
  }, 300_000);

  it('runs dist/ as it is where there are no sources (an installed package)', () => {
    const { dir, run } = standIn();
    rmSync(join(dir, 'tsconfig.build.json'));
    age(join(dir, 'dist/tsconfig.build.tsbuildinfo'), -10);
    expect(run()).toMatchObject({ status: 0, stdout: 'dist --help\n', stderr: '' });
  });
});
