// The PyTorch reference (bench/torch_step.py) as one long-lived child process per thread count,
// so that its trials are timed warm, in the same process, interleaved with the engines'.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

export interface TorchReference {
  version: string;
  python: string;
  /** Where its steps run: `cpu`, or the CUDA device's name. */
  device: string;
  /** decisions/s of REINFORCE steps at `batch` for about `seconds`. */
  step(batch: number, seconds: number): Promise<number>;
  /** GFLOP/s of float32 size^3 matrix products for about `seconds`. */
  gemm(size: number, seconds: number): Promise<number>;
  close(): void;
}

/** Debian's python3-torch lives under the system Python, which a version manager may shadow. */
const PYTHONS = ['/usr/bin/python3', 'python3'];

async function start(python: string, threads: number, dim: number, hidden: number, device: TorchDevice): Promise<TorchReference> {
  const child = spawn(python, ['bench/torch_step.py', String(threads), String(dim), String(hidden), device], { stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const failed = new Promise<never>((_, reject) => {
    child.on('error', reject);
    child.on('exit', (code) => reject(new Error(`${python} bench/torch_step.py exited (${code}): ${stderr.trim().split('\n').at(-1) ?? ''}`)));
  });
  failed.catch(() => {}); // only the awaited reads report it
  const read = async () => {
    const next = await Promise.race([lines.next(), failed]);
    if (next.done) throw new Error(`${python} bench/torch_step.py closed its output: ${stderr.trim().split('\n').at(-1) ?? ''}`);
    return JSON.parse(next.value) as Record<string, unknown>;
  };
  const ask = async (request: object) => {
    child.stdin.write(JSON.stringify(request) + '\n');
    return (await read()).rate as number;
  };
  const first = await read();
  return {
    version: String(first.torch),
    python,
    device: String(first.device),
    step: (batch, seconds) => ask({ run: 'step', batch, seconds }),
    gemm: (size, seconds) => ask({ run: 'gemm', size, seconds }),
    close: () => child.stdin.end(),
  };
}

export type TorchDevice = 'cpu' | 'cuda';

/** The reference at `threads` on `device`, or why it is not available (PyTorch not installed, or without CUDA). */
export async function torchReference(
  threads: number,
  dim: number,
  hidden: number,
  pythons = PYTHONS,
  device: TorchDevice = 'cpu',
): Promise<TorchReference | { missing: string }> {
  const reasons: string[] = [];
  for (const python of pythons)
    try {
      return await start(python, threads, dim, hidden, device);
    } catch (e) {
      reasons.push((e as Error).message);
    }
  return { missing: reasons.join('; ') };
}
