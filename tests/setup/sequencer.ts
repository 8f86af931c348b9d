// The order in which the suite's files start (vitest.config.ts). With several files at once the
// suite ends when its last file does, so the longest files start first: a file that takes two
// minutes started last would run alone at the end. Vitest orders by the durations of the previous
// run it cached (node_modules/.vite), and a fresh clone has none: there, by file size, which puts
// the reliability trials (a short file of long child processes) near the end. Here each file
// without a cached duration takes its duration from SECONDS, measured; files in neither keep
// vitest's order, after those.
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Seconds of the suite's files that take 9 s or more: the mean of three fresh-clone runs of
 * `npm test` (three workers; the tests of `7fe5dac`, 2026-12-06 16:36-17:11 UTC, the suite's own load).
 * Only their order matters; every file this long is named, so that a new short file (placed by
 * vitest's own order, by size) does not push a long one towards the end.
 */
export const SECONDS: Record<string, number> = {
  'tests/reliability/reliability.test.ts': 197,
  'tests/jobs/queue.test.ts': 109,
  'tests/jobs/promises.test.ts': 92,
  'tests/train/trainingProcesses.test.ts': 69,
  'tests/sim/fitted.test.ts': 47,
  'tests/jobs/transfer.test.ts': 45,
  'tests/bench/deviceCheck.test.ts': 45,
  'tests/cache/boundedMemory.test.ts': 42,
  'tests/jobs/commandStop.test.ts': 42,
  'tests/train/stopped.test.ts': 40,
  'tests/package.test.ts': 36,
  'tests/io/diskFull.test.ts': 33,
  'tests/cli/options.test.ts': 29,
  'tests/jobs/recordServe.test.ts': 28,
  'tests/jobs/cacheStop.test.ts': 26,
  'tests/cli/flags.test.ts': 26,
  'tests/endpoints/recordedProtocol.test.ts': 25,
  'tests/train/plan.test.ts': 25,
  'tests/cli/usage.test.ts': 23,
  'tests/train/parentDeath.test.ts': 20,
  'tests/train/failedCells.test.ts': 20,
  'tests/train/teams.test.ts': 19,
  'tests/policy/webgpuEngine.test.ts': 18,
  'tests/train/runFolder.test.ts': 16,
  'tests/endpoints/debate.test.ts': 14,
  'tests/cache/columnsStop.test.ts': 13,
  'tests/cache/importDu.test.ts': 13,
  'tests/cli/startup.test.ts': 13,
  'tests/endpoints/recording.test.ts': 13,
  'tests/sim/world.test.ts': 11,
  'tests/train/counterfactual.test.ts': 11,
  'tests/cli/words.test.ts': 11,
  'tests/policy/onnxEngine.test.ts': 10,
  'tests/io/interrupt.test.ts': 10,
  'tests/cache/embedStop.test.ts': 9,
  'tests/train/grid.test.ts': 9,
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
