// One command-line flag per training setting, built from the TrainConfig schema so flags, defaults
// and --help never drift from the settings themselves.
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

function option(schema: z.ZodType): Options | undefined {
  const s = inner(schema) as z.ZodType & { def: { type: string; entries?: Record<string, string>; element?: z.ZodType } };
  const fallback = schema.safeParse(undefined);
  const describe = `${schema.description ?? ''}${fallback.success && fallback.data !== undefined ? ` [default: ${JSON.stringify(fallback.data)}]` : ''}`;
  switch (s.def.type) {
    case 'number':
      return { type: 'number', describe };
    case 'boolean':
      return { type: 'boolean', describe };
    case 'string':
      return { type: 'string', describe };
    case 'enum':
      return { choices: Object.values(s.def.entries!), describe };
    case 'array':
      return { type: 'string', describe: `${describe} (comma-separated)`, coerce: (v: string) => v.split(',').map((x) => x.trim()) };
    default:
      return undefined; // nested settings (the reward table) come from the config file
  }
}

export function trainFlags<T>(y: Argv<T>): Argv<T> {
  for (const [key, schema] of Object.entries(TrainConfig.shape)) {
    const o = option(schema as z.ZodType);
    if (o) y = y.option(kebab(key), { ...o, group: 'Settings (override the config file):' });
  }
  return y;
}

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
