// A child Node process that runs one of this package's modules, as the running code is: from dist/,
// the compiled JavaScript on plain Node; from the TypeScript sources (tsx, vitest), the compiled
// copy when dist/ holds this checkout's code (built, and newer than every source: `npm test` builds
// first), else the source through tsx's loader, named by its absolute location (this package's own
// tsx: `--import tsx` would be resolved from the working folder, where a job run from outside the
// package finds none). tsx's loader costs a process about a second of CPU on a 2-core machine.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));
const at = (path: string) => `${root}${path}`;

/**
 * Whether dist/ holds a build newer than every source: bin/cpp-workbench.mjs's rule, which runs
 * before anything is built and so keeps its own copy of it.
 */
function distFresh(): boolean {
  const stamp = at('dist/tsconfig.build.tsbuildinfo'); // rewritten by every build, after its files
  if (!existsSync(stamp)) return false;
  const built = statSync(stamp).mtimeMs;
  const sources = ['tsconfig.json', 'tsconfig.build.json'];
  for (const dir of ['src', 'train', 'eval', 'jobs', 'cli'])
    for (const file of readdirSync(at(dir), { recursive: true, encoding: 'utf8' })) if (/\.(ts|mjs)$/.test(file)) sources.push(`${dir}/${file}`);
  return sources.every((file) => statSync(at(file)).mtimeMs <= built);
}

/** Node's arguments that run module `name` (a path relative to `from`, an import.meta.url, without its extension). */
export function moduleArgs(from: string, name: string): string[] {
  if (!from.endsWith('.ts')) return [fileURLToPath(new URL(`${name}.js`, from))];
  const source = fileURLToPath(new URL(`${name}.ts`, from));
  const compiled = at(`dist/${relative(root, source).replace(/\.ts$/, '.js')}`);
  return !relative(root, source).startsWith('..') && existsSync(compiled) && distFresh() ? [compiled] : sourceModuleArgs(from, name);
}

/** Node's arguments that run module `name`'s TypeScript source through tsx, whatever dist/ holds. */
export function sourceModuleArgs(from: string, name: string): string[] {
  return ['--import', import.meta.resolve('tsx'), fileURLToPath(new URL(`${name}.ts`, from))];
}
