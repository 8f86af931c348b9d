// Command-line flags built from the settings' schemas (type, range, default, description), so that
// flags, defaults and --help never drift from the settings themselves: one flag per training
// setting (TrainConfig), and the debate and compute flags of the replaying commands (options.ts).
import type { Argv, Options } from 'yargs';
import type { z } from 'zod';
import { TrainConfig } from '../train/config.ts';
import { kebab, parseSettings } from '../src/io/problems.ts';

export { kebab };

/** The schema under default/optional/nullable wrappers. */
function inner(schema: z.ZodType): z.ZodType {
  let s = schema as z.ZodType & { def: { type: string; innerType?: z.ZodType } };
  while (['default', 'optional', 'nullable'].includes(s.def.type)) s = s.def.innerType as typeof s;
  return s;
}

/**
 * The flag of one setting. `defaulted`: yargs fills in the setting's default (a command tells given
 * flags from defaulted ones with `given`); else a flag left out is undefined, and its description
 * says the default (`elsewhere`: what else may decide it, e.g. a config file).
 */
function option(schema: z.ZodType, defaulted: boolean, elsewhere?: string): Options | undefined {
  const s = inner(schema) as z.ZodType & { def: { type: string; entries?: Record<string, string>; element?: z.ZodType } };
  const fallback = schema.safeParse(undefined);
  const value = fallback.success ? fallback.data : undefined;
  const said = value !== undefined && (!defaulted || elsewhere) ? ` [default: ${JSON.stringify(value)}${elsewhere ? `, ${elsewhere}` : ''}]` : '';
  const describe = `${schema.description ?? ''}${said}`;
  const base = { describe, ...(defaulted && !elsewhere && value !== undefined && { default: value }) };
  switch (s.def.type) {
    case 'number':
      return { type: 'number', ...base };
    case 'boolean':
      return { type: 'boolean', ...base };
    case 'string':
      return { type: 'string', ...base };
    case 'enum':
      return { choices: Object.values(s.def.entries!), ...base };
    case 'array':
      return { type: 'string', ...base, describe: `${describe} (comma-separated)`, coerce: (v: string) => v.split(',').map((x) => x.trim()) };
    default:
      return undefined; // nested settings (the reward table) come from the config file
  }
}

/** Parsed flags of the settings `K` of `S`; those in `U`, which something else may decide, may be left out. */
export type SettingFlags<S extends Record<string, z.ZodType>, K extends keyof S, U extends K = never> = { [k in Exclude<K, U>]: z.output<S[k]> } & {
  [k in U]?: z.output<S[k]>;
};

/**
 * One flag per setting `keys` of the schema `shape`, in --help group `group` (default: Options). `defaulted`: yargs
 * fills in each default; `elsewhere`: settings whose flag has no default of its own, with what
 * decides them when it is left out.
 */
export function settingFlags<T, S extends Record<string, z.ZodType>, K extends keyof S & string, U extends K = never>(
  y: Argv<T>,
  shape: S,
  keys: readonly K[],
  o: { group?: string; defaulted: boolean; elsewhere?: Record<U, string> },
): Argv<T & SettingFlags<S, K, U>> {
  const elsewhere: Partial<Record<string, string>> = o.elsewhere ?? {};
  for (const key of keys) {
    const flag = option(shape[key], o.defaulted, elsewhere[key]);
    if (flag) y = y.option(kebab(key), { ...flag, ...(o.group && { group: o.group }) });
  }
  return y as Argv<T & SettingFlags<S, K, U>>;
}

export const trainFlags = <T>(y: Argv<T>): Argv<T> =>
  settingFlags(y, TrainConfig.shape, Object.keys(TrainConfig.shape) as (keyof TrainConfig)[], {
    group: 'Settings (override the config file):',
    defaulted: false,
  });

/** The settings given as flags (yargs camel-cases them), without anything left unset. */
export function flagSettings(argv: Record<string, unknown>): Partial<TrainConfig> {
  const given = Object.fromEntries(
    Object.keys(TrainConfig.shape)
      .filter((k) => argv[k] !== undefined)
      .map((k) => [k, argv[k]]),
  );
  // Each flag is checked by its setting's schema and named as the flag it is.
  parseSettings(TrainConfig.partial(), given, (path) => `--${kebab(path.split('.')[0])}`);
  return given as Partial<TrainConfig>;
}
