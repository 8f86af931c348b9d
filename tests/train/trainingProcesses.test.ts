import { existsSync, mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ensureEmbeddings } from '../../src/cache/embeddings.ts';
import { cacheHash } from '../../src/cache/hash.ts';
import { loadCache } from '../../src/cache/load.ts';
import { makeEncoder } from '../../src/encoders/index.ts';
import { UserError } from '../../src/io/errors.ts';
import { generateCache } from '../../src/sim/generate.ts';
import { ablationReport } from '../../eval/table6.ts';
import { expandGrid, GridFile, runGrid } from '../../train/grid.ts';
import { readLog, runFiles } from '../../train/runFolder.ts';
import { runTraining } from '../../train/runs.ts';
import { trainingProcesses } from '../../train/trainingProcesses.ts';
import { fileBytes } from '../fixtures/bytes.ts';
import { writeTinyCache } from '../fixtures/tinyWorld.ts';
import { trainingProcessOf } from '../fixtures/trainingProcess.ts';

const quiet = () => {};
const compute = { engine: 'onnx' as const, threads: 1, backend: 'cpu' as const };

/** A grid over two caches (the tiny world and a small simulated one), two variants, `seeds` seeds. */
async function twoCacheGrid(seeds: number) {
  const dir = mkdtempSync(join(tmpdir(), 'cpp-warm-'));
  writeTinyCache(join(dir, 'tiny'));
  await generateCache(join(dir, 'sim'), { questions: 40, round1Samples: 2, randomTrajectories: 1 }, 'small-sim');
  // Embeddings made beforehand: the first run of either kind would otherwise say it computes them.
  for (const c of ['tiny', 'sim']) await ensureEmbeddings(join(dir, c), loadCache(join(dir, c)), await makeEncoder('bof'));
  const grid = GridFile.parse({
    name: 'warm',
    base: { rounds: 2, k: -1, batchSize: 6, hidden: 8, epochs: 2, ...compute },
    seeds,
    caches: [join(dir, 'tiny'), join(dir, 'sim')],
    variants: [
      { name: 'full', settings: {} },
      { name: 'no conditioning', settings: { conditioning: false, lr: 0.01 } },
    ],
  });
  return { dir, grid };
}

/** A run's train.log less what depends on time: its time split line, elapsed times and ETAs. */
const timelessLog = (out: string) =>
  readFileSync(join(out, 'train.log'), 'utf8')
    .split('\n')
    // A progress bar's lines before its last come when time says (a loaded machine draws more of them).
    .filter((l) => !l.startsWith('time: ') && !(/: \d+\/\d+ \(\d+%\), /.test(l) && !l.includes('finished')))
    .map((l) => l.replace(/\d+m\d+s|\d+s elapsed|eta \d+s/g, 'T'));
const timelessLines = (out: string) => readLog(out).map(({ time: _t, seconds: _s, decisionsPerSecond: _d, ...l }) => l);
const tableRows = (text: string) => text.split('\n').filter((l) => l.startsWith('|'));

describe('warm training processes', () => {
  it('train every cell of a grid as a process of its own trains it: checkpoints, best policies, logs but their times, the table', async () => {
    const { dir, grid } = await twoCacheGrid(1);
    // Warm: every cell in one process, one after another, switching caches.
    const warm = expandGrid(grid, join(dir, 'warm'));
    const lines: string[] = [];
    const outcomes = await runGrid(warm, 1, (l) => lines.push(l));
    expect(outcomes.map((o) => o.status)).toEqual(new Array(4).fill('trained'));
    // Each cell's wall time, its steps and what it spent beyond them, as it finishes.
    for (const c of warm) expect(lines.some((l) => l.startsWith(`${c.id}: `) && /s beyond them \(setup .* end .*\)/.test(l))).toBe(true);
    // Cold: each cell in a process of its own.
    const cold = expandGrid(grid, join(dir, 'cold'));
    for (const c of cold) expect((await runTraining(c.settings, await cacheHash(c.cache), quiet)).status).toBe('trained');

    for (const [i, c] of cold.entries()) {
      const [w, k] = [runFiles(warm[i].settings.out), runFiles(c.settings.out)];
      // The settings a run saves name no folder (checkpoints) or its own (config.json).
      expect(fileBytes(w.checkpoint)).toEqual(fileBytes(k.checkpoint));
      expect(fileBytes(w.best)).toEqual(fileBytes(k.best));
      expect(timelessLines(warm[i].settings.out)).toEqual(timelessLines(c.settings.out));
      expect(timelessLog(warm[i].settings.out).map((l) => l.replaceAll(warm[i].settings.out, 'RUN'))).toEqual(
        timelessLog(c.settings.out).map((l) => l.replaceAll(c.settings.out, 'RUN')),
      );
    }
    const table = async (cells: typeof warm, results: string) =>
      tableRows(
        (
          await ablationReport(
            grid,
            cells.map((cell) => ({ cell, status: 'trained' as const })),
            results,
            'validation',
            compute,
          )
        ).markdown,
      );
    expect(await table(warm, join(dir, 'warm'))).toEqual(await table(cold, join(dir, 'cold')));
  }, 600_000);

  it("a process killed in a cell fails that cell alone; the next cell trains in a new process, as does the one after a cell's own error", async () => {
    const { dir, grid } = await twoCacheGrid(2);
    const cells = expandGrid({ ...grid, caches: [grid.caches[1]] }, join(dir, 'results'));
    const processes = trainingProcesses();
    const hash = await cacheHash(cells[0].cache);
    try {
      const first = runTraining(cells[0].settings, hash, quiet, { processes });
      // Killed as soon as it has trained a step (its first step line is in the run's log).
      await until(() => existsSync(runFiles(cells[0].settings.out).jsonl) && statSync(runFiles(cells[0].settings.out).jsonl).size > 0);
      const pid = trainingProcessOf(process.pid);
      process.kill(pid!, 'SIGKILL');
      await expect(first).rejects.toThrow(`training in ${cells[0].settings.out} failed (exit SIGKILL)`);
      expect((await runTraining(cells[1].settings, hash, quiet, { processes })).status).toBe('trained');
      const second = trainingProcessOf(process.pid);
      expect(second).not.toBe(pid);
      // A cell's own error (a user error: rounds the cache does not hold) fails it alone, and its process is not reused.
      await expect(runTraining({ ...cells[2].settings, rounds: 9 }, hash, quiet, { processes })).rejects.toThrow(/failed \(exit 1\): setting rounds: 9/);
      expect((await runTraining(cells[3].settings, hash, quiet, { processes })).status).toBe('trained');
      expect(trainingProcessOf(process.pid)).not.toBe(second);
      // The killed cell resumes from its checkpoint in a later run.
      expect((await runTraining(cells[0].settings, hash, quiet, { processes })).status).toBe('trained');
    } finally {
      processes.close();
    }
  }, 600_000);
});

const until = async (ok: () => boolean) => {
  for (const end = Date.now() + 120_000; !ok(); await new Promise((r) => setTimeout(r, 20))) if (Date.now() > end) throw new Error('timed out');
};

/** Training processes of the task fixture, with what this process writes to stderr (their lines relayed) kept in `said` until `restore()`. */
function taskProcesses() {
  const processes = trainingProcesses({ from: import.meta.url, name: '../fixtures/taskProcess' });
  const said: string[] = [];
  const write = process.stderr.write;
  process.stderr.write = ((chunk: string) => said.push(String(chunk)) > 0) as typeof process.stderr.write;
  return { processes, said, restore: () => void (process.stderr.write = write) };
}

describe('a task in a training process', () => {
  it('is answered by the idle process that ran last, its lines relayed; a user error keeps its message and exit code, a bug its stack, and neither process is reused', async () => {
    const { processes, said, restore } = taskProcesses();
    try {
      const first = await processes.task<number>({ say: 'first line' }, 'the first task');
      expect(await processes.task<number>({ say: 'second line' }, 'the second task')).toBe(first);
      expect(said.join('')).toContain('first line\nsecond line\n');
      const refused = await processes.task({ refuse: 'setting rounds: 9 is more than the cache holds' }, 'a refused task').catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(UserError);
      expect((refused as UserError).message).toBe('setting rounds: 9 is more than the cache holds');
      expect((refused as UserError).exitCode).toBe(1);
      const afterRefusal = await processes.task<number>({ say: 'third' }, 'a task after a refusal');
      expect(afterRefusal).not.toBe(first);
      const bug = await processes.task({ crash: true }, 'a crashing task').catch((e: unknown) => e);
      expect(bug).not.toBeInstanceOf(UserError);
      expect((bug as Error).stack).toMatch(/TypeError: Cannot read properties of undefined[\s\S]*taskProcess\.ts/);
      expect(await processes.task<number>({ say: 'fourth' }, 'a task after a bug')).not.toBe(afterRefusal);
    } finally {
      restore();
      await processes.close();
    }
    expect(said.join('')).not.toContain('setting rounds: 9'); // said once, by whoever catches it, not by the process too
  }, 120_000);

  it('still working when the job closes its processes (a stop), ends without a crash: its answer goes nowhere', async () => {
    const { processes, said, restore } = taskProcesses();
    try {
      void processes.task({ busy: 1500 }, 'a busy task').catch(() => {}); // (it ends unanswered)
      await until(() => said.join('').includes('busy'));
      await processes.close(); // disconnects it and sends SIGTERM, which it lets in after its work; awaits its exit
      await new Promise((r) => setTimeout(r, 1000)); // the last of what it wrote
    } finally {
      restore();
    }
    expect(said.join('')).not.toMatch(/EPIPE|ERR_IPC|at .*trainingProcess/);
  }, 120_000);
});
