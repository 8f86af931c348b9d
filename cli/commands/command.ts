// A command's module (one file per command in this folder) holds its flags and its handler; its
// name and description are in the command list (index.ts), so that `--help` lists every command
// without loading any module, and a command loads its own module alone, when yargs selects it.
import type { ArgumentsCamelCase, Argv } from 'yargs';

/** What a command's module exports: its flags (`builder`) and what it does with them (`handler`). */
export interface Command<U = unknown> {
  builder: (y: Argv) => Argv<U>;
  handler?: (a: ArgumentsCamelCase<U>) => void | Promise<void>;
}

/** A command's module, its handler typed by its flags. */
export const command = <U>(builder: (y: Argv) => Argv<U>, handler?: (a: ArgumentsCamelCase<U>) => void | Promise<void>): Command<U> => ({
  builder,
  handler,
});

export interface CommandEntry {
  /** Its name and positionals, as yargs reads them (`export <checkpoint>`). */
  command: string;
  /** One line of `--help`. */
  describe: string;
  /**
   * Its module's command (a named export: tsc, 5.9, leaves `.ts` in the dynamic imports of an
   * `export default` expression, which dist/ could not load).
   */
  // biome-ignore lint/suspicious/noExplicitAny: each module's flags have their own type
  load: () => Promise<Command<any>>;
}

/** Add every command of `entries` to `y`: yargs runs a command's builder, which loads its module, before its handler. */
export function addCommands<T>(y: Argv<T>, entries: CommandEntry[]): Argv<T> {
  return entries.reduce((y, entry) => {
    let loaded: Command | undefined;
    return y.command(
      entry.command,
      entry.describe,
      async (y) => {
        loaded = (await entry.load()) as Command;
        return loaded.builder(y);
      },
      (a) => loaded?.handler?.(a),
    );
  }, y);
}
