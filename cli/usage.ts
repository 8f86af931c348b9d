// Usage mistakes said plainly: an unknown command is named as a command (with --help too, an error),
// an unknown flag once as typed, each with the nearest real name ("did you mean"). The names come
// from the command list itself (commands/index.ts), the named command's builder (its module loaded)
// applied to a fresh yargs instance with no handler run; tests/docs.test.ts checks the docs' command
// lines against the same table.
import yargs, { type Argv } from 'yargs';
import type { CommandEntry } from './commands/command.ts';

export interface CommandSpec {
  /** Flags, kebab-case, aliases and --help, --version included. */
  flags: Set<string>;
  booleans: Set<string>;
  subcommands: Map<string, CommandSpec>;
}

type Build = (y: Argv) => unknown;

const kebab = (s: string) => s.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

/** A command's flags: its builder applied to a fresh yargs instance (positionals are named in the command's name, not flags; subcommands recorded). */
export function specOf(builder: Build | undefined): CommandSpec {
  const y = yargs([]);
  const subcommands = new Map<string, CommandSpec>();
  const proxy: Argv = new Proxy(y, {
    get(target, property, receiver) {
      if (property === 'positional') return () => proxy;
      if (property === 'command')
        return (name: string, _describe: string, sub?: Build) => {
          subcommands.set(name.split(' ')[0], specOf(sub));
          return proxy;
        };
      const value = Reflect.get(target, property, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        const r = value.apply(target, args);
        return r === target ? proxy : r;
      };
    },
  });
  builder?.(proxy);
  const o = (y as unknown as { getOptions(): { key: Record<string, unknown>; alias: Record<string, string[]>; boolean: string[] } }).getOptions();
  const names = [...Object.keys(o.key), ...Object.values(o.alias).flat()];
  return {
    flags: new Set(['help', 'version', ...names.map(kebab)]),
    booleans: new Set(o.boolean.map(kebab)),
    subcommands,
  };
}

/**
 * The commands of `entries` (the list of commands/index.ts) by name, with the builders of those named
 * in `load` (their modules loaded, as running them would; the others left unloaded, so that a
 * command line pays only for the command it names).
 */
export async function commandTable(entries: readonly CommandEntry[], load: readonly string[]): Promise<Map<string, Build | undefined>> {
  const named = async (e: CommandEntry) => {
    const name = e.command.split(' ')[0];
    return [name, load.includes(name) ? ((await e.load()).builder as Build) : undefined] as const;
  };
  return new Map(await Promise.all(entries.map(named)));
}

/** Every command of `entries` with its flags and subcommands (each module loaded, each builder run on a fresh yargs instance). */
export async function commandSpecs(entries: readonly CommandEntry[]): Promise<Map<string, CommandSpec>> {
  const table = await commandTable(
    entries,
    entries.map((e) => e.command.split(' ')[0]),
  );
  return new Map([...table].map(([name, builder]) => [name, specOf(builder)]));
}

/** The command a command line names: its first word, unless that is a flag. */
export const namedCommand = (args: string[]): string[] => (args[0] === undefined || args[0].startsWith('-') ? [] : [args[0]]);

/** Edit distance counting a swap of two neighbours as one edit (optimal string alignment): "ephocs" is 2 from "epochs". */
export function editDistance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++)
    for (let j = 1; j <= b.length; j++) {
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[a.length][b.length];
}

/** The name of `names` nearest to `typed`, if it is near enough to be a typo (a third of its letters, 1 to 3 edits). */
export function nearest(typed: string, names: Iterable<string>): string | undefined {
  const limit = Math.max(1, Math.min(3, Math.floor(typed.length / 3)));
  let best: { name: string; distance: number } | undefined;
  for (const name of names) {
    const distance = editDistance(typed.toLowerCase(), name.toLowerCase());
    if (distance <= limit && (!best || distance < best.distance)) best = { name, distance };
  }
  return best?.name;
}

/** The words a command line names as its command (and a subcommand of one that has them): the leading words before any flag. */
function commandWords(args: string[]): string[] {
  const firstFlag = args.findIndex((a) => a.startsWith('-'));
  return (firstFlag < 0 ? args : args.slice(0, firstFlag)).slice(0, 2);
}

/** Commands under a name they no longer have, named as such where the old name is typed (no alias keeps it working silently). */
const RENAMED: Record<string, { name: string; why: string }> = {
  'cache export': { name: 'cache to-parquet', why: "a cache as a Parquet table; 'export' writes a policy" },
  'cache import-parquet': { name: 'cache from-parquet', why: "the pair of 'cache to-parquet'" },
};

/**
 * An unknown command or subcommand, said as one (was: "unknown flags --epochs, --trian", and the
 * top-level help with exit 0 for `trian --help`), or undefined when the command line names a real
 * one (or none: yargs asks for it).
 */
export function unknownCommand(args: string[], table: Map<string, Build | undefined>, bin: string): string | undefined {
  const [name, sub] = commandWords(args);
  if (name === undefined) return undefined;
  if (!table.has(name)) return `unknown command '${name}'${hint(nearest(name, table.keys()), (n) => `'${n}'`)}\nRun '${bin} --help' for the commands.`;
  if (sub === undefined) return undefined;
  const spec = specOf(table.get(name)); // only a command line of two words pays for running a builder
  if (spec.subcommands.size === 0 || spec.subcommands.has(sub)) return undefined;
  const now = RENAMED[`${name} ${sub}`];
  if (now) return `'${name} ${sub}' is now '${now.name}' (${now.why})\nRun '${bin} ${now.name} --help' for its flags.`;
  return (
    `unknown command '${name} ${sub}'${hint(nearest(sub, spec.subcommands.keys()), (n) => `'${name} ${n}'`)}\n` +
    `Run '${bin} ${name} --help' for its commands.`
  );
}

const hint = (name: string | undefined, say: (n: string) => string) => (name ? ` (did you mean ${say(name)}?)` : '');

/**
 * yargs's "Unknown arguments: ephocs, ..." as one line: each flag once, as typed (yargs names it
 * also camel-cased), with the nearest flag of the command it was given to.
 */
export function unknownFlags(msg: string, args: string[], table: Map<string, Build | undefined>): string | undefined {
  const m = /^Unknown arguments?: (.*)$/.exec(msg);
  if (!m) return undefined;
  const [name, sub] = commandWords(args);
  const command = name !== undefined && table.has(name) ? specOf(table.get(name)) : undefined;
  const spec = (sub !== undefined && command?.subcommands.get(sub)) || command;
  const flags = [...new Set(m[1].split(', ').map(kebab))].map((f) => {
    const near = spec && f.length > 1 ? nearest(f, spec.flags) : undefined;
    return `${f.length === 1 ? '-' : '--'}${f}${hint(near, (n) => `--${n}`)}`;
  });
  return `unknown flag${flags.length === 1 ? '' : 's'} ${flags.join(', ')}`;
}
