import { resolveConfig } from './train/config.ts';
import { train } from './train/trainer.ts';
import { writeTinyCache } from './tests/train/tinyWorld.ts';
import { rmSync } from 'node:fs';
rmSync('/tmp/tiny', { recursive: true, force: true }); rmSync('/tmp/tinyrun', { recursive: true, force: true });
writeTinyCache('/tmp/tiny');
const cfg = resolveConfig({ cache: '/tmp/tiny', out: '/tmp/tinyrun', rounds: 2, miss: 'error', k: -1, epochs: Number(process.argv[2] ?? 20), batchSize: 6, hidden: 16, backend: 'cpu', ...JSON.parse(process.argv[3] ?? '{}') });
const { checkpoint } = await train(cfg, { log: console.log });
