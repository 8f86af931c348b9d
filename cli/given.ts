// Which flags the user gave: yargs fills in defaults, and a command must tell a flag given from one
// defaulted to refuse flags it would not use (and to let a config file or a policy set the rest).
// A module of its own, light: the whole command line's middleware (index.ts) and the cache
// commands load it without options.ts, whose settings schemas took about 0.2 s of CPU to load.
import { SettingsError } from '../src/io/errors.ts';
import { kebab } from '../src/io/problems.ts';

const DEFAULTED = Symbol('flags left at their default');
type Parsed = Record<string | symbol, unknown>;

/**
 * Middleware of the whole command line (index.ts): remembers the flags that took their default.
 * yargs passes itself as the second argument (its types omit it); `parsed` is its documented
 * detailed parse, whose `defaulted` names the flags it filled in.
 */
export function rememberDefaults(argv: object, ...rest: unknown[]): void {
  const y = rest[0] as { parsed?: false | { defaulted?: Record<string, boolean> } } | undefined;
  (argv as Parsed)[DEFAULTED] = new Set(Object.keys((y?.parsed ? y.parsed.defaulted : undefined) ?? {}).map(kebab));
}

/** The user gave `flag` (kebab-case) on the command line. */
export function given(a: object, flag: string): boolean {
  const p = a as Parsed;
  const camel = flag.replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase());
  return p[camel] !== undefined && !(p[DEFAULTED] as Set<string> | undefined)?.has(flag);
}

/**
 * Refuse every flag the user gave that this invocation would not use (`rules`: flag, whether it
 * is unused, why): one error naming them all. Nothing a user sets is silently ignored.
 */
export function refuseUnused(a: object, rules: [flag: string, unused: boolean, why: string][]): void {
  const refused = rules.filter(([flag, unused]) => unused && given(a, flag)).map(([flag, , why]) => `--${flag} ${why}`);
  if (refused.length) throw new SettingsError(`${refused.join('; ')}: leave ${refused.length === 1 ? 'it' : 'them'} out`);
}
