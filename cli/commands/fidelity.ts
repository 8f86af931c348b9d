// `fidelity`: every method under miss = model and under miss = record on a cache whose endpoint
// answers every context (jobs/fidelity.ts).
import { computeOf } from '../../src/policy/backends.ts';
import { cacheOption, computeOptions, debateOptions, debateSettings, endpointsOption, seedsOption, splitOption } from '../options.ts';
import { SettingsError } from '../../src/io/errors.ts';
import { command } from './command.ts';

export const fidelityCommand = command(
  (y) =>
    seedsOption(
      splitOption(cacheOption(computeOptions(endpointsOption(debateOptions(y)))), 'questions to replay'),
      'seeded runs of random pruning and the static mask',
    )
      // Both tiers are run: a --miss would be unused.
      .option('miss', { type: 'string', hidden: true, default: undefined })
      .option('policy', {
        type: 'string',
        array: true,
        default: [] as string[],
        describe: 'trained CPP policy (checkpoint or policy.json); plain paths are the runs (seeds) of one method, label=path1,path2 makes a method of its own',
      })
      .option('keep-rates', { type: 'string', default: '0.25,0.5,0.75', describe: 'comma-separated keep rates of random pruning' })
      .option('config', { type: 'string', describe: 'training settings (reward, return, epochs, ...) of the static mask' })
      .option('samples', {
        type: 'number',
        default: 4,
        describe: 'endpoint samples per context in the bias tables (round-2 contexts; where each method went)',
      })
      .option('visited', {
        type: 'number',
        default: 400,
        describe:
          'per method, at most this many of the lookups the tier-3 model answered in its miss = model ' +
          "replay are asked of the endpoint, to measure the model's bias where the method went (0: none)",
      })
      .option('out', { type: 'string', describe: 'folder to write fidelity.md, fidelity.csv and context-bias.csv' }),
  async (a) => {
    if (a.miss !== undefined) throw new SettingsError('--miss: fidelity runs every method under both miss = model and miss = record; drop the flag');
    const keepRates = a.keepRates.split(',').map((x) => Number(x.trim()));
    const bad = keepRates.filter((r) => !(r >= 0 && r <= 1));
    if (bad.length || !keepRates.length) throw new SettingsError(`--keep-rates: each rate must be a number from 0 to 1 (got '${a.keepRates}')`);
    if (!Number.isInteger(a.samples) || a.samples < 1) throw new SettingsError(`--samples: a whole number of at least 1 (got ${a.samples})`);
    if (!Number.isInteger(a.visited) || a.visited < 0) throw new SettingsError(`--visited: a whole number, 0 or more (got ${a.visited})`);
    const { fidelityJob } = await import('../../jobs/fidelity.ts');
    const out = await fidelityJob({
      cache: a.cache,
      split: a.split,
      settings: debateSettings({ ...a, miss: 'model' }),
      policies: a.policy,
      compute: computeOf(a),
      keepRates,
      seeds: a.seeds,
      config: a.config,
      samples: a.samples,
      visited: a.visited,
      out: a.out,
      endpoints: a.endpoints,
    });
    console.log(out.text);
    if (out.files.length) console.log(`\nwritten: ${out.files.join(', ')}`);
  },
);
