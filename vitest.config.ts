// Tests run on loaded 2-core CI machines: a test that imports 700 recorded debates or trains a
// small policy may take many times its quiet-machine time, so limits are generous everywhere.
// Speed goals live in `npm run bench`, never in test timeouts. The global setup provides
// redis-server and openssl for the queue tests where a fresh machine lacks them (tests/setup/redis.ts),
// and a WebGPU adapter for the GPU engine's tests (tests/setup/vulkan.ts: Mesa's software lavapipe).
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: { testTimeout: 120_000, hookTimeout: 120_000, globalSetup: ['tests/setup/redis.ts', 'tests/setup/vulkan.ts'] },
});
