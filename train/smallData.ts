// Small data: what a split too small for its purpose does to training and to the numbers a report
// prints, said before any time is spent. Training calls `checkTrainingData` once, in its setup;
// comparison reports add `fewQuestionsNote` under their tables.
import { splitQuestions, type Environment } from '../src/env/environment.ts';
import { wilson } from '../src/significance.ts';
import { InputError } from '../src/io/errors.ts';

/** Below this many questions a 95% interval of an accuracy is wider than about ±17 points (at 50%): said out loud. */
export const FEW_QUESTIONS = 30;

/** Half-width (points) of the 95% Wilson interval of `correct` right of `n`: 50% right when not given, its widest. */
export function halfWidthPoints(n: number, correct = n / 2): number {
  const w = wilson(correct, n);
  return (100 * (w.high - w.low)) / 2;
}

/** The note a report on `n` questions carries when they are too few for its 95% intervals, else undefined. */
export function fewQuestionsNote(what: string, n: number, correct?: number): string | undefined {
  if (n >= FEW_QUESTIONS) return undefined;
  const at = correct === undefined ? 'at 50% right' : `at ${((100 * correct) / n).toFixed(1)}% right`;
  return (
    `${what}: only ${n} question${n === 1 ? '' : 's'}: a 95% interval of an accuracy on them is ` +
    `±${halfWidthPoints(n, correct).toFixed(1)} points wide (${at}, Wilson); differences smaller than that are not told apart`
  );
}

/**
 * Splits a training run cannot work with (an error: nothing to train on, or no validation to pick
 * the best checkpoint by) and ones it works with poorly (warnings): a batch larger than the train
 * split (each step replays the whole split, one step an epoch), a validation split too small to
 * tell checkpoints apart, no test questions to evaluate on afterwards.
 */
export function checkSplitSizes(sizes: { train: number; validation: number; test: number }, batchSize: number, where: string): string[] {
  const empty = (['train', 'validation'] as const).filter((s) => sizes[s] === 0);
  if (empty.length)
    throw new InputError(
      `${where}: no ${empty.join(' and no ')} questions this team can debate (train ${sizes.train}, validation ` +
        `${sizes.validation}, test ${sizes.test}): training needs both (the validation split picks the best checkpoint)`,
    );
  const warnings: string[] = [];
  if (batchSize > sizes.train)
    warnings.push(
      `batch size ${batchSize} exceeds the ${sizes.train} train questions: each step replays all ${sizes.train}, one ` +
        `step an epoch; a batch of at most ${Math.max(1, Math.floor(sizes.train / 4))} gives several steps an epoch`,
    );
  const few = fewQuestionsNote('validation split', sizes.validation);
  if (few) warnings.push(`${few}: the best checkpoint is picked on noise`);
  if (sizes.test === 0) warnings.push('no test questions: evaluating on the test split afterwards will find none');
  else {
    const fewTest = fewQuestionsNote('test split', sizes.test);
    if (fewTest) warnings.push(fewTest);
  }
  return warnings.map((w) => `${where}: ${w}`);
}

/** `checkSplitSizes` on the questions the training (`trainEnv`) and its evaluations (`evalEnv`) replay: throws, or returns the warnings. */
export function checkTrainingData(trainEnv: Environment, evalEnv: Environment, batchSize: number): string[] {
  const count = (env: Environment, split: 'train' | 'validation' | 'test') => splitQuestions(env, split).questions.length;
  return checkSplitSizes(
    { train: count(trainEnv, 'train'), validation: count(evalEnv, 'validation'), test: count(evalEnv, 'test') },
    batchSize,
    trainEnv.cache.file,
  );
}
