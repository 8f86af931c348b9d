// `pareto`: CPP trained to several target budgets against the baselines at matched cost (jobs/pareto.ts).
import { computeOf } from '../../src/policy/backends.ts';
import { cacheOption, computeOptions, debateOptions, debateSettings, seedsOption, splitOption, workersOption } from '../options.ts';
import { SettingsError } from '../../src/io/errors.ts';
import { DECISIONS, type Decisions } from '../../src/policy/model.ts';
import { command } from './command.ts';

export const paretoCommand = command(
  (y) =>
    workersOption(
      seedsOption(splitOption(cacheOption(computeOptions(debateOptions(y)))), 'CPP runs (and random pruning, static mask runs) per budget'),
      'training runs at a time',
    )
      .option('budgets', { type: 'string', default: '0.8,0.85,0.9,0.95', describe: "target costs as fractions of Full-Debate's, comma-separated" })
      .option('decisions', {
        type: 'string',
        default: 'edges',
        describe: `policy variants trained to each budget, comma-separated (${DECISIONS.join(', ')}), or none: the baselines' frontier alone`,
      })
      .option('config', {
        type: 'string',
        default: 'train/configs/main.json',
        describe: 'training settings of the CPP runs and the static mask (each budget sets targetCost)',
      })
      .option('out', {
        type: 'string',
        default: 'results/pareto',
        describe: 'folder of the runs (one per budget and seed; finished ones are reused) and the report (report/)',
      })
      .option('force', {
        type: 'boolean',
        default: false,
        describe: 'train anew the runs whose folders hold runs of other settings or another cache (else an error naming each difference)',
      }),
  async (a) => {
    const budgets = a.budgets.split(',').map(Number);
    if (budgets.some((b) => !(b > 0 && b <= 1))) throw new SettingsError(`--budgets: '${a.budgets}': each must be a number in (0, 1]`);
    const decisions = a.decisions === 'none' ? [] : a.decisions.split(',').map((d) => d.trim());
    const unknown = decisions.filter((d) => !(DECISIONS as readonly string[]).includes(d));
    if (unknown.length) throw new SettingsError(`--decisions: unknown ${unknown.join(', ')} (choose from ${DECISIONS.join(', ')}, or none)`);
    const { paretoJob } = await import('../../jobs/pareto.ts');
    console.log(
      await paretoJob({
        cache: a.cache,
        split: a.split,
        settings: debateSettings(a),
        config: a.config,
        budgets,
        decisions: decisions as Decisions[],
        seeds: a.seeds,
        workers: a.workers,
        out: a.out,
        compute: computeOf(a),
        force: a.force,
      }),
    );
  },
);
