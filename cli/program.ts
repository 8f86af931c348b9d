// The command line through yargs: every command line but the one index.ts runs without it. The
// command table names each command; the named command's module loads alone (commands/command.ts).
import yargs from 'yargs';
import { addCommands } from './commands/command.ts';
import { commands } from './commands/index.ts';
import { SettingsError } from '../src/io/errors.ts';
import { commandTable, namedCommand, unknownCommand, unknownFlags } from './usage.ts';

/**
 * A flag given twice (`--epochs 12 --epochs 40`): yargs would make an array of it, refused later
 * as "expected number"; this names the flag. Flags declared repeatable (`array`) may repeat.
 */
const refuseRepeated =
  (args: string[]) =>
  (_argv: unknown, y: { getOptions(): { array: string[] } }): void => {
    const end = args.indexOf('--');
    const seen = new Set<string>();
    for (const a of end < 0 ? args : args.slice(0, end)) {
      const m = /^--(?:no-)?([^=]+)/.exec(a);
      if (!m) continue;
      const name = m[1];
      if (seen.has(name) && !y.getOptions().array.some((o) => o === name || o === camel(name))) throw new SettingsError(`--${name} given twice: give it once`);
      seen.add(name);
    }
  };

/**
 * A number flag given an empty or blank value (`--behavior-rows ""`): yargs reads it as 0, which a
 * setting may accept, so the run would go on with a value nobody gave; this names the flag.
 */
const refuseEmptyNumbers =
  (args: string[]) =>
  (_argv: unknown, y: { getOptions(): { number: string[] } }): void => {
    const end = args.indexOf('--');
    const numbers = y.getOptions().number;
    (end < 0 ? args : args.slice(0, end)).forEach((a, i) => {
      const m = /^--([^=]+)(?:=(.*))?$/.exec(a);
      if (!m) return;
      const value = m[2] ?? args[i + 1];
      if (value !== undefined && value.trim() === '' && numbers.some((o) => o === m[1] || o === camel(m[1])))
        throw new SettingsError(`--${m[1]}: expected a number, found an empty value`);
    });
  };

const camel = (s: string) => s.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());

/**
 * The command line `args` (`bin`: the program's name in messages) parsed and run by yargs, as a
 * function to call; a usage mistake found before (an unknown command) is said first, exit 2.
 */
export async function program(args: string[], bin: string): Promise<() => Promise<unknown>> {
  // The command table of usage.ts: every command's name, and the builder of the one this line names.
  const table = await commandTable(commands, namedCommand(args));

  const cli = addCommands(yargs(args), commands)
    .scriptName(bin)
    .usage('$0 <command> [options]\n\nWorkbench for learned communication pruning in multi-agent debate (CPP), replayed offline from cached responses.')
    .middleware(refuseRepeated(args) as never, true)
    .middleware(refuseEmptyNumbers(args) as never, true)
    // given.ts loads with the command that runs, not for --help.
    .middleware(async (argv: object, ...rest: unknown[]) => (await import('./given.ts')).rememberDefaults(argv, ...rest))
    .demandCommand(1, 'name a command')
    .strict()
    .help()
    .wrap(Math.min(120, process.stdout.columns || 120))
    .fail((msg, err) => {
      if (err) throw err; // thrown by a command, a middleware or a flag's check: reported by index.ts
      // A usage mistake: one line saying what was wrong and where to look, not the whole help.
      const command = args.find((x) => !x.startsWith('-'));
      console.error(`${bin}: ${unknownFlags(msg, args, table) ?? msg}\nRun '${bin} ${command ? `${command} ` : ''}--help' for usage.`);
      process.exit(2);
    });

  // An unknown command is named as one, with the nearest command, before yargs would read it as a flag
  // or print the top-level help for `trian --help` (exit 0).
  const mistake = unknownCommand(args, table, bin);
  if (mistake) {
    console.error(`${bin}: ${mistake}`);
    process.exit(2);
  }
  return async () => {
    try {
      return await cli.parseAsync();
    } catch (err) {
      // A flag's check (its coerce) that threw: yargs throws its message again as a YError, which has
      // lost the type; it is a value the check refused, as a SettingsError says.
      throw err instanceof Error && err.name === 'YError' ? new SettingsError(err.message) : err;
    }
  };
}
