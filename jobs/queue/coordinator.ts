// The coordinator of a grid on a queue (`ablate --queue URL`): puts every cell not yet in the
// results folder on the BullMQ queue (job id = the cell's identity, so a cell is queued once however
// often the coordinator starts), looks at the queue every second, prints what changed (queued,
// running on which worker, done, failed, ETA) as plain lines, and collects each finished run into
// the results folder. Redis carries work in flight; the results folder is the store: a collected
// cell's job is removed, and a restarted coordinator reuses what its folder holds and collects what
// finished while it was away.
import { existsSync } from 'node:fs';
import { Queue, type Job } from 'bullmq';
import { cacheHash } from '../../src/cache/hash.ts';
import { progress } from '../../src/progress.ts';
import type { Cell, CellOutcome } from '../../train/grid.ts';
import { cellIdentity, runContentHashes } from '../../train/identity.ts';
import { runFiles } from '../../train/runFolder.ts';
import { runStatus } from '../../train/runs.ts';
import { CellProgress, CellResult, cellJob, collectRun, filesKey, jobIdOf, readCellRecord, type CellJob } from './cellJob.ts';
import { QUEUE, connect, type QueueUrl } from './redis.ts';
import { redacted, RefusedError } from '../../src/io/errors.ts';

/** Attempts of a cell: the first and two retries after crashes (an error the training raises is not retried). */
const ATTEMPTS = 3;

type State = 'queued' | 'running' | 'done' | 'failed' | 'reused';
interface Tracked {
  cell: Cell;
  job: CellJob;
  jobId: string;
  state: State;
  worker?: string;
  epoch: number;
  error?: string;
}

export interface QueuedGridOptions {
  queue: QueueUrl;
  /** Cells whose jobs failed on the queue are queued again (ablate --retry-failed); else their failure stands. */
  retryFailed?: boolean;
  /** Told of each cell as it fails, before its job is removed (`ablate` remembers it in failed.json: a coordinator killed afterwards leaves it known). */
  failed?: (outcome: CellOutcome) => void;
  log?: (line: string) => void;
}
/** Seconds between looks at the queue, and between status lines when nothing changes. */
const POLL_SECONDS = 1;
const STATUS_SECONDS = 30;

const minutes = (s: number) => (s >= 60 ? `${Math.floor(s / 60)}m${String(Math.round(s % 60)).padStart(2, '0')}s` : `${Math.round(s)}s`);

/** Run the cells on the queue's workers; what it prints, and the message and stack of what it throws, are redacted. */
export async function runQueuedGrid(cells: Cell[], o: QueuedGridOptions): Promise<CellOutcome[]> {
  try {
    return await coordinate(cells, o);
  } catch (e) {
    throw redacted(e, o.queue.redact);
  }
}

async function coordinate(cells: Cell[], o: QueuedGridOptions): Promise<CellOutcome[]> {
  const say = (line: string) => (o.log ?? console.error)(o.queue.redact(line));
  const hashes = new Map<string, string>();
  for (const cache of new Set(cells.map((c) => c.cache))) hashes.set(cache, await cacheHash(cache));
  const tracked: Tracked[] = cells.map((cell) => {
    const identity = cellIdentity(cell.settings, hashes.get(cell.cache)!);
    return { cell, job: cellJob(cell, hashes.get(cell.cache)!, identity), jobId: jobIdOf(identity), state: 'queued', epoch: 0 };
  });

  // A run folder is this cell's result only if its record names the same identity.
  // Another run is named with what differs (train/identity.ts), never reused or overwritten.
  const foreign: string[] = [];
  const contentOf = runContentHashes();
  for (const t of tracked) {
    const out = t.cell.settings.out;
    if (!existsSync(out)) continue;
    const record = readCellRecord(out);
    if (record?.identity === t.job.identity && existsSync(runFiles(out).best)) t.state = 'reused';
    else {
      const differences = existsSync(runFiles(out).checkpoint) ? runStatus(t.cell.settings, await contentOf(t.cell.settings)).differences : [];
      const what = differences.length
        ? `a run of other settings or another cache (${differences.join('; ')})`
        : record && record.identity !== t.job.identity
          ? `the cell ${record.identity.slice(0, 12)}, of other settings or another cache`
          : record
            ? 'a cell without its best.json'
            : 'a run made without --queue';
      foreign.push(`${out}: ${what}`);
    }
  }
  if (foreign.length)
    throw new RefusedError(
      `the results folder holds cells that are not these cells' runs:\n${foreign.join('\n')}\nremove ` +
        `${foreign.length === 1 ? 'that folder' : 'those folders'}, or choose another --out`,
    );

  const redis = connect(o.queue, say);
  const queue = new Queue(QUEUE, { connection: redis });
  // A job id that is already on the queue (queued, running or finished) is not added again.
  const jobOf = (t: Tracked) => ({
    name: t.job.label,
    data: t.job,
    opts: { jobId: t.jobId, attempts: ATTEMPTS, backoff: { type: 'fixed', delay: 5000 }, removeOnComplete: false, removeOnFail: false },
  });
  const add = (t: Tracked) => queue.addBulk([jobOf(t)]);
  const started = Date.now();
  const cellSeconds: number[] = [];
  const totalEpochs = cells.reduce((s, c) => s + c.epochs, 0);
  const bar = progress('grid', totalEpochs);
  try {
    const reused = tracked.filter((t) => t.state === 'reused');
    // A coordinator stopped between writing a run and removing its job leaves both behind.
    for (const t of reused) {
      const job = await queue.getJob(t.jobId);
      if (job && ['completed', 'failed'].includes(await job.getState())) await job.remove();
      await redis.del(filesKey(t.jobId));
    }
    // A failed job stays on the queue (and in the results' failed.json): queued again only when asked.
    if (o.retryFailed)
      for (const t of tracked.filter((t) => t.state === 'queued')) {
        const job = await queue.getJob(t.jobId);
        if (job && (await job.getState()) === 'failed') await job.remove();
      }
    await queue.addBulk(tracked.filter((t) => t.state === 'queued').map(jobOf));
    say(`queue ${o.queue.label}: ${cells.length} cells, ${reused.length} in the results folder already, ${cells.length - reused.length} on the queue`);

    let lastStatus = 0;
    const shown = { epochs: -1, status: '' };
    const open = () => tracked.filter((t) => t.state === 'queued' || t.state === 'running');
    while (open().length) {
      const changed = (await Promise.all(open().map(look))).some(Boolean);
      const epochs = tracked.reduce((s, t) => s + (t.state === 'queued' || t.state === 'failed' ? 0 : t.state === 'running' ? t.epoch : t.cell.epochs), 0);
      const count = (s: State) => tracked.filter((t) => t.state === s).length;
      const running = tracked.filter((t) => t.state === 'running');
      const status = `${count('queued')} queued, ${running.length} running, ${count('done') + count('reused')} done, ${count('failed')} failed`;
      if (epochs !== shown.epochs || status !== shown.status) bar.update(epochs, undefined, status);
      Object.assign(shown, { epochs, status });
      if (changed || Date.now() - lastStatus > STATUS_SECONDS * 1000) {
        const mean = cellSeconds.length ? cellSeconds.reduce((a, b) => a + b, 0) / cellSeconds.length : undefined;
        const left = count('queued') + running.length;
        const eta =
          left === 0 ? 'all settled' : mean === undefined ? 'ETA unknown until a cell finishes' : `ETA ${minutes((mean * left) / Math.max(1, running.length))}`;
        const where = running.map((t) => `${t.cell.id} on ${t.worker ?? '?'} epoch ${t.epoch}/${t.cell.epochs}`).join('; ');
        say(`cells: ${status} of ${cells.length}${where ? ` (running: ${where})` : ''}; ${eta}; ${minutes((Date.now() - started) / 1000)} elapsed`);
        lastStatus = Date.now();
      }
      if (open().length) await new Promise((r) => setTimeout(r, POLL_SECONDS * 1000));
    }
  } finally {
    bar.stop();
    await queue.close();
    redis.disconnect();
  }
  return tracked.map((t) =>
    t.state === 'failed' ? { cell: t.cell, status: 'failed', error: t.error } : { cell: t.cell, status: t.state === 'reused' ? 'reused' : 'trained' },
  );

  /** Follow one open cell's job; whether its state changed. */
  async function look(t: Tracked): Promise<boolean> {
    const job = (await queue.getJob(t.jobId)) as Job | undefined;
    if (!job) {
      say(`${t.cell.id}: its job is gone (collected by another coordinator, or removed): queued again`);
      await add(t);
      return setState(t, 'queued');
    }
    const state = await job.getState();
    if (state === 'active') {
      const p = CellProgress.safeParse(job.progress);
      const worker = p.success ? p.data.worker : job.processedBy;
      if (p.success) t.epoch = p.data.epoch;
      if (t.state === 'running' && t.worker === worker) return false;
      t.worker = worker;
      const again =
        job.attemptsStarted > 1 ? ` (attempt ${job.attemptsStarted}${job.stalledCounter ? `; ${job.stalledCounter} worker(s) stopped during it` : ''})` : '';
      say(`started ${t.cell.id} on ${worker ?? 'a worker'}${again}`);
      return setState(t, 'running');
    }
    if (state === 'completed') {
      // The job object was read before its state: if it completed in between, that object has no
      // return value yet (seen on a loaded machine), so read the completed job again.
      const finished = job.returnvalue == null ? (((await queue.getJob(t.jobId)) as Job | undefined) ?? job) : job;
      const result = CellResult.parse(finished.returnvalue);
      const record = {
        identity: t.job.identity,
        label: t.cell.id,
        cacheHash: t.job.cacheHash,
        worker: result.worker,
        attempts: finished.attemptsStarted,
        stalls: finished.stalledCounter,
        enqueued: finished.timestamp,
        started: finished.processedOn ?? finished.timestamp,
        finished: finished.finishedOn ?? Date.now(),
        collected: Date.now(),
        trainSeconds: result.trainSeconds,
      };
      if (!(await collectRun(redis, t.jobId, t.cell, record))) {
        say(`${t.cell.id}: finished, but its files are gone from Redis (collected by another coordinator into its folder): queued again`);
        await job.remove();
        await add(t);
        return setState(t, 'queued');
      }
      await job.remove();
      cellSeconds.push((record.finished - record.started) / 1000);
      t.epoch = t.cell.epochs;
      say(
        `done ${t.cell.id} by ${result.worker} (${result.trainSeconds.toFixed(1)} s training, ` +
          `${((record.collected - record.enqueued) / 1000).toFixed(1)} s since queued${record.stalls ? `, after ${record.stalls} stalled worker(s)` : ''})`,
      );
      return setState(t, 'done');
    }
    if (state === 'failed') {
      t.error = job.failedReason;
      // Remembered before it is said and its job goes: a restarted coordinator knows it, and queues it again only when asked.
      o.failed?.({ cell: t.cell, status: 'failed', error: t.error });
      say(`failed ${t.cell.id}: ${job.failedReason}`);
      await job.remove();
      return setState(t, 'failed');
    }
    // waiting, delayed (a retry after a crash), prioritized
    if (t.state === 'running') say(`${t.cell.id} is back in the queue (${state === 'delayed' ? `crashed: ${job.failedReason}` : 'its worker stopped'})`);
    return setState(t, 'queued');
  }
}

function setState(t: Tracked, state: State): boolean {
  const changed = t.state !== state;
  t.state = state;
  return changed;
}
