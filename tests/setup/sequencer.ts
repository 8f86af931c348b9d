// The order in which the suite's files start (vitest.config.ts). With several files at once the
// suite ends when its last file does, so the longest files start first: a file that takes two
// minutes started last would run alone at the end. Vitest orders by the durations of the previous
// run it cached (node_modules/.vite), and a fresh clone has none: there, by file size, which puts
// the reliability trials (a short file of long child processes) near the end. Here each file
// without a cached duration takes its duration from SECONDS, measured; files in neither keep
// vitest's order, after those.
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Seconds of the suite's slowest files, one file at a time (`vitest run`, 128 files, commit
 * 3bfb22f, 2026-12-06, load average 7-11): only their order matters.
 */
export const SECONDS: Record<string, number> = {
  'tests/reliability/reliability.test.ts': 126,
  'tests/jobs/queue.test.ts': 68,
  'tests/bench/deviceCheck.test.ts': 44,
  'tests/jobs/promises.test.ts': 40,
  'tests/train/trainingProcesses.test.ts': 32,
  'tests/jobs/transfer.test.ts': 26,
  'tests/train/stopped.test.ts': 23,
  'tests/cli/usage.test.ts': 22,
  'tests/sim/fitted.test.ts': 19,
  'tests/package.test.ts': 19,
  'tests/train/plan.test.ts': 18,
  'tests/cli/options.test.ts': 18,
  'tests/cli/flags.test.ts': 17,
  'tests/io/diskFull.test.ts': 16,
  'tests/train/parentDeath.test.ts': 15,
  'tests/jobs/cacheStop.test.ts': 14,
  'tests/jobs/recordServe.test.ts': 14,
  'tests/train/failedCells.test.ts': 13,
};

/** The file's duration in seconds: vitest's cached one, else SECONDS', else undefined. */
export type Durations = (file: string) => number | undefined;

/** `files` (paths relative to the root) longest first; files of unknown duration after, in their order. */
export function longestFirst(files: string[], cached: Durations): string[] {
  const seconds = (f: string) => cached(f) ?? SECONDS[f] ?? -1;
  return files
    .map((file, i) => ({ file, i, s: seconds(file) }))
    .sort((a, b) => b.s - a.s || a.i - b.i)
    .map((x) => x.file);
}

export default class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const base = await super.sort(files);
    const root = this.ctx.config.root;
    const rel = (spec: TestSpecification) => spec.moduleId.slice(root.length + 1);
    const byPath = new Map(base.map((spec) => [rel(spec), spec]));
    const cached: Durations = (file) => {
      const d = this.ctx.cache.getFileTestResults(`${byPath.get(file)!.project.name}:${file}`)?.duration;
      return d === undefined ? undefined : d / 1000;
    };
    return longestFirst([...byPath.keys()], cached).map((file) => byPath.get(file)!);
  }
}
