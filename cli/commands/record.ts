// `record`: a method or a policy replayed with the record tier; every new reply is journaled
// (jobs/record.ts).
import { computeOf } from '../../src/policy/backends.ts';
import {
  cacheOption,
  computeOptions,
  computeRules,
  debateOptions,
  debateSettings,
  endpointsOption,
  recordingFlags,
  refuseUnused,
  splitOption,
  keepRateCoerce,
} from '../options.ts';
import { SettingsError } from '../../src/io/errors.ts';
import { command } from './command.ts';

export const recordCommand = command(
  (y) =>
    endpointsOption(splitOption(cacheOption(computeOptions(debateOptions(y))), 'questions to replay'))
      .option('method', { choices: ['full', 'none', 'random'] as const, describe: 'fixed rule to replay (default full; not with --policy)' })
      .option('keep-rate', { type: 'number', describe: 'keep rate of --method random (default 0.5)', coerce: keepRateCoerce })
      .option('policy', { type: 'string', describe: 'trained policy (checkpoint or policy.json) to replay instead of a rule' })
      .option('max-calls', { type: 'number', describe: "stop before a call that would exceed this many (with --endpoints: the team's call cap)" })
      .option('budget-usd', {
        type: 'number',
        describe:
          "stop once the replies received cost this much (prices x tokens; the cache's " +
          "prices are taken as USD); with --endpoints: the team's hard dollar cap",
      })
      .option('concurrency', { type: 'number', default: 8, describe: 'calls in flight at once' }),
  async (a) => {
    if (a.miss !== 'model')
      throw new SettingsError(`--miss ${a.miss}: record always replays with miss = record (and miss = model for the before/after shares); leave --miss out`);
    if (a.policy && a.method) throw new SettingsError('--method and --policy: give one');
    if (a.keepRate !== undefined && a.method !== 'random') throw new SettingsError('--keep-rate applies to --method random only');
    refuseUnused(a, [
      [
        'allow-unrecorded-rounds',
        true,
        "is not record's to set: its replays at miss = model draw rounds the cache lacks from the tier-3 model and show that share",
      ],
      ...computeRules(a, a.policy !== undefined, 'sets how policy math is computed, and no --policy is replayed'),
    ]);
    const recording = recordingFlags(a);
    const { recordJob } = await import('../../jobs/record.ts');
    const out = await recordJob({
      cache: a.cache,
      split: a.split,
      settings: debateSettings(a),
      method: a.method ?? 'full',
      keepRate: a.keepRate ?? 0.5,
      policy: a.policy,
      compute: computeOf(a),
      recording: { ...recording, endpoints: a.endpoints },
    });
    console.log(out.text);
  },
);
