// Corpus cases of kind 'flags': a bad or mistyped flag on the command line (out of range, of the
// wrong type, unknown, naming a file or folder that does not exist); the error names the flag.
import { INPUT } from '../inputs.ts';
import { trainArgs, type CorpusCase } from './case.ts';

const evalRandom = ['eval', '--cache', INPUT.cache, '--methods', 'random'];
const recordRandom = ['record', '--cache', INPUT.cache, '--method', 'random', '--split', 'train'];
const FLAG_CASES: { args: string[]; flag: string; code?: number }[] = [
  { args: [...evalRandom, '--keep-rate', '2'], flag: 'keep-rate' },
  { args: [...evalRandom, '--keep-rate', '-0.5'], flag: 'keep-rate' },
  { args: [...recordRandom, '--keep-rate', '2'], flag: 'keep-rate' },
  { args: [...trainArgs, '--rounds', '1'], flag: 'rounds' },
  { args: [...trainArgs, '--epochs', '0'], flag: 'epochs' },
  { args: [...trainArgs, '--batch-size', '-4'], flag: 'batch-size' },
  { args: [...trainArgs, '--lr', '0'], flag: 'lr' },
  { args: [...trainArgs, '--threads', '0'], flag: 'threads' },
  { args: [...trainArgs, '--seed', '1.5'], flag: 'seed' },
  { args: [...trainArgs, '--epochs', 'many'], flag: 'epochs' },
  { args: [...trainArgs, '--behavior-rows', ''], flag: 'behavior-rows' },
  { args: ['cache', 'gen', '--out', 'generated', '--questions='], flag: 'questions' },
  { args: [...trainArgs, '--epochz', '3'], flag: 'epochz', code: 2 },
  { args: ['ablate', '--grid', INPUT.grid, '--out', 'grid-out', '--workers', '0'], flag: 'workers' },
  { args: ['ablate', '--grid', INPUT.grid, '--out', 'grid-out', '--rounds', '1'], flag: 'rounds' },
  { args: ['main', '--cache', INPUT.cache, '--config', INPUT.config, '--out', 'job', '--seeds', '0'], flag: 'seeds' },
  { args: ['main', '--cache', INPUT.cache, '--config', INPUT.config, '--out', 'job', '--seeds', '-1'], flag: 'seeds' },
  { args: ['main', '--cache', INPUT.cache, '--config', INPUT.config, '--out', 'job', '--workers', '0'], flag: 'workers' },
  { args: ['cache', 'gen', '--out', 'generated', '--questions', '-5'], flag: 'questions' },
  { args: ['cache', 'gen', '--out', 'generated', '--questions', '0'], flag: 'questions' },
  { args: ['cache', 'gen', '--out', 'generated', '--questions', '2.5'], flag: 'questions' },
  { args: ['cache', 'gen', '--out', 'generated', '--quesstions', '5'], flag: 'quesstions', code: 2 },
  { args: ['baselines', '--cache', INPUT.cache, '--rounds', '0'], flag: 'rounds' },
  { args: ['eval', '--cache', INPUT.cache, '--methods', 'full', '--split', 'dev'], flag: 'split' },
  { args: [...recordRandom, '--max-calls', '-1'], flag: 'max-calls' },
  { args: [...recordRandom, '--concurrency', '0'], flag: 'concurrency' },
  { args: ['eval', '--cache', INPUT.cache, '--methods', 'full', '--policy', 'missing.json'], flag: 'missing\\.json' },
  { args: ['export', 'missing.json'], flag: 'missing\\.json' },
  { args: ['train', '--resume', '--out', 'nowhere'], flag: 'nowhere' },
  { args: ['cache', 'validate', 'nowhere'], flag: 'nowhere' },
  { args: ['baselines', '--cache', 'nowhere'], flag: 'nowhere' },
];
/** A flag as the error may name it: `--batch-size`, or its setting `batchSize`. */
const flagNames = (flag: string) => (/^[a-z-]+$/.test(flag) ? `(--${flag}|\\b${flag.replace(/-(\w)/g, (_, c: string) => c.toUpperCase())}\\b)` : flag);
export const flagCases: CorpusCase[] = FLAG_CASES.map((f) => ({
  id: `flags: ${f.args.join(' ')}`,
  kind: 'flags',
  args: f.args,
  code: f.code ?? 'nonzero',
  error: flagNames(f.flag),
}));
