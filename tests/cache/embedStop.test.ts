// Ctrl-C during a long embedding (`cache embed` of the default world: 48,351 texts): it stops between
// batches instead of finishing first, keeps the vectors embedded so far (the embeddings file holds
// exactly them) and says so; the next `cache embed` embeds only the rest. The SIGINT is real, sent by
// the command to itself at the first turn its embedding gives the event loop (a preloaded fixture).
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { embeddingsPath } from '../../src/cache/embeddings.ts';
import { generateCache } from '../../src/sim/generate.ts';
import { BUILT_CLI as CLI } from '../fixtures/cli.ts';

it('cache embed stopped by SIGINT mid-way keeps what it embedded and says so; the rerun embeds the rest', async () => {
  const cache = join(mkdtempSync(join(tmpdir(), 'cpp-embed-stop-')), 'cache');
  await generateCache(cache, {}, 'default-sim');
  const stopAtFirstTurn = new URL('../fixtures/sigintAtFirstTurn.mjs', import.meta.url).href;
  const child = spawn(process.execPath, ['--import', stopAtFirstTurn, ...CLI, 'cache', 'embed', cache], { stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  child.stderr.on('data', (d: Buffer) => {
    err += d.toString();
  });
  const code = await new Promise<number | null>((done) => child.on('close', done));
  expect(err).toMatch(/interrupted \(SIGINT\): stopping/);
  const kept = Number(/kept the vectors of (\d+) of 48351 texts; the rest are embedded at the next use/.exec(err)?.[1]);
  expect(kept).toBeGreaterThan(0);
  expect(kept).toBeLessThan(48351);
  expect(code).toBe(130);
  const file = embeddingsPath(cache, 'bof-256');
  expect(readFileSync(file, 'utf8').trim().split('\n').length - 1).toBe(kept); // a header line, then one line a vector
  const rerun = spawnSync(process.execPath, [...CLI, 'cache', 'embed', cache], { encoding: 'utf8' });
  expect(rerun.stderr).toContain(`embed bof-256: ${48351 - kept}/${48351 - kept}`);
  expect(rerun.status).toBe(0);
}, 300_000);
