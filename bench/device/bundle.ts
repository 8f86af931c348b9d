// `npm run device:bundle`: the device check as an offline bundle for linux-x64, built from the
// installed packages into .device/ (ignored by git), which the device tool carries to a lent GPU
// machine (no package registry, no Node there): .device/device-check.sh and cpp-device.tar.xz,
// holding this machine's Node binary, esbuild bundles of the command line, the warm training
// process, the bench and the check (app/), the ONNX worker thread, onnxruntime-node and webgpu with
// their linux-x64 native files only, the two packages the code requires at run time,
// bench/torch_step.py, the main config, the Vulkan loader's
// Debian packages (apt-get download: fetched, not installed) and BUILD.json (the commit). The
// whole must stay within the device tool's 64 MiB beside the working tree. docs/bench.md.
import { execFileSync } from 'node:child_process';
import { copyFileSync, cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { build } from 'esbuild';

const ROOT = resolve(import.meta.dirname, '../..');
const OUT = join(ROOT, '.device');
/** What the device tool carries (64 MiB) less the working tree and a margin. */
const LIMIT_MIB = 56;
/** The Vulkan loader and GL dispatch libraries the device notes say to carry (NVIDIA's Vulkan driver loads through them). */
const DEBS = ['libvulkan1', 'libegl1', 'libglvnd0', 'libopengl0', 'libgl1', 'libglx0', 'libgles2'];

if (process.platform !== 'linux' || process.arch !== 'x64')
  throw new Error(`device:bundle: the bundle is for linux-x64 and carries this machine's Node and native files; this is ${process.platform}-${process.arch}`);

const mib = (bytes: number) => (bytes / 2 ** 20).toFixed(1);
const git = (...args: string[]) => execFileSync('git', args, { cwd: ROOT, encoding: 'utf8' }).trim();
const pkg = (name: string) => join(ROOT, 'node_modules', name);
const version = (name: string) => (JSON.parse(readFileSync(join(pkg(name), 'package.json'), 'utf8')) as { version: string }).version;
/** Copies a file or folder, without source maps and type declarations (nothing runs them). */
function copy(from: string, to: string) {
  mkdirSync(dirname(to), { recursive: true });
  cpSync(from, to, { recursive: true, dereference: true, filter: (f) => !/\.(map|d\.ts)$/.test(f) });
}
const sizeOf = (path: string): number =>
  statSync(path).isDirectory() ? readdirSync(path).reduce((a, f) => a + sizeOf(join(path, f)), 0) : statSync(path).size;

/** `--stage DIR`: build the bundle's folder there and stop, unpacked (to try it without the minutes xz takes). */
const staged = process.argv.includes('--stage') ? resolve(process.argv[process.argv.indexOf('--stage') + 1]) : undefined;
const stage = staged ?? mkdtempSync(join(tmpdir(), 'cpp-device-'));
const app = join(stage, 'cpp-device');
rmSync(app, { recursive: true, force: true });
try {
  console.log(`device:bundle: staging in ${app}`);
  // The code: one entry per process the check starts; shared code in chunks beside them (app/), so that
  // a chunk's import.meta.url finds ./trainingProcess.js and ./onnx/worker.mjs there.
  await build({
    entryPoints: {
      index: join(ROOT, 'cli/index.ts'),
      trainingProcess: join(ROOT, 'train/trainingProcess.ts'),
      bench: join(ROOT, 'bench/bench.ts'),
      check: join(ROOT, 'bench/device/check.ts'),
    },
    outdir: join(app, 'app'),
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    external: ['onnxruntime-node', 'webgpu'],
    // CommonJS packages inside an ES module bundle call require: Node's, for the built-ins.
    banner: { js: "import { createRequire as bundleRequire } from 'node:module'; globalThis.require ??= bundleRequire(import.meta.url);" },
    logLevel: 'warning',
  });
  copy(join(ROOT, 'src/policy/onnx/worker.mjs'), join(app, 'app/onnx/worker.mjs'));
  // The package's name, for the code that finds its own root (src/provenance.ts), and ES modules for app/*.js.
  writeFileSync(
    join(app, 'package.json'),
    `${JSON.stringify({ name: 'cpp-workbench', version: (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version, private: true, type: 'module', exports: { './package.json': './package.json' } }, null, 2)}\n`,
  );
  // The native packages, linux-x64 only.
  const ort = join(app, 'node_modules/onnxruntime-node');
  for (const f of ['package.json', 'dist', 'bin/napi-v6/linux/x64']) copy(join(pkg('onnxruntime-node'), f), join(ort, f));
  copy(pkg('onnxruntime-common'), join(app, 'node_modules/onnxruntime-common'));
  const webgpu = join(app, 'node_modules/webgpu');
  for (const f of ['package.json', 'index.js', 'dist/linux-x64']) copy(join(pkg('webgpu'), f), join(webgpu, f));
  // What the code loads through createRequire at run time, which esbuild leaves out: the token
  // counts' encodings (src/cache/tokens.ts) and the symbolic engine (src/answer/equivalence.ts).
  for (const f of ['package.json', 'cjs']) copy(join(pkg('gpt-tokenizer'), f), join(app, 'node_modules/gpt-tokenizer', f));
  for (const f of ['package.json', 'dist/compute-engine.min.js', 'dist/compute-engine.min.esm.js'])
    copy(join(pkg('@cortex-js/compute-engine'), f), join(app, 'node_modules/@cortex-js/compute-engine', f));
  copy(join(ROOT, 'bench/torch_step.py'), join(app, 'bench/torch_step.py'));
  copy(join(ROOT, 'train/configs/main.json'), join(app, 'train/configs/main.json'));
  copy(process.execPath, join(app, 'node'));
  mkdirSync(join(app, 'debs'));
  try {
    execFileSync('apt-get', ['download', ...DEBS], { cwd: join(app, 'debs'), stdio: ['ignore', 'ignore', 'pipe'] });
  } catch (e) {
    throw new Error(
      `device:bundle: apt-get download ${DEBS.join(' ')} failed (a Debian or Ubuntu machine with its package lists is needed): ${(e as Error).message}`,
    );
  }
  // Dirty: a change to what the bundle is built from, not yet committed (tests and docs aside).
  const dirty = git('status', '--porcelain', '--', 'src', 'train', 'eval', 'jobs', 'cli', 'bench', 'package.json', 'package-lock.json') !== '';
  const buildInfo = {
    commit: git('rev-parse', '--short', 'HEAD'),
    dirty,
    built: new Date().toISOString(),
    node: process.version,
    onnxruntimeNode: version('onnxruntime-node'),
    webgpu: version('webgpu'),
    debs: readdirSync(join(app, 'debs')),
  };
  writeFileSync(join(app, 'BUILD.json'), `${JSON.stringify(buildInfo, null, 2)}\n`);
  console.log(`device:bundle: ${mib(sizeOf(app))} MiB to pack (Node ${mib(statSync(process.execPath).size)} MiB); xz takes a few minutes`);
  if (staged) {
    console.log(`device:bundle: staged in ${app}, not packed (--stage)`);
    process.exit(0);
  }

  rmSync(OUT, { recursive: true, force: true });
  mkdirSync(OUT);
  const tarball = join(OUT, 'cpp-device.tar.xz');
  execFileSync('sh', ['-c', `tar -C "${stage}" -cf - cpp-device | xz -T0 -6 > "${tarball}"`], { stdio: 'inherit' });
  copyFileSync(join(ROOT, 'bench/device/device-check.sh'), join(OUT, 'device-check.sh'));
  const total = sizeOf(OUT);
  if (total > LIMIT_MIB * 2 ** 20)
    throw new Error(`device:bundle: .device/ is ${mib(total)} MiB, over the ${LIMIT_MIB} MiB the device tool can carry beside the working tree`);
  console.log(
    `device:bundle: .device/ holds ${mib(total)} MiB (commit ${buildInfo.commit}${dirty ? ', with uncommitted changes' : ''}): ` +
      "run it on a lent GPU with the device tool's run, carry ['.device'], command 'bash .device/device-check.sh' (docs/bench.md)",
  );
} finally {
  if (!staged) rmSync(stage, { recursive: true, force: true });
}
