// `transfer`: a trained policy on a team with one member replaced, five ways, on the test split (jobs/transfer.ts).
import { SettingsError } from '../../src/io/errors.ts';
import { computeOf } from '../../src/policy/backends.ts';
import { computeOptions, computeRules, refuseUnused, workersOption } from '../options.ts';
import { command } from './command.ts';

const positive = (flag: string) => (v?: number) => {
  if (v !== undefined && !(Number.isInteger(v) && v > 0)) throw new SettingsError(`--${flag} ${v}: must be a whole number of steps, at least 1`);
  return v;
};

export const transferCommand = command(
  (y) =>
    workersOption(computeOptions(y), 'training runs at a time')
      .option('policy', {
        type: 'string',
        array: true,
        demandOption: true,
        describe: 'the trained policies, one per seed (checkpoints such as checkpoints/main/seed-0/best.json)',
      })
      .option('cache', { type: 'string', demandOption: true, describe: "the new team's cache: the policies' team with one member replaced" })
      .option('replace', {
        type: 'string',
        describe: 'OLD=NEW: the member replaced and the agent of the cache that takes its seat (default: worked out from the ids and models of the two teams)',
        coerce: (v?: string) => {
          if (v === undefined) return v;
          const [old, arrived, ...rest] = v.split('=');
          if (!old || !arrived || rest.length) throw new SettingsError(`--replace ${v}: expected OLD=NEW, two agent ids (e.g. brisk=brisk-stronger)`);
          return [old, arrived] as [string, string];
        },
      })
      .option('general', {
        type: 'string',
        array: true,
        describe: 'team-general policies (behavior rows, trained across teams), one per seed of --policy: the way (f), on the new team untrained',
      })
      .option('config', { type: 'string', describe: 'training settings of the runs (default: those the first policy was trained with, from its checkpoint)' })
      .option('steps', { type: 'number', describe: 'steps of the fine-tunes (b, c); default: those of the runs from scratch (d)', coerce: positive('steps') })
      .option('trace-every', {
        type: 'number',
        default: 6,
        describe: 'evaluate every run on the test split every N training steps (the curves)',
        coerce: positive('trace-every'),
      })
      .option('out', {
        type: 'string',
        default: 'checkpoints/transfer',
        describe: 'job folder: start/ (the transferred policies), embedding/, all/, scratch/ (a run per seed each; finished ones are reused), report/',
      })
      .option('force', {
        type: 'boolean',
        default: false,
        describe: 'train anew the runs whose folders hold runs of other settings, another cache or another start policy',
      })
      .example(
        '$0 transfer --policy checkpoints/main/seed-{0,1,2}/best.json --cache cache/brisk-stronger --out checkpoints/transfer/brisk-stronger',
        'the main job policies on the default world with brisk replaced (cache gen --replace brisk=stronger)',
      ),
  async (a) => {
    refuseUnused(a, computeRules(a));
    const { transferJob } = await import('../../jobs/transfer.ts');
    console.log(
      await transferJob({
        policies: a.policy,
        general: a.general,
        cache: a.cache,
        replace: a.replace,
        config: a.config,
        steps: a.steps,
        traceEvery: a.traceEvery!,
        workers: a.workers,
        compute: computeOf(a),
        out: a.out,
        force: a.force,
      }),
    );
  },
);
