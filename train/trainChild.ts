// Entry of a training child process (train/runs.ts starts one per run, so two cores train two runs
// at once): `node --import tsx train/trainChild.ts SETTINGS.json [--resume]`. Progress and errors go
// to stderr, where the parent reads the validation lines (and keeps them in the run's train.log). An
// error is said as the command line says it (src/io/errors.ts reportError): a user error as its
// message, exit 1; a bug as its stack, exit 70; either also sent to the parent, which relays it.
import { dirname } from 'node:path';
import { reportError, stackOf, userMessage } from '../src/io/errors.ts';
import { handleInterrupts } from '../src/io/interrupt.ts';
import { readConfigFile, resolveConfig } from './config.ts';
import { sayRunOnStop } from './stopped.ts';
import { train } from './trainer.ts';

/** What the child sends its parent (over the IPC channel runs.ts opens) before it exits on an error: a user error's message, or a bug's stack. */
export type ChildFailure = { userError: string } | { bug: string };

const [settingsFile, ...rest] = process.argv.slice(2);
// SIGTERM from the job (train/stopped.ts) stops it, keeping the last checkpoint; a terminal's SIGINT is the job's to act on.
handleInterrupts({ ignore: ['SIGINT'] });
sayRunOnStop(dirname(settingsFile));
try {
  // The run is the folder its settings file is in (a path saved in the file is never used to write).
  await train(resolveConfig(readConfigFile(settingsFile), { out: dirname(settingsFile) }), { resume: rest.includes('--resume') });
} catch (e) {
  const code = reportError(e);
  const said = userMessage(e);
  const failure: ChildFailure = said !== undefined ? { userError: said } : { bug: stackOf(e) };
  if (process.send) await new Promise((sent) => process.send!(failure, sent));
  process.exit(code);
}
