#!/usr/bin/env node
// `npx cpp-workbench <command>`: runs the compiled command line, dist/cli/index.js, on plain Node.
// `npm run build` makes dist/ (`npm start` and `npm test` build first). In a checkout whose dist/ is
// missing or older than its sources, the sources run instead, through tsx, and a line says so: a
// command never runs code older than the checkout holds (docs/cli.md). An installed package holds
// no sources: it runs its dist/.
import { existsSync, readdirSync, statSync } from 'node:fs';

const root = new URL('../', import.meta.url);
const at = (path) => new URL(path, root);

/** Why dist/ cannot run in this checkout (missing, or older than a source), or null when it can. */
function staleness() {
  if (!existsSync(at('tsconfig.build.json'))) return null; // an installed package: no sources to compare
  const stamp = at('dist/tsconfig.build.tsbuildinfo'); // rewritten by every build, after its files
  if (!existsSync(stamp)) return 'dist/ is not built';
  const built = statSync(stamp).mtimeMs;
  const sources = ['tsconfig.json', 'tsconfig.build.json'];
  for (const dir of ['src', 'train', 'eval', 'jobs', 'cli'])
    for (const file of readdirSync(at(dir), { recursive: true })) if (/\.(ts|mjs)$/.test(file)) sources.push(`${dir}/${file}`);
  const newer = sources.find((file) => statSync(at(file)).mtimeMs > built);
  return newer ? `dist/ is older than ${newer}` : null;
}

const stale = staleness();
if (stale === null) await import('../dist/cli/index.js');
else {
  console.error(`cpp-workbench: ${stale}: running the TypeScript sources through tsx (a slower start); \`npm run build\` updates dist/`);
  const { register } = await import('tsx/esm/api');
  register();
  await import('../cli/index.ts');
}
