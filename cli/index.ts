// Command line (`npx cpp-workbench <command> --help`): a thin layer over the jobs of the library.
// Each command lives in commands/<name>.ts; options shared by several commands, and the one
// meaning each flag has, in options.ts. This file loads yargs and the command list alone: a
// command's module, and what it imports, load when that command runs (commands/command.ts), and
// jobs that need the policy engines import them when they run, so every command starts quickly.
import yargs from 'yargs';
import { hideBin } from 'yargs/helpers';
import { addCommands } from './commands/command.ts';
import { commands } from './commands/index.ts';
import { reportError, SettingsError } from '../src/io/errors.ts';
import { redactCredentials, shellWords } from '../src/io/commandLine.ts';
import { commandFinished, handleInterrupts, interrupted, untilStopped } from '../src/io/interrupt.ts';
import { commandTable, namedCommand, unknownCommand, unknownFlags } from './usage.ts';

export const BIN = 'cpp-workbench';

/**
 * A flag given twice (`--epochs 12 --epochs 40`): yargs would make an array of it, refused later
 * as "expected number"; this names the flag. Flags declared repeatable (`array`) may repeat.
 */
function refuseRepeated(_argv: unknown, y: { getOptions(): { array: string[] } }): void {
  const args = hideBin(process.argv);
  const end = args.indexOf('--');
  const seen = new Set<string>();
  for (const a of end < 0 ? args : args.slice(0, end)) {
    const m = /^--(?:no-)?([^=]+)/.exec(a);
    if (!m) continue;
    const name = m[1];
    if (seen.has(name) && !y.getOptions().array.some((o) => o === name || o === camel(name))) throw new SettingsError(`--${name} given twice: give it once`);
    seen.add(name);
  }
}

/**
 * A number flag given an empty or blank value (`--behavior-rows ""`): yargs reads it as 0, which a
 * setting may accept, so the run would go on with a value nobody gave; this names the flag.
 */
function refuseEmptyNumbers(_argv: unknown, y: { getOptions(): { number: string[] } }): void {
  const args = hideBin(process.argv);
  const end = args.indexOf('--');
  const numbers = y.getOptions().number;
  (end < 0 ? args : args.slice(0, end)).forEach((a, i) => {
    const m = /^--([^=]+)(?:=(.*))?$/.exec(a);
    if (!m) return;
    const value = m[2] ?? args[i + 1];
    if (value !== undefined && value.trim() === '' && numbers.some((o) => o === m[1] || o === camel(m[1])))
      throw new SettingsError(`--${m[1]}: expected a number, found an empty value`);
  });
}

const camel = (s: string) => s.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());

// The command table of usage.ts: every command's name, and the builder of the one this line names.
const table = await commandTable(commands, namedCommand(hideBin(process.argv)));

const cli = addCommands(yargs(hideBin(process.argv)), commands)
  .scriptName(BIN)
  .usage('$0 <command> [options]\n\nWorkbench for learned communication pruning in multi-agent debate (CPP), replayed offline from cached responses.')
  .middleware(refuseRepeated as never, true)
  .middleware(refuseEmptyNumbers as never, true)
  // given.ts loads with the command that runs, not for --help.
  .middleware(async (argv: object, ...rest: unknown[]) => (await import('./given.ts')).rememberDefaults(argv, ...rest))
  .demandCommand(1, 'name a command')
  .strict()
  .help()
  .wrap(Math.min(120, process.stdout.columns || 120))
  .fail((msg, err) => {
    if (err) throw err; // thrown by a command, a middleware or a flag's check: reported below
    // A usage mistake: one line saying what was wrong and where to look, not the whole help.
    const command = hideBin(process.argv).find((x) => !x.startsWith('-'));
    console.error(`${BIN}: ${unknownFlags(msg, hideBin(process.argv), table) ?? msg}\nRun '${BIN} ${command ? `${command} ` : ''}--help' for usage.`);
    process.exit(2);
  });

// An unknown command is named as one, with the nearest command, before yargs would read it as a flag
// or print the top-level help for `trian --help` (exit 0).
const mistake = unknownCommand(hideBin(process.argv), table, BIN);
if (mistake) {
  console.error(`${BIN}: ${mistake}`);
  process.exit(2);
}

// SIGINT and SIGTERM stop a command cleanly (src/io/interrupt.ts): it says what was saved and, by
// default, that the same command continues (a command that knows better says so: train --resume).
handleInterrupts({ again: () => `to continue: npx ${BIN} ${shellWords(redactCredentials(hideBin(process.argv)))}` });
try {
  await cli.parseAsync();
} catch (err) {
  if (interrupted()) await untilStopped(); // failed because it was stopped: the stop says what was saved, and exits
  // A flag's check (its coerce) that threw: yargs throws its message again as a YError, which has
  // lost the type; it is a value the check refused, as a SettingsError says.
  const e = err instanceof Error && err.name === 'YError' ? new SettingsError(err.message) : err;
  // A user error (src/io/errors.ts) is its message alone (file, line, field; a flag; the holder of a
  // folder), exit 1; anything else is a bug: its stack and a line asking to report it, exit 70.
  process.exit(reportError(e));
}
if (interrupted()) await untilStopped();
await commandFinished();
