// Vitest global setup (vitest.config.ts): the GPU engine's tests (tests/policy/webgpuEngine.test.ts)
// need a WebGPU adapter. A machine that has one (a GPU with its Vulkan driver, or Mesa >= 24) is
// left as it is; on a fresh Debian machine `npm test` installs Mesa's Vulkan drivers, whose lavapipe
// is a software adapter that runs the GPU engine on the CPU, from the backports suite where the base
// suite's Mesa is older than 24 (Debian bookworm's 22.3 gives no WebGPU adapter), with one line saying so.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { onPath } from './redis.ts';

/** What the setup runs: a command's exit status and output (tests inject stand-ins). */
export type Runner = (command: string, args: string[]) => { status: number | null; stdout: string };

const realRunner: Runner = (command, args) => {
  const r = spawnSync(command, args, { encoding: 'utf8', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
  return { status: r.error ? null : r.status, stdout: `${r.stdout ?? ''}${r.stderr ?? ''}` };
};

/** Whether this machine gives a WebGPU adapter: asked in a fresh process, so that a driver installed since is seen. */
const probeAdapter = (run: Runner) =>
  run(process.execPath, [
    '--import',
    'tsx',
    '--input-type=module',
    '-e',
    "import { webgpuAdapter } from './src/policy/webgpu.ts'; webgpuAdapter().then(() => process.exit(0), () => process.exit(3));",
  ]).status === 0;

/** The major version of a Debian version string (`25.0.7-2~bpo12+1` -> 25), or 0. */
export const majorOf = (version: string) => Number(version.match(/^(?:\d+:)?(\d+)\./)?.[1] ?? 0);

export interface VulkanOptions {
  run?: Runner;
  /** Whether a WebGPU adapter is there (default: asked of Dawn in a fresh process). */
  hasAdapter?: () => boolean;
  /** The Debian codename (default: /etc/os-release's VERSION_CODENAME), or undefined off Debian. */
  codename?: string;
  /** Where the base suite's source is read and a backports source written (default: /etc/apt/sources.list.d). */
  sourcesDir?: string;
  root?: boolean;
  path?: string;
  log?: (line: string) => void;
}

const MINIMUM_MESA = 24;

/** Installs Mesa's Vulkan drivers where no WebGPU adapter is there; returns what it did, in a word. */
export function provideVulkan(o: VulkanOptions = {}): 'present' | 'installed' | 'cannot' {
  const run = o.run ?? realRunner;
  const log = o.log ?? ((line: string) => console.error(line));
  if ((o.hasAdapter ?? (() => probeAdapter(run)))()) return 'present';
  const codename = o.codename ?? debianCodename();
  // A removed package's record stays (status "deinstall ok config-files"): only an installed one counts.
  const query = run('dpkg-query', ['-s', 'mesa-vulkan-drivers']);
  const isInstalled = query.status === 0 && /^Status: .* installed$/m.test(query.stdout);
  const installed = isInstalled ? (query.stdout.match(/^Version: (\S+)$/m)?.[1] ?? '') : '';
  if (majorOf(installed) >= MINIMUM_MESA) {
    log(`npm test: Mesa ${installed}'s Vulkan drivers are installed but give no WebGPU adapter: the GPU engine's tests will say why`);
    return 'cannot';
  }
  const root = o.root ?? process.getuid?.() === 0;
  if (!codename || !root || !onPath('apt-get', o.path ?? process.env.PATH)) {
    log(
      `npm test: no WebGPU adapter (the GPU engine's tests need one) and ${!codename ? 'not Debian' : !root ? 'not root' : 'no apt-get'}: ` +
        `install a Vulkan driver with WebGPU support (Mesa >= ${MINIMUM_MESA}'s mesa-vulkan-drivers, or your GPU's) yourself`,
    );
    return 'cannot';
  }
  const apt = (...args: string[]) => {
    const r = run('apt-get', args);
    if (r.status !== 0) log(`npm test: apt-get ${args.join(' ')} failed: ${r.stdout.trim().split('\n').slice(-3).join(' | ')}`);
    return r.status === 0;
  };
  if (!apt('update')) return 'cannot';
  const candidate = run('apt-cache', ['policy', 'mesa-vulkan-drivers']).stdout.match(/Candidate:\s*(\S+)/)?.[1] ?? '';
  const suite = majorOf(candidate) >= MINIMUM_MESA ? undefined : `${codename}-backports`;
  log(
    `npm test: no WebGPU adapter (the GPU engine's tests need one): installing Mesa's Vulkan drivers, a software adapter ` +
      `(apt-get install -y${suite ? ` -t ${suite}` : ''} mesa-vulkan-drivers${suite ? `: ${codename}'s own Mesa ${candidate} is older than ${MINIMUM_MESA}` : ''})`,
  );
  if (suite) {
    const dir = o.sourcesDir ?? '/etc/apt/sources.list.d';
    const file = join(dir, `${suite}.sources`);
    if (!existsSync(file)) {
      // The backports suite of the mirror the machine already uses.
      const base = join(dir, 'debian.sources');
      const uri = existsSync(base) ? readFileSync(base, 'utf8').match(/^URIs:\s*(\S+)/m)?.[1] : undefined;
      if (!uri) {
        log(`npm test: no WebGPU adapter, and no Debian mirror named in ${base} to add ${suite} from: install Mesa >= ${MINIMUM_MESA} yourself`);
        return 'cannot';
      }
      writeFileSync(file, `Types: deb\nURIs: ${uri}\nSuites: ${suite}\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n`);
      if (!apt('update')) return 'cannot';
    }
  }
  return apt('install', '-y', '--no-install-recommends', ...(suite ? ['-t', suite] : []), 'mesa-vulkan-drivers') ? 'installed' : 'cannot';
}

function debianCodename(): string | undefined {
  if (!existsSync('/etc/os-release')) return undefined;
  const release = readFileSync('/etc/os-release', 'utf8');
  return /^ID=debian$/m.test(release) ? release.match(/^VERSION_CODENAME=(\S+)$/m)?.[1] : undefined;
}

export default function setup(): void {
  provideVulkan();
}
