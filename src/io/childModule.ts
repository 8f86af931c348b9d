// A child Node process that runs one of this package's modules, as the running code is: from dist/,
// the compiled JavaScript on plain Node; from the TypeScript sources (tsx, vitest), the source
// through tsx's loader, named by its absolute location (this package's own tsx: `--import tsx`
// would be resolved from the working folder, where a job run from outside the package finds none).
import { fileURLToPath } from 'node:url';

/** Node's arguments that run module `name` (a path relative to `from`, an import.meta.url, without its extension). */
export function moduleArgs(from: string, name: string): string[] {
  const fromSources = from.endsWith('.ts');
  const file = fileURLToPath(new URL(`${name}.${fromSources ? 'ts' : 'js'}`, from));
  return fromSources ? ['--import', import.meta.resolve('tsx'), file] : [file];
}
