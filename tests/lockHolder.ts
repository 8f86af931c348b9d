// Another process holding a folder's lock (src/lock.ts), as a second writer meets it.
import { spawn, type ChildProcess } from 'node:child_process';

const LOCK = new URL('../src/lock.ts', import.meta.url).href;

/** Start a process that takes the lock of `dir` and holds it until killed; resolves once it holds it. */
export function lockHolder(dir: string): Promise<ChildProcess> {
  const code = `const { lockFolder } = await import(${JSON.stringify(LOCK)}); lockFolder(${JSON.stringify(dir)}, 'a test holder'); console.log('locked'); setInterval(() => {}, 1000);`;
  const child = spawn(process.execPath, ['--import', 'tsx', '-e', code], { stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((resolve, reject) => {
    let err = '';
    child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    child.stdout!.on('data', (d: Buffer) => d.toString().includes('locked') && resolve(child));
    child.on('exit', (code) => reject(new Error(`lock holder exited with ${code}: ${err}`)));
  });
}

/** Kill a holder as a crash would (SIGKILL: no exit handler runs) and wait until it is gone. */
export function killHolder(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.on('exit', () => resolve());
    child.kill('SIGKILL');
  });
}
