// The test command provides a WebGPU adapter on a fresh machine (tests/setup/vulkan.ts): its
// decisions, against a stand-in runner that records the commands and answers as a machine would.
import { mkdtempSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { majorOf, provideVulkan, type Runner, type VulkanOptions } from './vulkan.ts';

/** A machine: the Mesa installed (or none), the base suite's candidate, what apt-get does. */
function machine(o: { installed?: string; removed?: boolean; candidate: string; aptFails?: boolean }) {
  const calls: string[] = [];
  const run: Runner = (command, args) => {
    calls.push([command, ...args].join(' '));
    if (command === 'dpkg-query')
      return o.installed
        ? {
            status: 0,
            stdout: `Package: mesa-vulkan-drivers\nStatus: ${o.removed ? 'deinstall ok config-files' : 'install ok installed'}\nVersion: ${o.installed}\n`,
          }
        : { status: 1, stdout: 'dpkg-query: package is not installed' };
    if (command === 'apt-cache') return { status: 0, stdout: `mesa-vulkan-drivers:\n  Installed: (none)\n  Candidate: ${o.candidate}\n` };
    return o.aptFails ? { status: 100, stdout: 'E: Unable to locate package' } : { status: 0, stdout: '' };
  };
  const sourcesDir = mkdtempSync(join(tmpdir(), 'cpp-apt-'));
  writeFileSync(join(sourcesDir, 'debian.sources'), 'Types: deb\n# a comment\nURIs: http://mirror.example/debian\nSuites: bookworm\n');
  const lines: string[] = [];
  const options: VulkanOptions = {
    run,
    hasAdapter: () => false,
    codename: 'bookworm',
    sourcesDir,
    root: true,
    path: '/usr/bin:/bin',
    log: (l) => lines.push(l),
  };
  return { calls, lines, sourcesDir, options };
}

describe('npm test provides a WebGPU adapter', () => {
  it('leaves a machine that has an adapter as it is', () => {
    const m = machine({ candidate: '22.3.6-1+deb12u1' });
    expect(provideVulkan({ ...m.options, hasAdapter: () => true })).toBe('present');
    expect([m.calls, m.lines]).toEqual([[], []]);
  });

  it("installs Mesa from bookworm-backports where the base suite's is older than 24, adding the suite from the machine's mirror", () => {
    const m = machine({ candidate: '22.3.6-1+deb12u1' });
    expect(provideVulkan(m.options)).toBe('installed');
    expect(m.calls).toEqual([
      'dpkg-query -s mesa-vulkan-drivers',
      'apt-get update',
      'apt-cache policy mesa-vulkan-drivers',
      'apt-get update',
      'apt-get install -y --no-install-recommends -t bookworm-backports mesa-vulkan-drivers',
    ]);
    expect(readFileSync(join(m.sourcesDir, 'bookworm-backports.sources'), 'utf8')).toContain(
      'URIs: http://mirror.example/debian\nSuites: bookworm-backports\n',
    );
    expect(m.lines).toEqual([
      "npm test: no WebGPU adapter (the GPU engine's tests need one): installing Mesa's Vulkan drivers, a software adapter " +
        "(apt-get install -y -t bookworm-backports mesa-vulkan-drivers: bookworm's own Mesa 22.3.6-1+deb12u1 is older than 24)",
    ]);
  });

  it('installs from the base suite where its Mesa is 24 or later (no backports source)', () => {
    const m = machine({ candidate: '25.0.7-2' });
    expect(provideVulkan({ ...m.options, codename: 'trixie' })).toBe('installed');
    expect(m.calls.at(-1)).toBe('apt-get install -y --no-install-recommends mesa-vulkan-drivers');
    expect(existsSync(join(m.sourcesDir, 'trixie-backports.sources'))).toBe(false);
  });

  it('installs nothing where Mesa >= 24 is there already, and says so', () => {
    const m = machine({ installed: '25.0.7-2~bpo12+1', candidate: '22.3.6' });
    expect(provideVulkan(m.options)).toBe('cannot');
    expect(m.calls).toEqual(['dpkg-query -s mesa-vulkan-drivers']);
    expect(m.lines[0]).toMatch(/Mesa 25\.0\.7-2~bpo12\+1's Vulkan drivers are installed but give no WebGPU adapter/);
  });

  it('installs where Mesa >= 24 was removed (its record left behind)', () => {
    const m = machine({ installed: '25.0.7-2~bpo12+1', removed: true, candidate: '22.3.6' });
    expect(provideVulkan(m.options)).toBe('installed');
    expect(m.calls.at(-1)).toBe('apt-get install -y --no-install-recommends -t bookworm-backports mesa-vulkan-drivers');
  });

  it('says why in one line where it cannot install (not root, not Debian, apt-get fails)', () => {
    const notRoot = machine({ candidate: '22.3.6' });
    expect(provideVulkan({ ...notRoot.options, root: false })).toBe('cannot');
    expect(notRoot.lines).toEqual([
      "npm test: no WebGPU adapter (the GPU engine's tests need one) and not root: install a Vulkan driver with WebGPU support " +
        "(Mesa >= 24's mesa-vulkan-drivers, or your GPU's) yourself",
    ]);
    const other = machine({ candidate: '22.3.6' });
    expect(provideVulkan({ ...other.options, codename: '' })).toBe('cannot');
    expect(other.lines[0]).toContain('and not Debian');
    const failing = machine({ candidate: '22.3.6', aptFails: true });
    expect(provideVulkan(failing.options)).toBe('cannot');
    expect(failing.lines).toEqual(['npm test: apt-get update failed: E: Unable to locate package']);
  });

  it('reads Debian versions', () => {
    expect([majorOf('25.0.7-2~bpo12+1'), majorOf('22.3.6-1+deb12u1'), majorOf('1:24.1.0-1'), majorOf('')]).toEqual([25, 22, 24, 0]);
  });
});
