// Which WebGPU adapter this machine gives the GPU engine (--engine webgpu), asked of Dawn (the
// `webgpu` package's dawn.node: the WebGPU implementation ONNX Runtime's WebGPU execution provider
// is built on) the way that provider asks: the high-performance adapter. A software adapter (a
// Vulkan driver that runs on the CPU, such as Mesa's lavapipe) is named as one and warned about;
// no adapter is an error that says which driver is missing, never a fall back to the CPU.
import { existsSync, mkdirSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SettingsError } from '../io/errors.ts';

export interface GpuAdapter {
  vendor: string;
  architecture: string;
  device: string;
  description: string;
  /** A CPU implementation of the graphics API (lavapipe, SwiftShader, WARP), not a GPU. */
  software: boolean;
}

/** Vulkan's loader (and so Dawn) finds no Mesa driver without XDG_RUNTIME_DIR: a private one is made where it is unset. */
export function ensureRuntimeDir(env: NodeJS.ProcessEnv = process.env): void {
  if (process.platform !== 'linux' || (env.XDG_RUNTIME_DIR && existsSync(env.XDG_RUNTIME_DIR))) return;
  const base = join(tmpdir(), 'cpp-workbench-runtime-');
  mkdirSync(tmpdir(), { recursive: true });
  env.XDG_RUNTIME_DIR = mkdtempSync(base); // mode 0700, as the variable requires
}

const SOFTWARE = /llvmpipe|lavapipe|swiftshader|software|basic render/i;

/** The adapter as the run's log and provenance name it. */
export const adapterName = (a: GpuAdapter) =>
  `${a.vendor} ${a.architecture} ${a.device}`.replace(/\s+/g, ' ').trim() + (a.software ? ' (a software adapter: the GPU engine runs on the CPU here)' : '');

/** The warning a software adapter gets (said once per run). */
export const softwareWarning = (a: GpuAdapter) =>
  `the WebGPU adapter here is software (${a.description || a.device}): a Vulkan driver that runs on the CPU, many times slower than --engine onnx; ` +
  'it checks the GPU engine, it does not speed it up (docs/training.md, "The GPU engine")';

/** Vulkan drivers installed where the Linux loader looks for them (named in the no-adapter error). */
function vulkanDrivers(): string[] {
  const dirs = ['/usr/share/vulkan/icd.d', '/etc/vulkan/icd.d', '/usr/local/share/vulkan/icd.d'];
  return dirs.flatMap((d) => (existsSync(d) ? readdirSync(d).filter((f) => f.endsWith('.json')) : []));
}

/** What to install for an adapter, per platform. */
export function noAdapterMessage(platform: NodeJS.Platform = process.platform, drivers: string[] = platform === 'linux' ? vulkanDrivers() : []): string {
  const head = 'engine webgpu: no WebGPU adapter here';
  if (platform === 'darwin') return `${head}: WebGPU uses Metal, which every Mac since 2012 has; is this a virtual machine without a GPU?`;
  if (platform === 'win32') return `${head}: WebGPU uses Direct3D 12: install your GPU's driver (or Windows' WARP software adapter, d3d10warp.dll)`;
  const only = process.env.VK_DRIVER_FILES ?? process.env.VK_ICD_FILENAMES;
  const found = only
    ? `VK_DRIVER_FILES or VK_ICD_FILENAMES restricts Vulkan's loader to ${only}`
    : drivers.length
      ? `Vulkan drivers found: ${drivers.join(', ')}, none gives an adapter`
      : 'no Vulkan driver is installed';
  return (
    `${head} (${found}). On Linux WebGPU runs on Vulkan: install your GPU's Vulkan driver (NVIDIA's driver with its Vulkan ICD; ` +
    'in a container NVIDIA_DRIVER_CAPABILITIES must include `graphics`; AMD and Intel: mesa-vulkan-drivers), or, for a software ' +
    "adapter that checks the engine on the CPU, Mesa >= 24's lavapipe (Debian bookworm: apt-get install -t bookworm-backports " +
    'mesa-vulkan-drivers; its own Mesa 22 gives no adapter). docs/training.md, "The GPU engine"'
  );
}

/**
 * ONNX Runtime session options of the WebGPU execution provider (onnx/worker.mjs, plain JavaScript,
 * spells the same out): no CPU provider to fall back to, so a node without a WebGPU kernel fails
 * the session's start instead of running on the CPU.
 */
export const WEBGPU_SESSION = { executionProviders: ['webgpu'], extra: { session: { disable_cpu_ep_fallback: '1' } } };

let probe: Promise<GpuAdapter> | undefined;
let warned = false;

/** The adapter, with a software adapter's warning on stderr (once per process). */
export async function webgpuAdapterWarned(): Promise<GpuAdapter> {
  const adapter = await webgpuAdapter();
  if (adapter.software && !warned) console.error(`warning: ${softwareWarning(adapter)}`);
  warned ||= adapter.software;
  return adapter;
}

/** This machine's WebGPU adapter (asked once per process), or a SettingsError saying what driver is missing. */
export function webgpuAdapter(): Promise<GpuAdapter> {
  probe ??= (async () => {
    ensureRuntimeDir();
    const { create } = await import('webgpu');
    const adapter = await create([]).requestAdapter({ powerPreference: 'high-performance' });
    if (!adapter) throw new SettingsError(noAdapterMessage());
    const { vendor, architecture, device, description } = adapter.info;
    const fallback = (adapter.info as { isFallbackAdapter?: boolean }).isFallbackAdapter === true;
    return { vendor, architecture, device, description, software: fallback || SOFTWARE.test(`${architecture} ${device} ${description}`) };
  })();
  return probe;
}
