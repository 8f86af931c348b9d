// Command line (`npx cpp-workbench <command> --help`): a thin layer over the jobs of the library.
// Each command lives in commands/<name>.ts; options shared by several commands, and the one
// meaning each flag has, in options.ts. This file loads the command line's program (program.ts:
// yargs and the command list) alone: a command's module, and what it imports, load when that
// command runs (commands/command.ts), and jobs that need the policy engines import them when they
// run, so every command starts quickly.
import { reportError } from '../src/io/errors.ts';
import { redactCredentials, shellWords } from '../src/io/commandLine.ts';
import { commandFinished, handleInterrupts, interrupted, untilStopped } from '../src/io/interrupt.ts';

export const BIN = 'cpp-workbench';

const args = process.argv.slice(2);
// `cache validate <dir>` with no flag runs without yargs: loading yargs and its helpers and parsing
// took about 0.2 s of CPU, a tenth of the validation of the default cache. The handler is the one
// yargs runs (cli/validate.ts); any other command line, --help or a flag included, goes to yargs.
const run =
  args.length === 3 && args[0] === 'cache' && args[1] === 'validate' && args[2] !== '' && !args[2].startsWith('-')
    ? async () => (await import('./validate.ts')).validateCommand(args[2])
    : await (await import('./program.ts')).program(args, BIN);

// SIGINT and SIGTERM stop a command cleanly (src/io/interrupt.ts): it says what was saved and, by
// default, that the same command continues (a command that knows better says so: train --resume).
handleInterrupts({ again: () => `to continue: npx ${BIN} ${shellWords(redactCredentials(args))}` });
try {
  await run();
} catch (err) {
  if (interrupted()) await untilStopped(); // failed because it was stopped: the stop says what was saved, and exits
  // A user error (src/io/errors.ts) is its message alone (file, line, field; a flag; the holder of a
  // folder), exit 1; anything else is a bug: its stack and a line asking to report it, exit 70.
  process.exit(reportError(err));
}
if (interrupted()) await untilStopped();
await commandFinished();
