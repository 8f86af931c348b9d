// A report carries its provenance: provenance.json beside it and a summary at the end of its Markdown.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { expect, it } from 'vitest';
import { evalJob } from '../../jobs/eval.ts';
import { readProvenance } from '../../src/provenance.ts';
import { resolveConfig } from '../../train/config.ts';
import { runFiles } from '../../train/runFolder.ts';
import { train } from '../../train/trainer.ts';
import { writeTinyCache } from '../fixtures/tinyWorld.ts';
import { METHOD } from '../fixtures/method.ts';

const sha256 = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

it('an eval report holds provenance: code, inputs and cache by content hash, the engine that ran', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'cpp-report-'));
  const cache = join(dir, 'cache');
  writeTinyCache(cache);
  const config = resolveConfig({ ...METHOD, cache, out: join(dir, 'run'), rounds: 2, miss: 'error', batchSize: 6, hidden: 16, epochs: 1 });
  await train(config, { log: () => {} });
  const policy = runFiles(config.out).best;
  const out = join(dir, 'report');
  const { files } = await evalJob({
    policies: [policy],
    cache,
    split: 'validation',
    compute: { engine: 'auto', threads: 1, backend: 'cpu' },
    settings: { miss: 'error' },
    methods: ['full'],
    seeds: 1,
    reference: 'Full-Debate',
    out,
  });
  expect(files).toContain(join(out, 'provenance.json'));
  const [session] = readProvenance(join(out, 'provenance.json')).sessions;
  const commit = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: resolve(import.meta.dirname, '../..'), encoding: 'utf8' }).trim();
  expect(session.code.commit).toBe(commit);
  expect(session.inputs).toEqual([{ path: policy, bytes: readFileSync(policy).length, sha256: sha256(policy) }]);
  expect(session.caches.map((c) => c.sha256)).toEqual([sha256(join(cache, 'cache.jsonl'))]);
  expect(session.embeddings.map((e) => e.sha256)).toEqual([sha256(join(cache, 'embeddings', 'bof-256.jsonl'))]);
  expect(session.compute?.engine).toBe('onnx');
  expect(session.ended).not.toBeNull();
  const markdown = readFileSync(join(out, 'comparison.md'), 'utf8');
  expect(markdown).toMatch(/^## Provenance$/m);
  expect(markdown).toContain(`commit ${commit}`);
  expect(markdown).toContain(`sha256 ${sha256(policy).slice(0, 16)}`);
}, 120_000);
