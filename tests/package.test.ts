// The package as a user installs it: built (`npm run build`), packed (`npm pack`), the tarball
// unpacked into an empty project where `npm install` would put it, its dependencies linked from this
// repository's node_modules instead of downloaded (offline and quick). Then on plain Node, no tsx:
// the three entry points import from dist/ with their type declarations, the inference example of
// docs/deploy.md runs as it stands (TF.js unloadable), and the built bin runs a small main job whose
// training child and ONNX worker thread run from dist/ too.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { exportPolicy } from '../src/policy/export.ts';
import { untrainedCheckpoint } from './fixtures/untrainedPolicy.ts';

const repo = resolve(import.meta.dirname, '..');
const GUARD = join(import.meta.dirname, 'fixtures/forbidModules.mjs');

describe('the packed package, installed in an empty project', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cpp-package-'));
  const app = join(dir, 'app');
  const installed = join(app, 'node_modules', 'cpp-workbench');
  /** Plain Node in the project; `forbidden` packages (a regular expression) fail to load in it and in every process it starts. */
  const node = (args: string[], forbidden = '(?!)') =>
    spawnSync(process.execPath, args, {
      cwd: app,
      encoding: 'utf8',
      env: { ...process.env, NODE_OPTIONS: `--import ${GUARD}`, FORBIDDEN_MODULES: forbidden },
    });

  beforeAll(async () => {
    execFileSync('npm', ['run', 'build', '--silent'], { cwd: repo, stdio: 'pipe' });
    const [{ filename }] = JSON.parse(execFileSync('npm', ['pack', '--json', '--pack-destination', dir], { cwd: repo, encoding: 'utf8', stdio: 'pipe' }));
    mkdirSync(join(app, 'node_modules', '.bin'), { recursive: true });
    execFileSync('tar', ['-xzf', join(dir, filename), '-C', join(app, 'node_modules')]);
    renameSync(join(app, 'node_modules', 'package'), installed);
    symlinkSync(join(repo, 'node_modules'), join(installed, 'node_modules'));
    symlinkSync('../cpp-workbench/bin/cpp-workbench.mjs', join(app, 'node_modules', '.bin', 'cpp-workbench'));
    writeFileSync(join(app, 'package.json'), '{ "type": "module", "private": true }\n');
    await exportPolicy(untrainedCheckpoint(['atlas', 'sage', 'brisk'], 'deploy'), join(app, 'checkpoints/k0/export'));
  }, 600_000);

  it('holds the built JavaScript and declarations, and no TypeScript source', () => {
    const files = readdirSync(installed, { recursive: true, encoding: 'utf8' }).filter((f) => !f.startsWith('node_modules'));
    expect(files.filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts') && !f.endsWith('.d.mts'))).toEqual([]);
    expect(files).toEqual(
      expect.arrayContaining([
        'bin/cpp-workbench.mjs',
        'dist/cli/index.js',
        'dist/train/trainingProcess.js',
        'dist/jobs/trainingProcessMain.js',
        'dist/src/policy/onnx/worker.mjs',
      ]),
    );
    // Every relative import of the built JavaScript names JavaScript (tsc rewrites `.ts`; a dynamic
    // import it left would fail at run time). The bin names the sources only for a checkout's tsx fallback.
    const js = files.filter((f) => f.startsWith('dist/') && /\.m?js$/.test(f));
    const tsImports = js.flatMap((f) =>
      [...readFileSync(join(installed, f), 'utf8').matchAll(/(?:from|import\()\s*['"](\.{1,2}\/[^'"]+\.ts)['"]/g)].map((m) => `${f}: ${m[1]}`),
    );
    expect(tsImports).toEqual([]);
  });

  it("imports cpp-workbench, cpp-workbench/inference and cpp-workbench/jobs on plain Node, from the package's dist/", () => {
    const r = node(
      [
        '--input-type=module',
        '-e',
        `const out = {};
        for (const [name, fn] of [['cpp-workbench', 'loadCache'], ['cpp-workbench/inference', 'loadDeployedPolicy'], ['cpp-workbench/jobs', 'evalJob']])
          out[name] = [import.meta.resolve(name), typeof (await import(name))[fn]];
        console.log(JSON.stringify(out));`,
      ],
      '^tsx',
    );
    expect(r.stderr).toBe('');
    const dist = `file://${installed}/dist`;
    expect(JSON.parse(r.stdout)).toEqual({
      'cpp-workbench': [`${dist}/src/index.js`, 'function'],
      'cpp-workbench/inference': [`${dist}/src/policy/inference.js`, 'function'],
      'cpp-workbench/jobs': [`${dist}/jobs/index.js`, 'function'],
    });
  }, 600_000);

  it('gives a TypeScript project the types of its entry points', () => {
    writeFileSync(
      join(app, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          module: 'nodenext',
          target: 'es2022',
          strict: true,
          noEmit: true,
          skipLibCheck: true,
          typeRoots: [join(repo, 'node_modules/@types')],
        },
        files: ['consumer.ts'],
      }),
    );
    const check = (body: string) => {
      writeFileSync(
        join(app, 'consumer.ts'),
        `import { loadCache } from 'cpp-workbench';\nimport { loadDeployedPolicy, type Decision } from 'cpp-workbench/inference';\n` +
          `import { evalJob } from 'cpp-workbench/jobs';\n${body}\nexport { evalJob };\n`,
      );
      return spawnSync(process.execPath, [join(repo, 'node_modules/typescript/bin/tsc'), '-p', app], { encoding: 'utf8' });
    };
    const typed = check(
      `const policy = await loadDeployedPolicy('checkpoints/k0/export/policy.json');\n` +
        `const decisions: Decision[] = await policy.decide({ question: { text: 'q', tokens: 9 }, round: 2, recipient: 'atlas', responses: {} });\n` +
        `const team: string[] = policy.artifact.team;\nconst n: number = loadCache('cache/x').questions.length;\nexport { decisions, team, n };`,
    );
    expect(typed.stdout).toBe('');
    expect(typed.status).toBe(0);
    // The declarations carry real types: a wrong use is an error.
    const wrong = check(`const policy = await loadDeployedPolicy('p.json');\nexport const team: number = policy.artifact.team;`);
    expect(wrong.stdout).toContain("error TS2322: Type 'string[]' is not assignable to type 'number'");
  }, 600_000);

  it('runs the inference example of docs/deploy.md as it stands, on ONNX Runtime alone (TF.js cannot load)', () => {
    const example = readFileSync(join(repo, 'docs/deploy.md'), 'utf8').match(/```js\n([\s\S]*?)```/)![1];
    writeFileSync(join(app, 'deploy.mjs'), example);
    const r = node(['deploy.mjs'], '^@tensorflow/|^tsx');
    expect(r.stderr).toBe('');
    expect(r.stdout.trim().split('\n')).toEqual([
      'team atlas, sage, brisk, encoder bof-256',
      expect.stringMatching(/^atlas: (keep|prune) \(p = [01]\.\d\d\)$/),
      expect.stringMatching(/^sage: (keep|prune) \(p = [01]\.\d\d\)$/),
      expect.stringMatching(/^brisk: (keep|prune) \(p = [01]\.\d\d\)$/),
    ]);
    // The guard does stop TF.js in this project: the same process setup fails on an import of it.
    const guarded = node(['--input-type=module', '-e', "await import('@tensorflow/tfjs')"], '^@tensorflow/');
    expect(guarded.status).not.toBe(0);
    expect(guarded.stderr).toContain('forbidden module loaded: @tensorflow/tfjs');
  }, 600_000);

  it('runs its bin from dist/: --help, and a main job whose training child and ONNX worker thread run the built code', () => {
    const bin = join(app, 'node_modules/.bin/cpp-workbench');
    const help = node([bin, '--help'], '^tsx');
    expect(help.stderr).toBe(''); // no note: an installed package has no sources to be older than
    expect(help.stdout).toMatch(/cpp-workbench main +the main job/);
    expect(node([bin, 'cache', 'gen', '--questions', '60', '--out', 'world'], '^tsx').status).toBe(0);
    writeFileSync(join(app, 'tiny.json'), JSON.stringify({ epochs: 1, batchSize: 8, hidden: 8, rollouts: 2 }));
    const main = node([bin, 'main', '--cache', 'world', '--config', 'tiny.json', '--seeds', '1', '--workers', '1', '--out', 'job'], '^tsx');
    expect(main.stderr).not.toContain('forbidden module');
    expect(main.status).toBe(0);
    expect(main.stdout).toContain('CPP runs: seed 0 trained');
    const provenance = JSON.parse(readFileSync(join(app, 'job/seed-0/provenance.json'), 'utf8'));
    expect(provenance.sessions[0].command[0]).toBe(join(installed, 'dist/jobs/trainingProcessMain.js')); // the main job's training process (it serves the comparison too)
    expect(provenance.sessions[0].compute.engine).toBe('onnx');
  }, 600_000);
});
