// Disk-full trials: a command runs in a workspace on a small tmpfs that fills up
// part way through what it writes. It must exit 1 with a line naming the path and the cause
// (ENOSPC), no stack trace, no temporary file left, every file it left parseable and nothing outside
// what it writes changed; given room again (the tmpfs made larger, as a user clears space), the
// command that continues (as after a kill) must give the uninterrupted run's files. Mounting needs
// root (CAP_SYS_ADMIN): elsewhere the trials are skipped, with the reason.
import { execFileSync } from 'node:child_process';
import { existsSync, rmSync, statfsSync } from 'node:fs';
import { join } from 'node:path';
import seedrandom from 'seedrandom';
import { cli, copyTree, freshDir, STACK_TRACE, tail, type CliRun } from './harness.ts';
import { changes, leftoverTemp, snapshot, unparseable } from './tree.ts';
import { differing, output, slug, uninterrupted, type KillCommand } from './kill.ts';

/** Room for the inputs and any whole run: what a trial's tmpfs starts with, and gets back for the rerun. */
const ROOMY = '256m';
const PAGE = 4096;

export interface DiskTrial {
  command: string;
  trial: number;
  /** The room left for what the command writes, as a share of what its uninterrupted run took. */
  share: number;
  code: number | null;
  said: string;
  /** A line names the path and says ENOSPC (or EROFS, EACCES). */
  named: boolean;
  stackTrace: boolean;
  leftoverTemp: string[];
  unparseable: string[];
  outside: string[];
  /** The rerun with room again finished, and its files equal the uninterrupted run's. */
  finished: boolean;
  identical: boolean;
  differing: string[];
}

const mount = (args: string[]) => execFileSync('mount', args, { stdio: ['ignore', 'pipe', 'pipe'] });
const used = (dir: string) => {
  const s = statfsSync(dir);
  return (s.blocks - s.bfree) * s.bsize;
};

/** Why disk-full trials cannot run here (not root, or mount refused), or null. */
export function diskTrialsUnavailable(): string | null {
  if (process.getuid?.() !== 0) return `not root (uid ${process.getuid?.()}): mounting a tmpfs is not permitted`;
  const dir = freshDir('disk', 'probe');
  try {
    mount(['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', dir]);
    mount(['-o', 'remount,size=2m', dir]); // the trials shrink a tmpfs after copying the inputs in
    execFileSync('umount', [dir]);
    return null;
  } catch (e) {
    return `mount -t tmpfs refused: ${(e as Error).message.split('\n')[0]}`;
  }
}

/** Run `args` in `ws`, a fresh tmpfs holding `inputs` with `room` bytes free beyond them; `during` runs before it is unmounted. */
async function onTmpfs<T>(ws: string, inputs: string, room: number | undefined, during: (ws: string) => Promise<T>): Promise<{ result: T; growth: number }> {
  mount(['-t', 'tmpfs', '-o', `size=${ROOMY}`, 'tmpfs', ws]);
  try {
    copyTree(inputs, join(ws, 'w'));
    const base = used(ws);
    if (room !== undefined) mount(['-o', `remount,size=${Math.ceil((base + room) / PAGE) * PAGE}`, ws]);
    const result = await during(join(ws, 'w'));
    return { result, growth: used(ws) - base };
  } finally {
    execFileSync('umount', [ws]);
  }
}

/** `trials` disk-full trials of `command`, the room drawn (seeded) uniformly between 5% and 95% of what its uninterrupted run writes. */
export async function diskTrials(command: KillCommand, inputs: string, trials: number, seed: string, onTrial: (t: DiskTrial) => void = () => {}) {
  // The probe of what a run writes is an uninterrupted run: its files are what every trial's rerun must give.
  const probe = freshDir('disk', slug(command.name), 'growth');
  const { result: ref, growth } = await onTmpfs(probe, inputs, undefined, async (ws) => {
    await uninterrupted(command, ws);
    return { output: output(ws, command.writes) };
  });
  rmSync(probe, { recursive: true, force: true });
  const random = seedrandom(`${seed}/${command.name}/disk`);
  const results: DiskTrial[] = [];
  for (let i = 0; i < trials; i++) {
    const share = 0.05 + 0.9 * random();
    const mountPoint = freshDir('disk', slug(command.name), `trial-${i}`);
    const { result } = await onTmpfs(mountPoint, inputs, share * growth, async (ws) => {
      const before = snapshot(ws, command.writes);
      const full = await cli(command.args, { cwd: ws });
      const left = { temp: leftoverTemp(ws), unparseable: command.writes.flatMap((w) => (existsSync(join(ws, w)) ? unparseable(join(ws, w)) : [])) };
      const outside = changes(before, snapshot(ws, command.writes));
      mount(['-o', `remount,size=${ROOMY}`, join(ws, '..')]);
      const runs: CliRun[] = [full];
      for (const args of full.code === 0 ? [] : command.rerun) {
        runs.push(await cli(args, { cwd: ws }));
        if (runs.at(-1)!.code === 0) break;
      }
      const differ = differing(ref.output, output(ws, command.writes));
      const finished = runs.at(-1)!.code === 0;
      const t: DiskTrial = {
        command: command.name,
        trial: i,
        share: Math.round(share * 100) / 100,
        code: full.code,
        said: tail(full.out, 2),
        named: /^.*\/.*: .*\((ENOSPC|EROFS|EACCES)\)/m.test(full.out),
        stackTrace: runs.some((r) => STACK_TRACE.test(r.out)),
        leftoverTemp: left.temp,
        unparseable: left.unparseable,
        outside,
        finished,
        identical: finished && differ.length === 0,
        differing: differ,
      };
      if (!diskPassed(t)) copyTree(ws, `${mountPoint}-failed`); // the tmpfs goes: keep what the trial left
      return t;
    });
    onTrial(result);
    results.push(result);
    rmSync(mountPoint, { recursive: true, force: true });
  }
  return { growth, trials: results };
}

/** Filled up: exit 1, the path and cause named, nothing broken or left; or it fitted (exit 0). Either way the rerun gives the uninterrupted run's files. */
export const diskPassed = (t: DiskTrial) =>
  (t.code === 0 || (t.code === 1 && t.named)) &&
  !t.stackTrace &&
  t.leftoverTemp.length === 0 &&
  t.unparseable.length === 0 &&
  t.outside.length === 0 &&
  t.identical;
