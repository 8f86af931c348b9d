// `baselines`: Full-Debate, No-communication and each Single agent on a split.
import { defaultCompute } from '../../src/policy/backends.ts';
import { cacheOption, debateOptions, debateSettings, endpointsOption, planOptions, runOrPlan, splitOption } from '../options.ts';
import { command } from './command.ts';

export const baselinesCommand = command(
  (y) =>
    splitOption(cacheOption(endpointsOption(debateOptions(planOptions(y)))), 'questions to replay').example(
      '$0 baselines --cache cache/dylan-math --agents a1,a2,a3',
      'the baselines of an imported cache',
    ),
  async (a) => {
    const { evalDescription, evalJob } = await import('../../jobs/eval.ts');
    const o = {
      policies: [],
      cache: a.cache,
      split: a.split,
      compute: defaultCompute(),
      settings: debateSettings(a),
      methods: ['full', 'none', 'single'] as const,
      seeds: 1,
      reference: 'Full-Debate',
      recording: { endpoints: a.endpoints },
    };
    await runOrPlan(
      a,
      () => evalDescription({ ...o, methods: [...o.methods] }),
      async () => console.log((await evalJob({ ...o, methods: [...o.methods] })).table),
    );
  },
);
