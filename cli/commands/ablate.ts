// `ablate`: an ablation grid and its Table 6 style table (jobs/ablate.ts), trained by local worker
// processes or, with --queue, by `worker` processes on any machines (jobs/queue/).
import { computeOf } from '../../src/policy/backends.ts';
import { computeOptions, computeRules, endpointsOption, planOptions, refuseUnused, runOrPlan, splitOption, workersOption } from '../options.ts';
import { command } from './command.ts';

export const ablateCommand = command(
  (y) =>
    workersOption(splitOption(computeOptions(endpointsOption(planOptions(y))), 'split the table is evaluated on'), 'cells trained at a time by local workers')
      // No default value here, so that --workers with --queue (where it means nothing) is an error.
      .option('workers', { default: undefined, defaultDescription: '2' })
      .option('queue', {
        type: 'string',
        describe:
          'redis://[:password@]host:port/db or rediss:// (TLS): put the cells on this queue for ' +
          '`worker` processes instead of training them here (password also from CPP_REDIS_PASSWORD)',
      })
      .conflicts('queue', 'workers')
      .option('grid', { type: 'string', default: 'train/grids/table6.json', describe: 'grid file: name, base settings, seeds, caches, variants' })
      .option('out', { type: 'string', describe: 'results folder to write (default results/<grid name>)' })
      .option('rounds', {
        type: 'number',
        describe: "debate rounds R >= 2 of every cell and of the table's Full-Debate (overrides the grid's, and says so) [default: the grid's, else 3]",
      })
      .option('force', {
        type: 'boolean',
        describe: 'train anew the cells whose folders hold runs of other settings or another cache (else an error naming each difference)',
      })
      .conflicts('force', 'queue')
      .option('retry-failed', {
        type: 'boolean',
        describe:
          'train again the cells that failed in an earlier run of this grid (remembered in <results>/failed.json; else they are reported failed, untrained)',
      })
      .example('$0 ablate --grid train/grids/table6.json --dry-run', 'which cells would start, resume or be reused')
      .example('$0 ablate --grid train/grids/table6.json --workers 2', 'train the grid and print its table'),
  async (a) => {
    refuseUnused(a, computeRules(a));
    const { ablateDescription, ablateJob } = await import('../../jobs/ablate.ts');
    const o = {
      grid: a.grid,
      out: a.out,
      workers: a.workers ?? 2,
      queue: a.queue,
      split: a.split,
      compute: computeOf(a),
      endpoints: a.endpoints,
      rounds: a.rounds,
      force: a.force,
      retryFailed: a.retryFailed,
    };
    await runOrPlan(
      a,
      () => ablateDescription(o),
      async () => {
        const { text, failed } = await ablateJob(o);
        console.log(text);
        if (failed) process.exitCode = 1;
      },
    );
  },
);
