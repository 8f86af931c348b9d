// What the user sees when a command fails (src/io/errors.ts): a user error is its message alone,
// exit 1 (a mistyped command line exit 2); anything else is a bug, printed with its stack and a line
// asking to report it, exit 70 — from the command line, from a training child, from the ONNX
// engine's worker thread.
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BUG_EXIT, InputError, RefusedError, reportError, SettingsError, stackOf, UsageError, UserError } from '../../src/io/errors.ts';
import { zeroMoments } from '../../src/policy/engine.ts';
import { initWeights } from '../../src/policy/model.ts';
import { onnxEngine } from '../../src/policy/onnxEngine.ts';
import { loadBackend } from '../../src/policy/tfjsEngine.ts';
import { runTraining } from '../../train/runs.ts';
import { childError } from '../../train/trainingProcesses.ts';
import { randomBatch } from '../../bench/randomBatch.ts';
import { OPT, TINY } from '../fixtures/gradientCheck.ts';
import { builtCli as cli } from '../fixtures/cli.ts';

const lines = (text: string) => text.trimEnd().split('\n');

/** What reportError prints, and the exit status it returns. */
function reported(e: unknown): { code: number; out: string[] } {
  const out: string[] = [];
  const code = reportError(e, (text) => out.push(...lines(text)));
  return { code, out };
}

describe('reportError', () => {
  it('a user error is its message alone, exit 1; a usage error exit 2', () => {
    for (const e of [new UserError('a'), new InputError('a'), new SettingsError('a'), new RefusedError('a')])
      expect(reported(e)).toEqual({ code: 1, out: ['a'] });
    expect(reported(new UsageError('--frobnicate: unknown'))).toEqual({ code: 2, out: ['--frobnicate: unknown'] });
    expect(new SettingsError('x').name).toBe('SettingsError');
  });

  it("an error of the operating system (a permission denied, a full disk) is its message alone, exit 1: it is not this project's bug", () => {
    let e: unknown;
    try {
      readFileSync('/nonexistent/cpp-file');
    } catch (x) {
      e = x;
    }
    expect(reported(e)).toEqual({ code: 1, out: ["ENOENT: no such file or directory, open '/nonexistent/cpp-file'"] });
  });

  it('a bug is its stack, with the stacks of its causes, and a line asking to report it, exit 70', () => {
    const bug = new TypeError("Cannot read properties of undefined (reading 'id')", { cause: new RangeError('index 7 out of range') });
    const { code, out } = reported(bug);
    expect(code).toBe(BUG_EXIT);
    expect(out[0]).toBe("TypeError: Cannot read properties of undefined (reading 'id')");
    expect(out[1]).toMatch(/^\s+at .+errors\.test\.ts:\d+:\d+\)?$/);
    expect(out).toContain('caused by: RangeError: index 7 out of range');
    expect(out.at(-1)).toMatch(/^This is a bug in cpp-workbench: please report it/);
    expect(reported('a string').out[0]).toBe('a value that is not an Error was thrown: a string');
  });
});

describe('the command line', () => {
  it('a user error is one line, exit 1; a mistyped flag exit 2', () => {
    const out = join(mkdtempSync(join(tmpdir(), 'cpp-errors-')), 'g');
    const r = cli('cache', 'gen', '--questions', '-5', '--out', out);
    expect([r.status, lines(r.stderr)]).toEqual([1, ['--questions: must be more than 0 (found -5)']]);
    expect(cli('cache', 'gen', '--questoins', '5', '--out', out).status).toBe(2);
  }, 300_000);
});

describe('a training child', () => {
  it('relays a user error as its line, a UserError (exit 1 of the job)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cpp-errors-'));
    const settings = { cache: join(dir, 'none'), out: join(dir, 'run'), epochs: 1 };
    const e = await runTraining(settings, '0'.repeat(64), () => {}).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(UserError);
    expect((e as Error).message).toBe(
      `training in ${settings.out} failed (exit 1): invalid cache (1 problem):\n  ${settings.cache}/cache.jsonl: file not found`,
    );
    // Refused before its first checkpoint: no settings.json, train.log or folder of a run that is not there.
    expect(readdirSync(dir)).toEqual([]);
  }, 120_000);

  it("says where a bug's stack is, and carries it as its cause", () => {
    const stack = "TypeError: Cannot read properties of undefined (reading 'id')\n    at train (/w/train/trainer.ts:180:12)";
    const e = childError('runs/a', 'runs/a/train.log', '', BUG_EXIT, null, { bug: stack });
    expect(e).not.toBeInstanceOf(UserError);
    expect(e.message).toBe(
      "training in runs/a failed (exit 70): TypeError: Cannot read properties of undefined (reading 'id'); " +
        'a bug in cpp-workbench: its stack trace is in runs/a/train.log',
    );
    expect(stackOf(e)).toContain(`caused by: ${stack}`);
    expect(reported(e).code).toBe(BUG_EXIT);
    // Killed, or Node failing before the training started: the end of its log.
    expect(childError('runs/a', 'runs/a/train.log', 'epoch 1: accuracy 50%\n', null, 'SIGKILL').message).toBe(
      'training in runs/a failed (exit SIGKILL): epoch 1: accuracy 50% (all of it in runs/a/train.log)',
    );
  });
});

describe('policy engines', () => {
  const w = initWeights(TINY, 'errors');
  const state = { weights: w, step: 0, m: zeroMoments(w), v: zeroMoments(w) };

  it("a bug in the ONNX engine's worker thread keeps the thread's stack", async () => {
    const engine = await onnxEngine(TINY, state, OPT);
    try {
      const { batch } = randomBatch(TINY, 4, 'errors');
      const e = await engine.keepLogits({ ...batch, query: new Float32Array(3) }).catch((x: unknown) => x);
      expect(e).not.toBeInstanceOf(UserError);
      expect(stackOf(e)).toMatch(/\ncaused by: Error: [\s\S]*\n\s+at .*onnx\/worker\.mjs:\d+:\d+/);
    } finally {
      engine.dispose();
    }
  }, 300_000);

  it('an engine that cannot start here says why, as a SettingsError', async () => {
    // The CUDA execution provider: without its library beside ONNX Runtime's (install scripts are off,
    // so none is downloaded) a SettingsError naming the engine; with it, an engine that computes as the
    // CPU one with every node on CUDA (the worker gives a CUDA session no CPU provider to fall back to).
    const runtime = join(dirname(createRequire(import.meta.url).resolve('onnxruntime-node/package.json')), 'bin', 'napi-v6', process.platform, process.arch);
    const cudaInstalled = existsSync(join(runtime, 'libonnxruntime_providers_cuda.so'));
    const cuda = await onnxEngine(TINY, state, OPT, 1, 'cuda').catch((x: unknown) => x);
    if (!cudaInstalled) {
      expect(cuda).toBeInstanceOf(SettingsError);
      expect((cuda as Error).message).toMatch(/^onnx engine: /);
    } else {
      const onGpu = cuda as Awaited<ReturnType<typeof onnxEngine>>;
      const onCpu = await onnxEngine(TINY, state, OPT);
      const { batch } = randomBatch(TINY, 4, 'errors');
      const [g, c] = [await onGpu.keepLogits(batch), await onCpu.keepLogits(batch)];
      for (let i = 0; i < c.length; i++) expect(g[i]).toBeCloseTo(c[i], 3);
      onGpu.dispose();
      onCpu.dispose();
    }
    // A TF.js backend whose package is not installed names the backend and why it did not load.
    let installed = true;
    try {
      createRequire(import.meta.url).resolve('@tensorflow/tfjs-node');
    } catch {
      installed = false;
    }
    if (!installed)
      await expect(loadBackend('tensorflow')).rejects.toThrow(/^backend 'tensorflow' could not be loaded \(install .*\); tensorflow: .*tfjs-node/);
  }, 300_000);
});
