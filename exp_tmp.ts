import { resolveConfig } from './train/config.ts';
import { train } from './train/trainer.ts';
import { rmSync } from 'node:fs';
const OUT = process.argv[4] ?? '/tmp/run1'; rmSync(OUT, { recursive: true, force: true });
const t = Date.now();
const cfg = resolveConfig({ out: OUT, epochs: Number(process.argv[2] ?? 2), backend: 'wasm', ...JSON.parse(process.argv[3] ?? '{}') });
await train(cfg, { log: (l) => console.log(((Date.now() - t) / 1000).toFixed(1), l) });
console.log('total s', (Date.now() - t) / 1000);
