// `baselines`: Full-Debate, No-communication and each Single agent on a split.
import type { Argv } from 'yargs';
import { defaultCompute } from '../../../train/config.ts';
import { cacheOption, debateOptions, debateSettings, endpointsOption, splitOption } from '../options.ts';

export const baselinesCommand = <T>(y: Argv<T>) =>
  y.command(
    'baselines',
    'replay Full-Debate, No-communication and each Single agent on a split',
    (y) => splitOption(cacheOption(endpointsOption(debateOptions(y))), 'questions to replay'),
    async (a) => {
      const { evalJob } = await import('../../../eval/evalPolicy.ts');
      console.log((await evalJob({ policies: [], cache: a.cache, split: a.split, compute: defaultCompute(), settings: debateSettings(a), methods: ['full', 'none', 'single'], seeds: 1, reference: 'Full-Debate', recording: { endpoints: a.endpoints } })).table);
    },
  );
