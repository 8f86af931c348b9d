// `main`: the main job (eval/mainJob.ts).
import type { Argv } from 'yargs';
import { computeOf } from '../../../train/config.ts';
import { cacheOption, computeOptions, computeRules, debateOptions, debateSettings, refuseUnused, seedsOption, splitOption, workersOption } from '../options.ts';

export const mainCommand = <T>(y: Argv<T>) =>
  y.command(
    'main',
    'the main job: create the default simulated cache if missing, train CPP for several seeds, compare it with every baseline on the test split',
    (y) =>
      workersOption(seedsOption(splitOption(cacheOption(computeOptions(debateOptions(y)))), 'training seeds of CPP'), 'training runs at a time')
        .option('config', { type: 'string', default: 'train/configs/main.json', describe: 'training settings of the CPP runs' })
        .option('out', { type: 'string', default: 'checkpoints/main', describe: 'job folder: one run per seed (seed-N/; finished ones are reused) and the report (report/)' }),
    async (a) => {
      refuseUnused(a, computeRules(a));
      const { mainJob } = await import('../../../eval/mainJob.ts');
      console.log(await mainJob({ cache: a.cache, split: a.split, settings: debateSettings(a), config: a.config, seeds: a.seeds, out: a.out, workers: a.workers, compute: computeOf(a) }));
    },
  );
