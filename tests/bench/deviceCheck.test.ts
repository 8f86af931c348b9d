// The device check (bench/device/check.ts) from the sources on a small world, on the WebGPU adapter
// the suite's setup makes sure of (lavapipe where the machine has no GPU): every step runs, the two
// engines' training agrees, and the JSON and the Markdown table hold what docs/bench.md says they do.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { CheckReport } from '../../bench/device/report.ts';

const dir = mkdtempSync(join(tmpdir(), 'cpp-device-check-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the device check', () => {
  it('runs every step on a small world and writes check.json, check.md and check.log', () => {
    const out = join(dir, 'out');
    const r = spawnSync(process.execPath, ['--import', 'tsx', 'bench/device/check.ts', '--out', out, '--small', '--work', join(dir, 'work')], {
      encoding: 'utf8',
      // Without PyTorch's python: the bench says so and goes on.
      env: { ...process.env, PATH: `${dirname(process.execPath)}:/nonexistent` },
    });
    expect(r.status, r.stderr).toBe(0);
    const report = JSON.parse(readFileSync(join(out, 'check.json'), 'utf8')) as CheckReport;
    expect(report.steps.map((s) => [s.name, s.ok, s.note])).toEqual(
      ['bench-gpu', 'world', 'train-webgpu', 'train-onnx', 'eval-webgpu', 'eval-onnx'].map((name) => [name, true, '']),
    );
    expect(report.adapter).toHaveProperty('name');
    expect(report.bench?.rows.map((row) => row.batch)).toEqual([256]);
    expect(report.bench?.rows[0].bytes.train?.down).toBe(8);
    expect(report.bench?.torch).toHaveProperty('missing');
    expect(report.bench?.forward?.decisions).toBe(256);
    // Both engines trained the same steps with the same decisions sampled and losses to the log's 4 decimals.
    expect(report.train!.steps.webgpu).toBeGreaterThan(0);
    expect(report.train!.steps.onnx).toBe(report.train!.steps.webgpu);
    expect(report.train!.sameKeepRate).toBe(report.train!.steps.webgpu);
    expect(report.train!.maxLossDifference).toBeLessThanOrEqual(2e-4);
    expect(report.train!.validation.webgpu).toEqual(report.train!.validation.onnx);
    const table = readFileSync(join(out, 'check.md'), 'utf8');
    expect(table).toContain('| train-webgpu | yes |');
    expect(table).toContain('| 256 | ');
    expect(table).toContain('PyTorch on CUDA: not run (');
    expect(table).toMatch(/Losses: the largest difference over \d+ steps is 0\.000\d/);
    const log = readFileSync(join(out, 'check.log'), 'utf8');
    expect(log).toContain('policies evaluated on engine: webgpu, adapter ');
  }, 600_000); // six steps on a software adapter: minutes on a loaded machine
});
