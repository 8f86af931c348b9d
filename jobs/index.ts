// The jobs behind the commands (`import ... from 'cpp-workbench/jobs'`): each takes plain options
// and returns what the command prints; the CLI (cli/) only parses flags into these options.
export { resolveConfig, readConfigFile, TrainConfig } from '../train/config.ts';
export { train, type TrainOptions } from '../train/trainer.ts';
export { trainDescription } from '../train/plan.ts';
export { mainDescription, mainJob, type MainOptions } from './main.ts';
export { evalDescription, evalJob, type EvalOptions } from './eval.ts';
export { ablateDescription, ablateJob, type AblateOptions } from './ablate.ts';
export { importJob, pricesOf, type ImportOptions } from './import.ts';
export { auditJob, embedJob, genJob, statsJob, type GenOptions } from './cache.ts';
export { validateJob } from './validate.ts';
