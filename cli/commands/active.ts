// `active`: active recording (jobs/active.ts): train, record the contexts the policy visits that
// the cache lacks, retrain; every training setting is a flag, as in `train`.
import { overrideNotes, readConfigFile, resolveConfig } from '../../train/config.ts';
import { flagSettings, trainFlags } from '../flags.ts';
import { computeRules, recordingFlags, refuseUnused } from '../options.ts';
import { command } from './command.ts';

export const activeCommand = command(
  (y) =>
    trainFlags(y)
      .option('config', { type: 'string', describe: 'JSON file of training settings of every round; flags override it' })
      .option('active-rounds', { type: 'number', default: 3, describe: 'recording rounds (the job trains and measures once more after the last)' })
      .option('passes', { type: 'number', default: 4, describe: 'sampled replays of the train split per round that count visits' })
      .option('max-calls', {
        type: 'number',
        describe: "each round's recording stops before a call past this many (with --endpoints: the team's call cap of each round)",
      })
      .option('budget-usd', {
        type: 'number',
        describe:
          "each round's recording stops once its replies cost this much (the cache's " +
          "prices taken as USD; with --endpoints: the team's dollar cap of each round)",
      })
      .option('concurrency', { type: 'number', default: 8, describe: 'calls in flight at once' })
      .option('eval-record', {
        type: 'boolean',
        default: true,
        describe: 'also measure validation accuracy under miss = record (asks the endpoint on a copy of the cache; nothing is kept)',
      }),
  async (a) => {
    const flags = flagSettings(a);
    const recording = recordingFlags(a);
    const file = a.config ? readConfigFile(a.config) : {};
    const config = resolveConfig(file, flags);
    refuseUnused(a, computeRules(config));
    for (const line of overrideNotes(file, flags, a.config)) console.error(line);
    const { activeJob } = await import('../../jobs/active.ts');
    const out = await activeJob({
      config,
      out: flags.out ?? 'checkpoints/active',
      rounds: a.activeRounds,
      passes: a.passes,
      evalRecord: a.evalRecord,
      recording: { ...recording, endpoints: config.endpoints },
    });
    console.log(out.text);
  },
);
