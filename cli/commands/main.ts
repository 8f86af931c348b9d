// `main`: the main job (jobs/main.ts).
import { computeOf } from '../../src/policy/backends.ts';
import {
  cacheOption,
  computeOptions,
  computeRules,
  debateOptions,
  debateSettings,
  endpointsOption,
  planOptions,
  refuseUnused,
  runOrPlan,
  seedsOption,
  splitOption,
  workersOption,
} from '../options.ts';
import { command } from './command.ts';

export const mainCommand = command(
  (y) =>
    workersOption(
      seedsOption(splitOption(cacheOption(computeOptions(endpointsOption(debateOptions(planOptions(y)))))), 'training seeds of CPP'),
      'training runs at a time',
    )
      .option('config', { type: 'string', default: 'train/configs/main.json', describe: 'training settings of the CPP runs' })
      .option('out', {
        type: 'string',
        default: 'checkpoints/main',
        describe: 'job folder: one run per seed (seed-N/; finished ones are reused) and the report (report/)',
      })
      .option('force', {
        type: 'boolean',
        default: false,
        describe: 'train anew the seeds whose folders hold runs of other settings or another cache (else an error naming each difference)',
      })
      .example('$0 main', 'the default world: train 3 seeds, compare with every baseline')
      .example('$0 main --dry-run', 'which seeds would be trained, resumed or reused, and what is compared')
      .example('$0 main --cache cache/dylan-math --agents a1,a2,a3 --out checkpoints/dylan', 'the main job on an imported cache'),
  async (a) => {
    refuseUnused(a, computeRules(a));
    const { mainDescription, mainJob } = await import('../../jobs/main.ts');
    const o = {
      cache: a.cache,
      split: a.split,
      settings: debateSettings(a),
      config: a.config,
      seeds: a.seeds,
      out: a.out,
      workers: a.workers,
      compute: computeOf(a),
      endpoints: a.endpoints,
      force: a.force,
    };
    await runOrPlan(
      a,
      () => mainDescription(o),
      async () => console.log(await mainJob(o)),
    );
  },
);
