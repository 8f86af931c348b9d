// One progress bar over a whole training run: its total counts every epoch's steps and every
// validation, so the ETA is the run's; a validation weighs what it was measured to take.
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { runProgress, type RunShape } from '../../train/runProgress.ts';

function capture() {
  const stream = new PassThrough();
  let text = '';
  stream.on('data', (c: Buffer) => (text += c.toString()));
  return { stream, lines: () => text.split('\n').filter(Boolean) };
}

// 2 epochs of 4 steps, a validation after each; a validation's 30 debates are 3 steps of 10 until measured.
const shape: RunShape = { epochs: 2, fromEpoch: 0, stepsPerEpoch: 4, validates: () => true, stepDebates: 10, validationDebates: 30 };

describe('the progress of a training run', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('counts every epoch and validation in its total, and weighs a validation by its measured time', () => {
    const out = capture();
    const bar = runProgress(shape, out.stream);
    for (let epoch = 1; epoch <= 2; epoch++) {
      for (let s = 0; s < 4; s++) {
        vi.advanceTimersByTime(3000); // a step: 3 s
        bar.step(epoch, `loss ${s}`);
      }
      bar.validating(epoch);
      vi.advanceTimersByTime(15_000); // a validation: 15 s, 5 steps' time
      bar.validated(epoch);
    }
    bar.stop();
    const lines = out.lines();
    // Before the first validation is measured: 8 steps + 2 validations of 3 = 14; at 10%, 12 steps of 3 s to go.
    expect(lines[0]).toMatch(/^train: 2\/14 \(14%\), 6s elapsed, eta 36s \| epoch 1\/2 \| loss 1$/);
    // Measured: a validation is 5 steps, so the run is 8 + 2 x 5 = 18 steps.
    expect(lines.at(-1)).toMatch(/^train: 18\/18 \(100%\), 54s elapsed, finished \| epoch 2\/2 \| validated$/);
    expect(lines.some((l) => /^train: \d+\/18 .* \| epoch 2\/2 \| loss \d$/.test(l))).toBe(true);
  });

  it('a resumed run starts at the epochs it had trained, left out of the rate', () => {
    const out = capture();
    const bar = runProgress({ ...shape, fromEpoch: 1 }, out.stream);
    vi.advanceTimersByTime(60_000);
    bar.step(2, 'loss 0');
    vi.advanceTimersByTime(30_000); // the next line: printed after 30 s without one
    bar.stop();
    // 4 steps and a validation done before: 7 of 14, no rate yet; then one step in 90 s, 6 to go.
    expect(out.lines()[0]).toMatch(/^train: 7\/14 \(50%\), 30s elapsed, eta \?$/);
    expect(out.lines().at(-2)).toMatch(/^train: 8\/14 \(57%\), 1m30s elapsed, eta 9m00s \| epoch 2\/2 \| loss 0$/);
  });
});
