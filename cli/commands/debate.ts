// `debate`: live debates on a team of endpoints with an exported policy choosing what each agent
// reads; the transcript goes into a cache (src/endpoints/liveDebate.ts).
import { SPLITS, type Split } from '../../src/cache/format.ts';
import { SettingsError } from '../../src/io/errors.ts';
import { command } from './command.ts';

export const debateCommand = command(
  (y) =>
    y
      .option('team', { type: 'string', demandOption: true, describe: 'team file: endpoint, prompts and price of each agent, concurrency, retries, caps' })
      .option('policy', { type: 'string', demandOption: true, describe: 'exported policy.json (policy.onnx beside it; see `export`)' })
      .option('out', { type: 'string', demandOption: true, describe: 'cache to write the transcript into (appended to when it exists)' })
      .option('cache', { type: 'string', describe: 'cache whose questions to debate (with --split); its responses to the same requests are reused' })
      .option('split', { choices: SPLITS, describe: 'split of --cache to debate' })
      .option('questions-file', {
        type: 'string',
        describe: 'questions to debate instead, one JSON object a line: id, text, gold, answerType[, benchmark, split, promptTokens]',
      })
      .option('questions', { type: 'number', describe: 'debate the first N questions only' })
      .option('rounds', { type: 'number', default: 3, describe: 'debate rounds R (at most the rounds the policy was trained for)' })
      .option('sample', { type: 'number', default: 0, describe: 'round-1 sample index (another index starts fresh debates of the same questions)' })
      .option('budget-usd', { type: 'number', describe: "dollar cap of this run's calls (overrides the team file's budget.maxUsd)" })
      .option('max-calls', { type: 'number', describe: "call cap of this run (overrides the team file's budget.maxCalls)" })
      .check((a) => {
        if ((a.cache === undefined) === (a.questionsFile === undefined)) throw new SettingsError('give either --cache DIR --split S or --questions-file FILE');
        if (a.cache !== undefined && a.split === undefined) throw new SettingsError('--cache needs --split');
        if (a.split !== undefined && a.cache === undefined) throw new SettingsError('--split needs --cache');
        return true;
      }),
  async (a) => {
    const { liveDebate } = await import('../../src/endpoints/liveDebate.ts'); // loads ONNX Runtime: only when run
    await liveDebate({
      team: a.team,
      policy: a.policy,
      out: a.out,
      questions: a.cache !== undefined ? { cache: a.cache, split: a.split as Split } : { file: a.questionsFile! },
      limit: a.questions,
      rounds: a.rounds,
      sample: a.sample,
      caps: { ...(a.budgetUsd !== undefined && { maxUsd: a.budgetUsd }), ...(a.maxCalls !== undefined && { maxCalls: a.maxCalls }) },
      print: (line) => console.log(line),
    });
  },
);
