// A worker (`worker --queue URL`): takes grid cells from the queue, checks that its copy of the cache
// is the grid's (content hash), trains each in a warm training process (train/trainingProcesses.ts:
// kept from cell to cell, with the cache and engine loaded) in a folder of its own, and returns the
// run files through Redis. A cell whose training raises an error fails once
// (the same settings would fail again; a bug's stack is said in this worker's output, as the run
// folder goes); a crash (the training child killed, or this worker: its lock runs out and BullMQ
// hands the cell to another worker) is retried.
import { existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { UnrecoverableError, Worker, type Job } from 'bullmq';
import { cacheHash } from '../../src/cache/hash.ts';
import { cacheFilePath } from '../../src/cache/load.ts';
import { SettingsError, stackOf, UserError } from '../../src/io/errors.ts';
import type { ComputeSettings } from '../../src/policy/backends.ts';
import { processGone } from '../../src/io/lock.ts';
import { ensureDefaultCache } from '../../src/sim/generate.ts';
import { cellIdentity } from '../../train/identity.ts';
import { runTraining } from '../../train/runs.ts';
import { trainingProcesses } from '../../train/trainingProcesses.ts';
import { CellJob, uploadRun, type CellProgress, type CellResult } from './cellJob.ts';
import { QUEUE, connect, type QueueUrl } from './redis.ts';

export interface WorkerOptions {
  queue: QueueUrl;
  /** Cells trained at a time. */
  concurrency: number;
  /** Engine, threads, backend of cells whose grid settings do not set them. */
  compute: ComputeSettings;
  /** [grid's path, this machine's path] prefixes of caches. */
  cacheMap: [string, string][];
  /** Folder of runs in progress (one per cell, removed once uploaded). */
  work?: string;
  /** Seconds a cell's lock lasts unless renewed (every half of it); BullMQ's lockDuration. */
  lockSeconds: number;
  /** Seconds between this worker's looks for cells whose lock ran out; BullMQ's stalledInterval. */
  stalledSeconds: number;
  log?: (line: string) => void;
}

/** A cell may lose its worker this many times before it fails as stalled. */
const MAX_STALLS = 2;

/** `--cache-map FROM=TO` values as [FROM, TO]. */
export function parseCacheMap(values: string[]): [string, string][] {
  return values.map((v) => {
    const i = v.indexOf('=');
    if (i <= 0 || i === v.length - 1) throw new SettingsError(`--cache-map ${v}: expected FROM=TO`);
    return [v.slice(0, i), v.slice(i + 1)];
  });
}

const mapPath = (path: string, map: [string, string][]) => {
  const m = map.find(([from]) => path === from || path.startsWith(from.endsWith('/') ? from : `${from}/`));
  return m ? m[1] + path.slice(m[0].length) : path;
};

/** A worker's folder of runs in progress, by default: `<tmp>/cpp-worker-<pid>`. */
const WORK_PREFIX = 'cpp-worker-';

/**
 * Remove the default work folders of workers that are gone (a worker killed with kill -9 cannot
 * remove its own): each is named by its pid, and one whose process no longer runs holds only runs
 * that its cells' retries train again elsewhere.
 */
function removeStaleWork(say: (line: string) => void): void {
  for (const name of readdirSync(tmpdir())) {
    const pid = Number(name.slice(WORK_PREFIX.length));
    if (!name.startsWith(WORK_PREFIX) || !Number.isInteger(pid) || pid <= 0 || pid === process.pid || !processGone(pid)) continue;
    rmSync(join(tmpdir(), name), { recursive: true, force: true });
    say(`removed ${join(tmpdir(), name)}, left by worker pid ${pid}, which no longer runs`);
  }
}

export function startWorker(o: WorkerOptions): { name: string; close: () => Promise<void> } {
  const name = `${hostname()}:${process.pid}`;
  const say = (line: string) => (o.log ?? console.error)(o.queue.redact(`worker ${name}: ${line}`));
  if (!o.work) removeStaleWork(say);
  const work = o.work ?? join(tmpdir(), `${WORK_PREFIX}${process.pid}`);
  const redis = connect(o.queue, say);
  const processes = trainingProcesses();

  async function trainCell(job: Job): Promise<CellResult> {
    const parsed = CellJob.safeParse(job.data);
    if (!parsed.success)
      throw new UnrecoverableError(
        `job ${job.id}: not a cell of this workbench version: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
      );
    const cell = parsed.data;
    let epoch = 0;
    const report = () => job.updateProgress({ worker: name, epoch, epochs: cell.epochs } satisfies CellProgress);
    await report();
    say(`took ${cell.label}`);
    const cache = mapPath(cell.cache, o.cacheMap);
    ensureDefaultCache(cache);
    if (!existsSync(cacheFilePath(cache)))
      throw new UnrecoverableError(`worker ${name}: no cache at ${resolve(cache)} (grid's ${cell.cache}; map it with --cache-map)`);
    const hash = await cacheHash(cache);
    if (hash !== cell.cacheHash)
      throw new UnrecoverableError(
        `worker ${name} refuses the cell: its cache ${resolve(cache)} has content ` +
          `${hash.slice(0, 12)}, the grid's ${cell.cache} has ${cell.cacheHash.slice(0, 12)}`,
      );
    // The cell's identity is of the compute settings the grid gave it; this worker's fill the rest.
    if (cellIdentity(cell.settings, hash) !== cell.identity)
      throw new UnrecoverableError(`worker ${name}: these settings resolve differently here than on the coordinator (another workbench version?)`);
    const settings = { ...o.compute, ...cell.settings, cache, out: join(work, cell.identity.slice(0, 16)) };
    rmSync(settings.out, { recursive: true, force: true });
    const started = Date.now();
    try {
      await runTraining(
        settings,
        hash,
        () => {
          epoch++;
          report().catch((e: Error) => say(`progress of ${cell.label} not reported: ${e.message}`));
        },
        { processes },
      );
      const trainSeconds = (Date.now() - started) / 1000;
      return { worker: name, trainSeconds, files: await uploadRun(redis, job.id!, settings.out) };
    } catch (e) {
      // A child that exited with an error (a user error: bad settings, a cache miss; or a bug) would
      // fail the same way again; one killed (exitCode null) is retried.
      if (e instanceof UserError) throw new UnrecoverableError(e.message);
      if (typeof (e as { exitCode?: number | null }).exitCode !== 'number') throw e;
      if ((e as Error).cause !== undefined) say(`${cell.label}: ${stackOf(e)}`); // a bug: the child's stack, as its run folder goes
      throw new UnrecoverableError((e as Error).message);
    } finally {
      rmSync(settings.out, { recursive: true, force: true });
    }
  }

  mkdirSync(work, { recursive: true });
  const worker = new Worker(QUEUE, trainCell, {
    connection: redis,
    name,
    concurrency: o.concurrency,
    lockDuration: o.lockSeconds * 1000,
    stalledInterval: o.stalledSeconds * 1000,
    maxStalledCount: MAX_STALLS,
  });
  worker.on('completed', (job: Job) => say(`done ${job.data.label} (${(job.returnvalue as CellResult).trainSeconds.toFixed(1)} s)`));
  worker.on('failed', (job: Job | undefined, e: Error) => {
    if (!job) return;
    const final = e instanceof UnrecoverableError || job.attemptsMade >= (job.opts.attempts ?? 1);
    say(
      `${final ? 'failed' : 'crashed'} ${job.data.label}: ` +
        `${e.message}${final ? '' : ` (attempt ${job.attemptsMade} of ${job.opts.attempts}; it goes back to the queue)`}`,
    );
  });
  worker.on('error', (e: Error) => say(`error: ${e.message}`));
  say(`on queue ${o.queue.label}, ${o.concurrency} cell(s) at a time, runs in ${work}; lock ${o.lockSeconds} s, stall check every ${o.stalledSeconds} s`);
  return {
    name,
    close: async () => {
      await worker.close();
      processes.close();
      redis.disconnect();
      if (!o.work) rmSync(work, { recursive: true, force: true });
    },
  };
}
