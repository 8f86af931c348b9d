// The test command provides what the queue tests need on a fresh machine (tests/setup/redis.ts):
// run against a PATH of stand-ins, where apt-get only records what it was asked and "installs"
// stand-in executables.
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { onPath, provideTools } from './redis.ts';

const chmod = spawnSync('sh', ['-c', 'command -v chmod'], { encoding: 'utf8' }).stdout.trim();

/**
 * A folder of stand-ins: apt-get (writes redis-server and openssl on install, unless told to fail),
 * sudo (runs what follows -n), and the tools already there.
 */
function fakeBin(o: { aptGet?: 'works' | 'fails'; sudo?: boolean; present?: string[] } = {}): string {
  const bin = mkdtempSync(join(tmpdir(), 'cpp-fakebin-'));
  const script = (name: string, body: string) => {
    writeFileSync(join(bin, name), `#!/bin/sh\n${body}\n`);
    chmodSync(join(bin, name), 0o755);
  };
  for (const tool of o.present ?? []) script(tool, 'exit 0');
  if (o.aptGet)
    script(
      'apt-get',
      [
        `echo "$DEBIAN_FRONTEND apt-get $*" >> "${bin}/calls"`,
        o.aptGet === 'fails' ? 'echo "E: Unable to locate package" >&2; exit 100' : '',
        `if [ "$1" = install ]; then for t in redis-server openssl; do echo 'exit 0' > "${bin}/$t"; ${chmod} +x "${bin}/$t"; done; fi`,
      ].join('\n'),
    );
  if (o.sudo) script('sudo', `echo "sudo $*" >> "${bin}/calls"\n[ "$1" = -n ] && shift\nexec "$@"`);
  return bin;
}
const calls = (bin: string) => readFileSync(join(bin, 'calls'), 'utf8').trim().split('\n');

describe('npm test provides redis-server and openssl', () => {
  it('does nothing where both are on PATH', () => {
    const bin = fakeBin({ present: ['redis-server', 'openssl'], aptGet: 'works' });
    const lines: string[] = [];
    expect(provideTools({ env: { PATH: bin }, root: true, log: (l) => lines.push(l) })).toEqual([]);
    expect(lines).toEqual([]);
  });

  it('installs the missing ones with apt-get as root, saying so in one line', () => {
    const bin = fakeBin({ present: ['openssl'], aptGet: 'works' });
    const lines: string[] = [];
    expect(onPath('redis-server', bin)).toBe(false);
    expect(provideTools({ env: { PATH: bin }, root: true, log: (l) => lines.push(l) })).toEqual(['redis-server']);
    expect(lines).toEqual(["npm test: redis-server (the queue tests need it) not found: installing Debian's package (apt-get install -y redis-server)"]);
    expect(calls(bin)).toEqual(['noninteractive apt-get update', 'noninteractive apt-get install -y --no-install-recommends redis-server']);
    expect(onPath('redis-server', bin)).toBe(true);
  });

  it('goes through sudo when not root', () => {
    const bin = fakeBin({ aptGet: 'works', sudo: true });
    const lines: string[] = [];
    expect(provideTools({ env: { PATH: bin }, root: false, log: (l) => lines.push(l) })).toEqual(['redis-server', 'openssl']);
    expect(lines).toEqual([
      'npm test: redis-server and openssl (the queue tests need them) not found: ' +
        "installing Debian's packages (sudo -n apt-get install -y redis-server openssl)",
    ]);
    expect(calls(bin)).toEqual([
      'sudo -n apt-get update',
      'noninteractive apt-get update',
      'sudo -n apt-get install -y --no-install-recommends redis-server openssl',
      'noninteractive apt-get install -y --no-install-recommends redis-server openssl',
    ]);
    expect(onPath('redis-server', bin) && onPath('openssl', bin)).toBe(true);
  });

  it('says why in one line, and goes on, where it cannot install', () => {
    const say = (bin: string, root: boolean) => {
      const lines: string[] = [];
      expect(provideTools({ env: { PATH: bin }, root, log: (l) => lines.push(l) })).toEqual([]);
      return lines;
    };
    expect(say(fakeBin({ present: ['openssl'] }), true)).toEqual([
      'npm test: redis-server (the queue tests need it) not found, and no apt-get: install it yourself',
    ]);
    expect(say(fakeBin({ present: ['openssl'], aptGet: 'works' }), false)).toEqual([
      'npm test: redis-server (the queue tests need it) not found, and no sudo to run apt-get with: install it yourself',
    ]);
    const failing = say(fakeBin({ present: ['openssl'], aptGet: 'fails' }), true);
    expect(failing).toHaveLength(2);
    expect(failing[1]).toMatch(/^npm test: apt-get update failed \(exit 100\): E: Unable to locate package$/);
  });
});
