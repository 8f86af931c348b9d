// Tests run on loaded 2-core CI machines: a test that imports 700 recorded debates or trains a
// small policy may take many times its quiet-machine time, and with several files at a time each
// gets a share of the cores, so limits are generous everywhere (5 minutes unless a test says more).
// Speed goals live in `npm run bench`, never in test timeouts. The global setup provides
// redis-server and openssl for the queue tests where a fresh machine lacks them (tests/setup/redis.ts),
// and a WebGPU adapter for the GPU engine's tests (tests/setup/vulkan.ts: Mesa's software lavapipe).
//
// Files run several at a time, each in a process of its own (forks): many of the suite's files spend
// most of their time waiting on the child processes they start (the command line through tsx,
// training processes, redis-server), so more files than cores keep both cores busy; vitest's default
// of one worker fewer than the cores ran one file at a time on 2 cores. Every file is safe beside the
// others (its own temp folders, ports and redis-server). The longest files start first
// (tests/setup/sequencer.ts), so that none runs alone at the end. `npx vitest run --maxWorkers N`
// overrides the count.
import { defineConfig } from 'vitest/config';
import LongestFirst from './tests/setup/sequencer.ts';

export default defineConfig({
  test: {
    testTimeout: 300_000,
    hookTimeout: 300_000,
    globalSetup: ['tests/setup/redis.ts', 'tests/setup/vulkan.ts'],
    pool: 'forks',
    maxWorkers: 3,
    sequence: { sequencer: LongestFirst },
  },
});
