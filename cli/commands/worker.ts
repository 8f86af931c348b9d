// `worker`: take cells of ablation grids from a Redis queue (`ablate --queue`), train them and
// return the results (jobs/queue/worker.ts). Runs until stopped (src/io/interrupt.ts): the first
// SIGINT/SIGTERM lets the running cells finish and exits 130/143, a second stops at once (those
// cells' training children get SIGTERM and keep their last checkpoint; the cells go back to the queue).
import { hideBin } from 'yargs/helpers';
import { redactCredentials, shellWords } from '../../src/io/commandLine.ts';
import { continueWith, onInterrupt, untilStopped } from '../../src/io/interrupt.ts';
import { computeOf } from '../../src/policy/backends.ts';
import { letChildrenFinish } from '../../train/stopped.ts';
import { computeOptions, workersOption } from '../options.ts';
import { command } from './command.ts';

export const workerCommand = command(
  (y) =>
    workersOption(computeOptions(y), 'cells trained at a time on this machine')
      .option('queue', {
        type: 'string',
        demandOption: true,
        describe: 'redis://[:password@]host:port/db or rediss:// (TLS), as given to ablate --queue (password also from CPP_REDIS_PASSWORD)',
      })
      .option('cache-map', {
        type: 'string',
        array: true,
        default: [] as string[],
        describe: "FROM=TO: the grid's cache path FROM (or under it) is TO on this machine; repeatable",
      })
      .option('work', { type: 'string', describe: 'folder of runs in progress (default: a temp folder, removed on exit)' })
      .option('lock-duration', {
        type: 'number',
        default: 30,
        describe:
          "seconds a cell's lock lasts unless renewed (this worker renews it every half); a killed " +
          "worker's cell goes back to the queue within lock-duration + 2 x stalled-interval",
      })
      .option('stalled-interval', {
        type: 'number',
        default: 30,
        describe: "seconds between this worker's looks for cells whose worker stopped renewing its lock",
      }),
  async (a) => {
    const { startWorker, parseCacheMap } = await import('../../jobs/queue/worker.ts');
    const { parseQueueUrl } = await import('../../jobs/queue/redis.ts');
    const worker = startWorker({
      queue: parseQueueUrl(a.queue),
      concurrency: a.workers,
      compute: computeOf(a),
      cacheMap: parseCacheMap(a.cacheMap),
      work: a.work,
      lockSeconds: a.lockDuration,
      stalledSeconds: a.stalledInterval,
    });
    letChildrenFinish();
    onInterrupt({
      finish: () => {
        console.error(`worker ${worker.name}: stopping once the running cells finish (signal again to stop now; they go back to the queue)`);
        return worker.close();
      },
      say: () => [`worker ${worker.name}: stopped; its running cells finished and were returned`],
    });
    continueWith(() => `to work again: npx cpp-workbench ${shellWords(redactCredentials(hideBin(process.argv)))}`);
    await untilStopped();
  },
);
