// Grids on a Redis queue (jobs/queue/): a real redis-server of the test's own on 127.0.0.1 (no
// persistence, in a temp folder, stopped afterwards), workers and coordinators as command-line
// processes, a worker killed with SIGKILL mid-cell, a coordinator killed and restarted, the table
// compared with local workers', and the Redis password looked for in every output and file.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { appendFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ablationReport } from '../../eval/table6.ts';
import { cacheHash } from '../../src/cache/hash.ts';
import { defaultCompute } from '../../src/policy/backends.ts';
import { webgpuAdapter } from '../../src/policy/webgpu.ts';
import { resolveConfig } from '../../train/config.ts';
import { expandGrid, GridFile, runGrid } from '../../train/grid.ts';
import { cellIdentity } from '../../train/identity.ts';
import { runQueuedGrid } from '../../jobs/queue/coordinator.ts';
import { cellJob, jobIdOf } from '../../jobs/queue/cellJob.ts';
import { parseQueueUrl } from '../../jobs/queue/redis.ts';
import { startWorker } from '../../jobs/queue/worker.ts';
import { runFiles, readLog } from '../../train/runFolder.ts';
import { train } from '../../train/trainer.ts';
import { fileBytes } from '../fixtures/bytes.ts';
import { BUILT_CLI } from '../fixtures/cli.ts';
import { writeTinyCache } from '../fixtures/tinyWorld.ts';
import { processState, trainingProcessesOf, trainingProcessOf } from '../fixtures/trainingProcess.ts';
import { METHOD } from '../fixtures/method.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const PASSWORD = 'pw-Zq8xT3-never-printed';
const cleanups: (() => void)[] = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()!();
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'cpp-queue-'));
  cleanups.unshift(() => rmSync(dir, { recursive: true, force: true })); // last, after the processes
  return dir;
}

function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => done(port));
    });
    server.on('error', fail);
  });
}

/** Our own redis-server (optionally with a password and TLS only); stopped after the test. */
async function startRedis(dir: string, o: { password?: string; tls?: { cert: string; key: string; ca: string } } = {}): Promise<number> {
  if (spawnSync('redis-server', ['--version']).error)
    throw new Error('redis-server not found: these tests need Redis (Debian: apt-get install -y redis-server; see tests/setup/redis.ts)');
  const port = await freePort();
  const data = join(dir, 'redis');
  mkdirSync(data, { recursive: true });
  const listen = o.tls
    ? [
        '--port',
        '0',
        '--tls-port',
        String(port),
        '--tls-cert-file',
        o.tls.cert,
        '--tls-key-file',
        o.tls.key,
        '--tls-ca-cert-file',
        o.tls.ca,
        '--tls-auth-clients',
        'no',
      ]
    : ['--port', String(port)];
  const server = spawn('redis-server', [
    ...listen,
    '--bind',
    '127.0.0.1',
    '--save',
    '',
    '--appendonly',
    'no',
    '--dir',
    data,
    ...(o.password ? ['--requirepass', o.password] : []),
  ]);
  cleanups.push(() => server.kill('SIGKILL'));
  let log = '';
  await new Promise<void>((ready, fail) => {
    server.stdout.on('data', (b: Buffer) => {
      log += b.toString();
      if (log.includes('Ready to accept connections')) ready();
    });
    server.on('exit', (code) => fail(new Error(`redis-server exited (${code}): ${log}`)));
  });
  return port;
}

/** A CA and a certificate for 127.0.0.1 signed by it (openssl). */
function tlsFiles(dir: string) {
  const f = {
    ca: join(dir, 'ca.pem'),
    caKey: join(dir, 'ca.key'),
    key: join(dir, 'server.key'),
    csr: join(dir, 'server.csr'),
    cert: join(dir, 'server.pem'),
    ext: join(dir, 'ext.cnf'),
  };
  writeFileSync(f.ext, 'subjectAltName=IP:127.0.0.1\n');
  const openssl = (...args: string[]) => {
    const r = spawnSync('openssl', args, { encoding: 'utf8' });
    if (r.error) throw new Error('openssl not found: the TLS test needs it (Debian: apt-get install -y openssl)');
    if (r.status !== 0) throw new Error(`openssl ${args[0]}: ${r.stderr}`);
  };
  openssl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', f.caKey, '-out', f.ca, '-days', '2', '-subj', '/CN=cpp test CA');
  openssl('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', f.key, '-out', f.csr, '-subj', '/CN=127.0.0.1');
  openssl('x509', '-req', '-in', f.csr, '-CA', f.ca, '-CAkey', f.caKey, '-CAcreateserial', '-out', f.cert, '-days', '2', '-extfile', f.ext);
  return f;
}

/** A command of the CLI as a process; all it prints is kept (and, for debugging, appended to `logFile`). */
function cli(args: string[], env: NodeJS.ProcessEnv, logFile: string) {
  const proc: ChildProcess = spawn(process.execPath, [...BUILT_CLI, ...args], { cwd: ROOT, env });
  cleanups.push(() => proc.exitCode === null && proc.signalCode === null && proc.kill('SIGKILL'));
  let stdout = '';
  let stderr = '';
  const waiters: (() => void)[] = [];
  const take = (into: 'out' | 'err') => (b: Buffer) => {
    if (into === 'out') stdout += b.toString();
    else stderr += b.toString();
    appendFileSync(logFile, b);
    waiters.forEach((w) => w());
  };
  proc.stdout!.on('data', take('out'));
  proc.stderr!.on('data', take('err'));
  const exited = new Promise<number | null>((done) => proc.on('exit', (code) => done(code)));
  return {
    proc,
    exited,
    stdout: () => stdout,
    stderr: () => stderr,
    /** Resolves once the output matches; fails if the process ends first. */
    waitFor: (re: RegExp) =>
      new Promise<RegExpMatchArray>((found, fail) => {
        const check = () => {
          const m = (stdout + stderr).match(re);
          if (m) found(m);
        };
        waiters.push(check);
        check();
        void exited.then((code) => fail(new Error(`${args[0]} exited (${code}) before printing ${re}:\n${stdout}${stderr}`)));
      }),
  };
}

const until = async (ok: () => boolean, what: string, seconds = 300) => {
  for (const end = Date.now() + seconds * 1000; !ok(); await new Promise((r) => setTimeout(r, 50)))
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
};

const filesUnder = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? filesUnder(join(dir, e.name)) : e.isFile() ? [join(dir, e.name)] : []));

const tableRows = (text: string) => text.split('\n').filter((l) => l.startsWith('|'));

/** Tiny world (tests/fixtures/tinyWorld.ts) with settings under which the two seeds learn different policies. */
function tinyGrid(dir: string) {
  const cache = join(dir, 'tiny');
  writeTinyCache(cache);
  const grid = {
    name: 'tiny',
    base: { ...METHOD, rounds: 2, miss: 'error', k: 0, lr: 0.01, batchSize: 6, hidden: 8, epochs: 4 },
    seeds: [0, 1],
    caches: [cache],
    variants: [
      { name: 'full method', settings: {} },
      { name: 'broken', settings: { miss: 'record' } }, // a recorded cache has no live endpoint: a failure of its own
    ],
  };
  const file = join(dir, 'grid.json');
  writeFileSync(file, JSON.stringify(grid));
  return { cache, file, grid: GridFile.parse(grid) };
}

describe('redis URLs', () => {
  it('keep the password out of what is printed: in the URL or from the environment, plain or TLS', () => {
    const q = parseQueueUrl('redis://:s%40cret-pass@db.example:6380/4', {});
    expect(q.password).toBe('s@cret-pass');
    expect(q.label).toBe('redis://:***@db.example:6380/4');
    expect(q.redact('cannot reach redis://:s%40cret-pass@db.example:6380/4 (auth s@cret-pass)')).toBe('cannot reach redis://:***@db.example:6380/4 (auth ***)');
    const tls = parseQueueUrl('rediss://worker:pa55word@db.example/0', {});
    expect(tls.label).toBe('rediss://worker:***@db.example/0');
    expect(tls.redact('pa55word')).toBe('***');
    const env = parseQueueUrl('redis://db.example:6379/0', { CPP_REDIS_PASSWORD: 'from-env-secret' });
    expect(env.password).toBe('from-env-secret');
    expect(env.label).toBe('redis://db.example:6379/0');
    expect(env.redact('AUTH from-env-secret')).toBe('AUTH ***');
    expect(() => parseQueueUrl('http://:hunter2@db.example/0', {})).toThrow(/scheme http: is not redis/);
    expect(() => parseQueueUrl('not a url :hunter2', {})).toThrow(/^--queue: not a URL[\s\S]*$/);
    expect(() => parseQueueUrl('not a url :hunter2', {})).not.toThrow(/hunter2/);
  });

  it('ablate refuses --workers with --queue (local workers only)', () => {
    const r = spawnSync(process.execPath, [...BUILT_CLI, 'ablate', '--queue', 'redis://127.0.0.1:1/0', '--workers', '3'], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('Arguments queue and workers are mutually exclusive');
  }, 600_000);
});

describe('cell identity', () => {
  it('is the cache content hash (sha256 of cache.jsonl), the resolved settings and the compute settings the grid gives, not the paths', async () => {
    const dir = tempDir();
    const { cache, grid } = tinyGrid(dir);
    const hash = await cacheHash(cache);
    expect(hash).toBe(
      createHash('sha256')
        .update(readFileSync(join(cache, 'cache.jsonl')))
        .digest('hex'),
    );
    const [a, b] = expandGrid(grid, join(dir, 'results'));
    const id = cellIdentity(a.settings, hash);
    // Another out folder or cache path: the same cell.
    expect(cellIdentity({ ...a.settings, out: '/elsewhere', cache: '/copy/of/tiny' }, hash)).toBe(id);
    // An engine, threads or backend the grid gives: another cell (it trains elsewhere, or otherwise).
    for (const compute of [{ engine: 'onnx-cuda' }, { threads: 2 }, { backend: 'wasm' }] as const)
      expect(cellIdentity({ ...a.settings, ...compute }, hash)).not.toBe(id);
    // A default written out, or keys in another order: the same settings.
    expect(cellIdentity(Object.fromEntries(Object.entries({ ...a.settings, dualLr: 20 }).reverse()), hash)).toBe(id);
    // Another seed, setting or cache content: another cell.
    expect(cellIdentity(b.settings, hash)).not.toBe(id);
    expect(cellIdentity({ ...a.settings, lr: 0.02 }, hash)).not.toBe(id);
    const altered = join(dir, 'altered');
    cpSync(cache, altered, { recursive: true });
    appendFileSync(join(altered, 'cache.jsonl'), '\n');
    const alteredHash = await cacheHash(altered);
    expect(alteredHash).not.toBe(hash);
    expect(cellIdentity(a.settings, alteredHash)).not.toBe(id);
  });

  it('grid variants that differ only in their engine are two jobs, each carrying its engine (the other left to the worker)', async () => {
    const dir = tempDir();
    const { cache, grid } = tinyGrid(dir);
    const hash = await cacheHash(cache);
    const cells = expandGrid(
      GridFile.parse({
        ...grid,
        seeds: [0],
        variants: [
          { name: 'cpu', settings: {} },
          { name: 'gpu', settings: { engine: 'onnx-cuda' } },
        ],
      }),
      join(dir, 'results'),
    );
    const jobs = cells.map((c) => cellJob(c, hash, cellIdentity(c.settings, hash)));
    expect(new Set(jobs.map((j) => jobIdOf(j.identity))).size).toBe(2);
    expect(jobs.map((j) => j.settings.engine)).toEqual([undefined, 'onnx-cuda']);
    // What a worker checks a job by: its identity from the job's own settings.
    for (const j of jobs) expect(cellIdentity(j.settings, hash)).toBe(j.identity);
  });

  it('a results folder holding a run the queue did not make is an error, before anything is queued', async () => {
    const dir = tempDir();
    const { grid } = tinyGrid(dir);
    const cells = expandGrid(grid, join(dir, 'results'));
    mkdirSync(cells[1].settings.out, { recursive: true });
    writeFileSync(runFiles(cells[1].settings.out).config, '{}');
    await expect(runQueuedGrid(cells, { queue: parseQueueUrl('redis://127.0.0.1:1/0'), log: () => {} })).rejects.toThrow(
      `${cells[1].settings.out}: a run made without --queue`,
    );
  });
});

/** One worker of concurrency 1 on this machine's caches, its work folder in `dir`. */
const oneWorker = (queue: ReturnType<typeof parseQueueUrl>, dir: string, log: (line: string) => void = () => {}) =>
  startWorker({ queue, concurrency: 1, compute: defaultCompute(), cacheMap: [], work: join(dir, 'work'), lockSeconds: 30, stalledSeconds: 30, log });

describe('a grid on a queue', () => {
  it("a worker refuses a cache whose content differs from the grid's: the cell fails once with the reason, nothing is trained", async () => {
    const dir = tempDir();
    const { cache, grid } = tinyGrid(dir);
    const altered = join(dir, 'altered');
    cpSync(cache, altered, { recursive: true });
    writeFileSync(join(altered, 'cache.jsonl'), readFileSync(join(cache, 'cache.jsonl'), 'utf8').replace('Tiny question 0', 'Tiny question zero'));
    const queue = parseQueueUrl(`redis://127.0.0.1:${await startRedis(dir)}/0`);
    const lines: string[] = [];
    const worker = startWorker({
      queue,
      concurrency: 1,
      compute: defaultCompute(),
      cacheMap: [[cache, altered]],
      work: join(dir, 'work'),
      lockSeconds: 30,
      stalledSeconds: 30,
      log: (l) => lines.push(l),
    });
    try {
      const cells = expandGrid(grid, join(dir, 'results')).slice(0, 1);
      const [outcome] = await runQueuedGrid(cells, { queue, log: (l) => lines.push(l) });
      expect(outcome.status).toBe('failed');
      expect(outcome.error).toMatch(
        new RegExp(
          `refuses the cell: its cache ${altered} has content ${(await cacheHash(altered)).slice(0, 12)}, ` +
            `the grid's ${cache} has ${(await cacheHash(cache)).slice(0, 12)}`,
        ),
      );
      expect(lines.filter((l) => l.includes(`took ${cells[0].id}`))).toHaveLength(1);
      expect(existsSync(cells[0].settings.out)).toBe(false);
      expect(readdirSync(join(dir, 'work'))).toEqual([]);
    } finally {
      await worker.close();
    }
  }, 600_000);

  it("a cell with counterfactual credit trains on a worker like any other: its settings travel in the cell, its log is a local run's", async () => {
    const dir = tempDir();
    const { grid } = tinyGrid(dir);
    const credit = { credit: 'counterfactual' as const, creditOutcome: 'correct' as const, creditFlips: 3, epochs: 2 };
    const withCredit = GridFile.parse({ ...grid, variants: [{ name: 'counterfactual', settings: credit }] });
    const queue = parseQueueUrl(`redis://127.0.0.1:${await startRedis(dir)}/0`);
    const worker = oneWorker(queue, dir);
    try {
      const [cell] = expandGrid(withCredit, join(dir, 'results'));
      const [outcome] = await runQueuedGrid([cell], { queue, log: () => {} });
      expect(outcome.status).toBe('trained');
      const local = resolveConfig({ ...cell.settings, out: join(dir, 'local') });
      await train(local, { log: () => {} });
      const timeless = (out: string) => readLog(out).map(({ time: _t, seconds: _s, decisionsPerSecond: _d, ...l }) => l);
      expect(timeless(cell.settings.out)).toEqual(timeless(local.out));
      // 18 train questions of the tiny world, 6 a step: 6 debates x 3 flips
      expect(
        readLog(cell.settings.out)
          .filter((l) => l.type === 'step')
          .map((l) => l.branches),
      ).toEqual(new Array(6).fill(18));
    } finally {
      await worker.close();
    }
  }, 600_000);

  it('a worker on the GPU engine (worker --engine webgpu) trains a cell with K rollouts and counterfactual credit step for step as a local CPU run does', async () => {
    const dir = tempDir();
    const { grid } = tinyGrid(dir);
    const settings = { credit: 'counterfactual' as const, creditOutcome: 'correct' as const, creditFlips: 2, rollouts: 2, epochs: 1 };
    const cells = expandGrid(GridFile.parse({ ...grid, seeds: [0], variants: [{ name: 'credit', settings }] }), join(dir, 'results'));
    const queue = parseQueueUrl(`redis://127.0.0.1:${await startRedis(dir)}/0`);
    const compute = { ...defaultCompute(), engine: 'webgpu' as const };
    const worker = startWorker({ queue, concurrency: 1, compute, cacheMap: [], work: join(dir, 'work'), lockSeconds: 30, stalledSeconds: 30, log: () => {} });
    try {
      const [outcome] = await runQueuedGrid(cells, { queue, log: () => {} });
      expect(outcome.status).toBe('trained');
      const local = resolveConfig({ ...cells[0].settings, engine: 'onnx', out: join(dir, 'local') });
      await train(local, { log: () => {} });
      const steps = (out: string) => readLog(out).filter((l) => l.type === 'step');
      const [gpu, cpu] = [steps(cells[0].settings.out), steps(local.out)];
      expect(gpu.length).toBeGreaterThan(0);
      expect(gpu.map((l) => [l.keepRate, l.branches])).toEqual(cpu.map((l) => [l.keepRate, l.branches])); // the same decisions and branches
      gpu.forEach((l, k) => expect(Math.abs(l.loss! - cpu[k].loss!), `loss at step ${k + 1}`).toBeLessThanOrEqual(2e-4)); // logged to 4 decimals
      const provenance = JSON.parse(readFileSync(runFiles(cells[0].settings.out).provenance, 'utf8'));
      expect(provenance.sessions[0].compute).toMatchObject({ engine: 'webgpu', adapter: await webgpuAdapter() });
    } finally {
      await worker.close();
    }
  }, 600_000);

  it('a worker killed with kill -9 leaves its work folder; the next worker removes it, and only folders of workers that are gone', async () => {
    const dir = tempDir();
    const tmp = join(dir, 'tmp'); // the workers' tmpdir (TMPDIR), where their default work folders go
    mkdirSync(tmp);
    const url = `redis://127.0.0.1:${await startRedis(dir)}/0`;
    const env = { ...process.env, TMPDIR: tmp };
    const log = join(dir, 'processes.log');
    const worker = () => cli(['worker', '--queue', url, '--workers', '1'], env, log);
    const workFolders = () =>
      readdirSync(tmp)
        .filter((f) => f.startsWith('cpp-worker-'))
        .sort(); // (tsx keeps its cache there too)
    const ended = spawnSync(process.execPath, ['-e', '']).pid!; // a pid that no longer runs
    mkdirSync(join(tmp, `cpp-worker-${ended}`, 'run'), { recursive: true });
    mkdirSync(join(tmp, `cpp-worker-${process.pid}`)); // this test runs: not a stale folder
    const first = worker();
    await first.waitFor(/on queue/);
    expect(first.stderr()).toContain(`removed ${join(tmp, `cpp-worker-${ended}`)}, left by worker pid ${ended}, which no longer runs`);
    expect(workFolders()).toEqual([`cpp-worker-${first.proc.pid}`, `cpp-worker-${process.pid}`].sort());
    first.proc.kill('SIGKILL');
    await first.exited;
    expect(existsSync(join(tmp, `cpp-worker-${first.proc.pid}`))).toBe(true);
    const second = worker();
    await second.waitFor(/on queue/);
    expect(workFolders()).toEqual([`cpp-worker-${second.proc.pid}`, `cpp-worker-${process.pid}`].sort());
    second.proc.kill('SIGTERM');
    expect(await second.exited).toBe(143);
    expect(workFolders()).toEqual([`cpp-worker-${process.pid}`]); // a worker that stops removes its own
  }, 600_000);

  it('a training process that crashes is retried, and the retry finishes the cell', async () => {
    const dir = tempDir();
    const { grid } = tinyGrid(dir);
    const queue = parseQueueUrl(`redis://127.0.0.1:${await startRedis(dir)}/0`);
    const lines: string[] = [];
    const worker = oneWorker(queue, dir, (l) => lines.push(l));
    try {
      const [cell] = expandGrid(grid, join(dir, 'results'));
      const earlier = trainingProcessesOf(process.pid);
      const done = runQueuedGrid([cell], { queue, log: (l) => lines.push(l) });
      // Kill this process's training process (train/trainingProcesses.ts) as soon as it runs.
      let child: number | undefined;
      await until(() => (child = trainingProcessOf(process.pid, earlier)) !== undefined, 'the training process');
      process.kill(child!, 'SIGKILL');
      const run = join(dir, 'work', cellIdentity(cell.settings, await cacheHash(cell.cache)).slice(0, 16));
      const [outcome] = await done;
      expect(outcome.status).toBe('trained');
      expect(lines.some((l) => l.includes(`crashed ${cell.id}: training in ${run} failed (exit SIGKILL)`) && l.includes('attempt 1 of 3'))).toBe(true);
      expect(JSON.parse(readFileSync(join(cell.settings.out, 'cell.json'), 'utf8'))).toMatchObject({ attempts: 2, stalls: 0 });
    } finally {
      await worker.close();
    }
  }, 600_000);

  it('two workers, one killed mid-cell, a coordinator killed and restarted, TLS and a password: the table of local workers, the password nowhere', async () => {
    const dir = tempDir();
    const { cache, file, grid } = tinyGrid(dir);
    const copy = join(dir, 'tiny-copy'); // worker B reads the cache at another path (--cache-map)
    cpSync(cache, copy, { recursive: true });
    const tls = tlsFiles(dir);
    const url = `rediss://:${PASSWORD}@127.0.0.1:${await startRedis(dir, { password: PASSWORD, tls })}/1`;
    const env = { ...process.env, NODE_EXTRA_CA_CERTS: tls.ca };
    const log = join(dir, 'processes.log');
    const results = join(dir, 'results');
    const ablate = () => cli(['ablate', '--queue', url, '--grid', file, '--out', results, '--split', 'validation'], env, log);
    const worker = (name: string, ...extra: string[]) =>
      cli(
        ['worker', '--queue', url, '--workers', '1', '--lock-duration', '10', '--stalled-interval', '5', '--work', join(dir, `work-${name}`), ...extra],
        env,
        log,
      );
    const cells = expandGrid(grid, results);
    const cellOf = (variant: string, seed: number) => cells.find((c) => c.variant === variant && c.seed === seed)!;

    const first = ablate();
    await first.waitFor(/4 cells, 0 in the results folder already, 4 on the queue/);
    // Worker A takes the first cell (full method, seed 0) and is killed while it trains it.
    const a = worker('a');
    const [, nameA] = await a.waitFor(/worker (\S+): took full method .* seed 0/);
    await until(() => trainingProcessOf(a.proc.pid!) !== undefined, "worker A's training process");
    a.proc.kill('SIGKILL');
    const b = worker('b', '--cache-map', `${cache}=${copy}`);
    const [, nameB] = await b.waitFor(/worker (\S+): on queue/);
    // The coordinator collects one cell and sees both broken cells fail (remembered in failed.json),
    // then is killed; a new one picks up the rest.
    await first.waitFor(/^done /m);
    const failedFile = join(results, 'failed.json');
    const failedCells = (): number => (existsSync(failedFile) ? JSON.parse(readFileSync(failedFile, 'utf8')).cells.length : 0);
    await until(() => failedCells() === 2, 'both broken cells in failed.json');
    first.proc.kill('SIGKILL');
    await first.exited;
    const collected = cells.filter((c) => existsSync(join(c.settings.out, 'cell.json')));
    expect(collected.length).toBeGreaterThanOrEqual(1);
    const mtimes = collected.map((c) => statSync(runFiles(c.settings.out).best).mtimeMs);
    // The failures the first coordinator saw are kept (failed.json): the second one does not queue them again.
    expect(failedCells()).toBe(2);
    const second = ablate();
    expect(await second.exited).toBe(1); // the broken cells failed
    b.proc.kill('SIGTERM');
    expect(await b.exited).toBe(143); // stopped by SIGTERM, once its running cells (none) finished
    expect(b.stderr()).toMatch(/worker \S+: stopped; its running cells finished and were returned\nto work again: npx cpp-workbench worker /);

    // The restarted coordinator reused what the first one collected, untouched.
    expect(second.stderr()).toContain(`2 cells, ${collected.length} in the results folder already`);
    expect(second.stdout()).toMatch(new RegExp(`\\(\\d trained, ${collected.length} reused, 2 failed\\)`));
    expect(collected.map((c) => statSync(runFiles(c.settings.out).best).mtimeMs)).toEqual(mtimes);
    // The killed worker's cell went back to the queue and worker B finished it.
    const killed = JSON.parse(readFileSync(join(cellOf('full method', 0).settings.out, 'cell.json'), 'utf8'));
    expect(killed).toMatchObject({ worker: nameB, stalls: 1, attempts: 2 });
    expect(nameA).not.toBe(nameB);
    // A failure of the cell's own: once, with its error in the table, never retried.
    for (const seed of [0, 1]) {
      const id = cellOf('broken', seed).id;
      expect(
        second
          .stdout()
          .split('\n')
          .filter((l) => l.startsWith(`- failed: ${id}: `) && l.includes('has no live endpoint for miss = record')),
      ).toHaveLength(1);
      // Taken once: a failure the first coordinator saw is remembered before its job is removed; a
      // worker never retries a cell's own error.
      const took = b
        .stderr()
        .split('\n')
        .filter((l) => l.includes(`took ${id}`));
      expect(took).toHaveLength(1);
      expect(b.stderr()).not.toContain(`crashed ${id}`);
      expect(a.stderr()).not.toContain(`took ${id}`);
    }

    // Local workers, same grid and seeds: the same table and, cell by cell, the same training log.
    const local = join(dir, 'local');
    const localCells = expandGrid(grid, local).filter((c) => c.variant === 'full method');
    const outcomes = await runGrid(localCells, 2, () => {});
    const { markdown } = await ablationReport(grid, outcomes, local, 'validation', defaultCompute());
    expect(tableRows(second.stdout())).toEqual(tableRows(markdown));
    expect(tableRows(markdown)).toHaveLength(3); // header, rule, full method
    // (every log line but its wall time: when written, how long, decisions/s)
    const timeless = (out: string) => readLog(out).map(({ time: _t, seconds: _s, decisionsPerSecond: _d, ...l }) => l);
    for (const c of localCells) expect(timeless(cellOf(c.variant, c.seed).settings.out)).toEqual(timeless(c.settings.out));
    // The collected run reads like one trained in place (its settings name the grid's folder and cache).
    expect(JSON.parse(readFileSync(runFiles(cellOf('full method', 1).settings.out).config, 'utf8'))).toMatchObject({
      out: cellOf('full method', 1).settings.out,
      cache,
    });

    // The password: in no output of any process and no file they wrote; the URL is shown redacted.
    const outputs = [first, second, a, b].map((p) => p.stdout() + p.stderr()).join('\n');
    expect(outputs).toContain(`rediss://:***@127.0.0.1:`);
    for (const f of [...filesUnder(results), ...filesUnder(join(dir, 'work-a')), ...filesUnder(join(dir, 'work-b')), log])
      expect(readFileSync(f, 'latin1').includes(PASSWORD), f).toBe(false);
    expect(outputs.includes(PASSWORD)).toBe(false);
  }, 900_000);

  /** A grid of the tiny world: a cell that trains on for as long as the test needs (100,000 epochs), and with `broken` one that fails at once (miss = record on a recorded cache). */
  function longGrid(dir: string, broken: boolean) {
    const { cache } = tinyGrid(dir);
    const file = join(dir, 'long.json');
    const variants = [...(broken ? [{ name: 'broken', settings: { miss: 'record' } }] : []), { name: 'long', settings: {} }];
    const grid = {
      name: 'long',
      base: { ...METHOD, rounds: 2, miss: 'error', batchSize: 6, hidden: 8, epochs: 100_000 },
      seeds: [0],
      caches: [cache],
      variants,
    };
    writeFileSync(file, JSON.stringify(grid));
    return { file, cells: expandGrid(GridFile.parse(grid), join(dir, 'results')) };
  }
  const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

  it('a worker killed alone (SIGKILL to its pid, not its group): its training process stops its run and its train.log says why', async () => {
    const dir = tempDir();
    const { file } = longGrid(dir, false);
    const url = `redis://127.0.0.1:${await startRedis(dir)}/0`;
    const log = join(dir, 'processes.log');
    const coordinator = cli(['ablate', '--queue', url, '--grid', file, '--out', join(dir, 'results'), '--split', 'validation'], process.env, log);
    const worker = cli(['worker', '--queue', url, '--workers', '1', '--work', join(dir, 'work')], process.env, log);
    await worker.waitFor(/took long/);
    let child: number | undefined;
    await until(() => (child = trainingProcessOf(worker.proc.pid!)) !== undefined, "the worker's training process");
    // Mid-run: its first checkpoint is written.
    const run = () => readdirSync(join(dir, 'work')).map((f) => join(dir, 'work', f))[0];
    await until(() => run() !== undefined && existsSync(runFiles(run()).checkpoint), 'the first checkpoint');
    process.kill(worker.proc.pid!, 'SIGKILL');
    await worker.exited;
    // Gone, or a zombie of init's about to be reaped: not training on for nobody.
    await until(() => processState(child!) === undefined || processState(child!) === 'Z', 'the training process to stop', 120);
    expect(readFileSync(join(run(), 'train.log'), 'utf8')).toMatch(
      new RegExp(`the job that started this training process \\(pid ${worker.proc.pid}\\) is gone: stopping; .*: saved`),
    );
    coordinator.proc.kill('SIGKILL');
  }, 600_000);

  it('a restarted coordinator knows the cells that failed (results/failed.json, with the reason) and queues them again only with --retry-failed', async () => {
    const dir = tempDir();
    const { file, cells } = longGrid(dir, true);
    const [broken] = cells;
    const url = `redis://127.0.0.1:${await startRedis(dir)}/0`;
    const log = join(dir, 'processes.log');
    const results = join(dir, 'results');
    const ablate = (...more: string[]) => cli(['ablate', '--queue', url, '--grid', file, '--out', results, '--split', 'validation', ...more], process.env, log);
    // Two cells at a time: the broken one fails at once while the long one keeps the coordinator busy.
    const worker = cli(['worker', '--queue', url, '--workers', '2', '--work', join(dir, 'work')], process.env, log);
    const first = ablate();
    await first.waitFor(/2 cells, 0 in the results folder already, 2 on the queue/);
    await first.waitFor(new RegExp(`failed ${escaped(broken.id)}: .*has no live endpoint for miss = record`));
    // Killed as a lost machine is, with the long cell still running: the failure is already kept.
    first.proc.kill('SIGKILL');
    await first.exited;
    const failed = JSON.parse(readFileSync(join(results, 'failed.json'), 'utf8'));
    expect(failed.cells).toEqual([expect.objectContaining({ id: broken.id, reason: expect.stringContaining('has no live endpoint for miss = record') })]);
    // Restarted: the failed cell is reported with its reason and not queued; only the long one is.
    const second = ablate();
    await second.waitFor(/1 cells, 0 in the results folder already, 1 on the queue/);
    expect(second.stderr()).toMatch(
      new RegExp(
        `cell not trained: ${escaped(broken.id)}: failed in an earlier run \\(.*\\): .*has no live endpoint for miss = record.*; not trained again \\(--retry-failed trains it again\\)`,
      ),
    );
    second.proc.kill('SIGKILL');
    await second.exited;
    expect(
      worker
        .stderr()
        .split('\n')
        .filter((l) => l.includes(`took ${broken.id}`)),
    ).toHaveLength(1);
    // With --retry-failed: queued again, taken again, failed again (its reason kept).
    const third = ablate('--retry-failed');
    await third.waitFor(/2 cells, 0 in the results folder already, 2 on the queue/);
    await third.waitFor(new RegExp(`failed ${escaped(broken.id)}: .*has no live endpoint for miss = record`));
    expect(
      worker
        .stderr()
        .split('\n')
        .filter((l) => l.includes(`took ${broken.id}`)),
    ).toHaveLength(2);
    third.proc.kill('SIGKILL');
    // The worker killed alone: its training process (the long cell) stops; the test's folder goes once it has.
    const children = trainingProcessesOf(worker.proc.pid!);
    worker.proc.kill('SIGKILL');
    await until(() => children.every((c) => processState(c) === undefined || processState(c) === 'Z'), 'the training process to stop', 120);
  }, 600_000);

  it('a cell folder holding a run of other settings is refused naming what differs, never overwritten', async () => {
    const dir = tempDir();
    const { grid } = tinyGrid(dir);
    const cells = expandGrid(grid, join(dir, 'results'));
    await train(resolveConfig({ ...cells[0].settings, k: 1, epochs: 1 }), { log: () => {} });
    const before = fileBytes(runFiles(cells[0].settings.out).checkpoint);
    await expect(runQueuedGrid(cells, { queue: parseQueueUrl('redis://127.0.0.1:1/0'), log: () => {} })).rejects.toThrow(
      `${cells[0].settings.out}: a run of other settings or another cache (epochs 1 there, 4 asked; k 1 there, 0 asked)`,
    );
    expect(fileBytes(runFiles(cells[0].settings.out).checkpoint)).toEqual(before);
  }, 600_000);
});
