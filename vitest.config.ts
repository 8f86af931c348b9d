// Tests run on loaded 2-core CI machines: a test that imports 700 recorded debates or trains a
// small policy may take many times its quiet-machine time, and with several files at a time each
// gets a share of the cores, so limits are generous everywhere (5 minutes unless a test says more).
// Speed goals live in `npm run bench`, never in test timeouts. The global setup provides
// redis-server and openssl for the queue tests where a fresh machine lacks them (tests/setup/redis.ts),
// and a WebGPU adapter for the GPU engine's tests (tests/setup/vulkan.ts: Mesa's software lavapipe).
//
// Files run several at a time, in worker processes (forks): many of the suite's files spend most of
// their time waiting on the child processes they start (the command line, training processes,
// redis-server), so more workers than cores keep both cores busy; vitest's default of one worker
// fewer than the cores ran one file at a time on 2 cores. Every file is safe beside the others (its
// own temp folders, ports and redis-server). The longest files start first (tests/setup/sequencer.ts),
// so that none runs alone at the end. `npx vitest run --maxWorkers N` overrides the count.
//
// A worker runs file after file in one process (isolate: false): the libraries a file imports (ONNX
// Runtime, TF.js, zod) and the sources are loaded once per worker instead of once per file, which
// took 150 s of the suite's time. The modules' state is shared between the files of a worker, so
// module-level state is keyed by what it belongs to (a file, a cache: every test works in temp
// folders of its own) and nothing a file leaves is read by another. A file that replaces a module
// (`vi.mock`: node:fs, to inject faults) needs the modules it tests loaded anew, over the replaced
// one, and one that loads them anew itself (`vi.resetModules`: a fresh process's memo) would load
// every module of its worker's later files again: each runs in a process of its own. They are
// found here by those calls, so a new one cannot run beside modules that hold the real module.
import { readdirSync, readFileSync } from 'node:fs';
import { configDefaults, defineConfig } from 'vitest/config';
import LongestFirst from './tests/setup/sequencer.ts';

const OWN_MODULES = readdirSync('tests', { recursive: true, encoding: 'utf8' })
  .filter((file) => file.endsWith('.test.ts') && /\bvi\.(mock|doMock|resetModules)\(/.test(readFileSync(`tests/${file}`, 'utf8')))
  .map((file) => `tests/${file}`);

export default defineConfig({
  test: {
    testTimeout: 300_000,
    hookTimeout: 300_000,
    globalSetup: ['tests/setup/redis.ts', 'tests/setup/vulkan.ts'],
    pool: 'forks',
    maxWorkers: 3,
    sequence: { sequencer: LongestFirst },
    projects: [
      { extends: true, test: { name: 'shared', isolate: false, exclude: [...configDefaults.exclude, ...OWN_MODULES] } },
      { extends: true, test: { name: 'own-process', include: OWN_MODULES } },
    ],
  },
});
