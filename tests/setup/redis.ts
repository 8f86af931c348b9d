// Vitest global setup (vitest.config.ts): the queue tests (tests/jobs/queue.test.ts) start their own
// redis-server, over TLS with certificates made by openssl. On a fresh machine without them, `npm
// test` installs Debian's packages itself (only then, with one line saying so), so that the README's
// test command passes with nothing installed by hand. An npm `pretest` script could not do it:
// `.npmrc` sets `ignore-scripts=true`, which skips pre and post scripts too.
import { spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

/** The commands the queue tests run, each with the Debian package that provides it. */
export const TOOLS = [
  { command: 'redis-server', pkg: 'redis-server' },
  { command: 'openssl', pkg: 'openssl' },
] as const;

/** Whether `command` is an executable file in a folder of `path` (as a shell would find it). */
export function onPath(command: string, path = process.env.PATH ?? ''): boolean {
  return path
    .split(delimiter)
    .filter(Boolean)
    .some((dir) => {
      try {
        accessSync(join(dir, command), constants.X_OK);
        return true;
      } catch {
        return false;
      }
    });
}

export interface ProvideOptions {
  env?: NodeJS.ProcessEnv;
  /** Whether this process may install packages itself (root); otherwise sudo is asked, without a prompt (`sudo -n`). */
  root?: boolean;
  log?: (line: string) => void;
}

/**
 * Install the Debian packages of the missing tools with apt-get (through sudo when not root).
 * Returns the packages installed; where they cannot be (no apt-get, no sudo, apt-get failed), says
 * why in one line and returns none: the queue tests then fail naming what is missing, and the
 * others run.
 */
export function provideTools(o: ProvideOptions = {}): string[] {
  const env = o.env ?? process.env;
  const log = o.log ?? ((line: string) => console.error(line));
  const missing = TOOLS.filter((t) => !onPath(t.command, env.PATH)).map((t) => t.pkg);
  if (missing.length === 0) return [];
  const root = o.root ?? process.getuid?.() === 0;
  const what = `${missing.join(' and ')} (the queue tests need ${missing.length === 1 ? 'it' : 'them'})`;
  const by = root ? [] : ['sudo', '-n'];
  if (!onPath('apt-get', env.PATH) || (!root && !onPath('sudo', env.PATH))) {
    log(
      `npm test: ${what} not found, and ${onPath('apt-get', env.PATH) ? 'no sudo to run apt-get with' : 'no apt-get'}: ` +
        `install ${missing.length === 1 ? 'it' : 'them'} yourself`,
    );
    return [];
  }
  log(`npm test: ${what} not found: installing Debian's package${missing.length === 1 ? '' : 's'} (${[...by, 'apt-get install -y', ...missing].join(' ')})`);
  const aptEnv = { ...env, DEBIAN_FRONTEND: 'noninteractive' };
  for (const args of [['update'], ['install', '-y', '--no-install-recommends', ...missing]]) {
    const [command, ...rest] = [...by, 'apt-get', ...args];
    const r = spawnSync(command, rest, { env: aptEnv, encoding: 'utf8' });
    if (r.error || r.status !== 0) {
      const out = `${r.stdout ?? ''}${r.stderr ?? ''}`.trim().split('\n').slice(-5).join('\n');
      log(`npm test: ${[command, ...rest].join(' ')} failed (${r.error?.message ?? `exit ${r.status}`}): ${out}`);
      return [];
    }
  }
  return missing;
}

export default function setup(): void {
  provideTools();
}
