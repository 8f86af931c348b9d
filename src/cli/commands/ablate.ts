// `ablate`: an ablation grid and its Table 6 style table (eval/ablate.ts).
import type { Argv } from 'yargs';
import { computeOf } from '../../../train/config.ts';
import { computeOptions, computeRules, refuseUnused, splitOption, workersOption } from '../options.ts';

export const ablateCommand = <T>(y: Argv<T>) =>
  y.command(
    'ablate',
    'run an ablation grid (variants x caches x seeds) in worker processes and print the Table 6 style table (--engine, --threads, --backend apply to cells whose grid settings do not set them, and to the evaluation)',
    (y) =>
      workersOption(splitOption(computeOptions(y), 'split the table is evaluated on'), 'cells trained at a time')
        .option('grid', { type: 'string', default: 'train/grids/table6.json', describe: 'grid file: name, base settings, seeds, caches, variants' })
        .option('out', { type: 'string', describe: 'results folder to write (default results/<grid name>)' })
        .option('rounds', { type: 'number', describe: "debate rounds R >= 2 of every cell and of the table's Full-Debate (overrides the grid's, and says so) [default: the grid's, else 3]" }),
    async (a) => {
      refuseUnused(a, computeRules(a));
      const { ablateJob } = await import('../../../eval/ablate.ts');
      const { text, failed } = await ablateJob({ grid: a.grid, out: a.out, workers: a.workers, split: a.split, compute: computeOf(a), rounds: a.rounds });
      console.log(text);
      if (failed) process.exitCode = 1;
    },
  );
