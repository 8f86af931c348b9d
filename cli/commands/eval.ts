// `eval`: every comparison of docs/method.md §8-9 on one cache and split (jobs/eval.ts).
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
  keepRateCoerce,
} from '../options.ts';
import { SettingsError } from '../../src/io/errors.ts';
import { command } from './command.ts';

export const evalCommand = command(
  (y) =>
    seedsOption(splitOption(cacheOption(computeOptions(endpointsOption(debateOptions(planOptions(y)))))), 'seeded runs of random pruning and the static mask')
      .option('policy', {
        type: 'string',
        array: true,
        default: [] as string[],
        describe: 'checkpoint or policy.json; plain paths are the runs (seeds) of one method, label=path1,path2 makes a method of its own',
      })
      .option('w-collapse', { type: 'number', default: 1, describe: 'signed utility: weight of a collapse prevented' })
      .option('w-correction', { type: 'number', default: 1, describe: 'signed utility: weight of a correction lost' })
      .option('methods', {
        type: 'string',
        default: 'full,none,single,consistency,freeze,stop,random,mask',
        describe: 'comma-separated: full, none, single, consistency, freeze, stop (consensus stop, sparse debate), random, mask',
      })
      .option('keep-rate', {
        type: 'number',
        describe: "keep rate of random pruning (default: the policies' mean keep rate, 0.5 without policies)",
        coerce: keepRateCoerce,
      })
      .option('config', { type: 'string', describe: 'training settings (reward, return, epochs, ...) of the static mask' })
      .option('reference', { type: 'string', default: 'Full-Debate', describe: 'method (name prefix) for cost % and signed utility' })
      .option('out', { type: 'string', describe: 'folder to write comparison.md, comparison.csv, accuracy-cost.svg, provenance.json' })
      .example('$0 eval --policy checkpoints/k0/best.json --split test --out results/k0', 'a trained policy against every baseline')
      .example(
        "$0 eval --policy 'k-1=a/best.json,b/best.json' --policy 'k0=c/best.json' --methods full,none",
        'two labelled policy methods, each over its runs',
      )
      .example('$0 eval --policy checkpoints/k0/best.json --dry-run', 'the rows it would compute and the files it would write'),
  async (a) => {
    const methods = a.methods.split(',').map((m) => m.trim());
    refuseUnused(a, [
      ['keep-rate', !methods.includes('random'), 'sets random pruning, which --methods leaves out'],
      ['config', !methods.includes('mask'), "sets the static mask's training, which --methods leaves out (policies carry their own settings)"],
      [
        'seeds',
        !methods.includes('random') && !methods.includes('mask'),
        'counts the seeded runs of random pruning and the static mask, which --methods leaves out',
      ],
      ...computeRules(a, a.policy.length > 0, 'sets how policy math is computed, and no --policy is evaluated'),
    ]);
    const { evalDescription, evalJob, METHODS } = await import('../../jobs/eval.ts');
    const unknown = methods.filter((m) => !(METHODS as readonly string[]).includes(m));
    if (unknown.length) throw new SettingsError(`--methods: unknown ${unknown.join(', ')} (choose from ${METHODS.join(', ')})`);
    const o = {
      policies: a.policy,
      cache: a.cache,
      split: a.split,
      compute: computeOf(a),
      settings: debateSettings(a),
      methods: methods as (typeof METHODS)[number][],
      keepRate: a.keepRate,
      seeds: a.seeds,
      config: a.config,
      reference: a.reference,
      out: a.out,
      weights: { collapse: a.wCollapse, correction: a.wCorrection },
      recording: { endpoints: a.endpoints },
    };
    await runOrPlan(
      a,
      () => evalDescription(o),
      async () => {
        const out = await evalJob(o);
        console.log(out.table);
        if (out.files.length) console.log(`\nwritten: ${out.files.join(', ')}`);
      },
    );
  },
);
