import { PassThrough } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { progress } from '../src/progress.ts';

function capture() {
  const stream = new PassThrough();
  let text = '';
  stream.on('data', (c: Buffer) => (text += c.toString()));
  return { stream, lines: () => text.split('\n').filter(Boolean), raw: () => text };
}

describe('progress without a terminal', () => {
  it('prints plain lines with the ETA at every further 10%, and a last line', () => {
    const out = capture();
    const bar = progress('train', 40, { stream: out.stream, gapSeconds: 0 });
    for (let i = 1; i <= 40; i++) bar.update(i, undefined, `loss ${i}`);
    bar.stop();
    const lines = out.lines();
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the escape character is what this test looks for
    expect(out.raw()).not.toMatch(/[\r\x1b]/); // no cursor movement, no colours: a log file reads it
    expect(lines).toHaveLength(11); // 10%, 20%, ..., 100%, finished
    expect(lines[0]).toMatch(/^train: 4\/40 \(10%\), \d+s elapsed, eta \d+s \| loss 4$/);
    expect(lines.at(-1)).toMatch(/^train: 40\/40 \(100%\), \d+s elapsed, finished \| loss 40$/);
  });

  it('prints only the last line of quick work', () => {
    const out = capture();
    const bar = progress('embed', 1000, { stream: out.stream });
    for (let i = 1; i <= 1000; i++) bar.update(i);
    bar.stop();
    expect(out.lines()).toEqual([expect.stringMatching(/^embed: 1000\/1000 \(100%\), 0s elapsed, finished$/)]);
  });

  it('says it is alive when nothing moves for a while, and leaves reused work out of the ETA', async () => {
    const out = capture();
    const bar = progress('grid', 10, { stream: out.stream, everySeconds: 0.2, gapSeconds: 0, done: 5 });
    await sleep(500);
    expect(out.lines().length).toBeGreaterThanOrEqual(2); // heartbeats while nothing is updated
    expect(out.lines()[0]).toMatch(/^grid: 5\/10 \(50%\), \d+s elapsed, eta \?$/); // no rate yet: nothing done in this process
    bar.update(6);
    bar.stop();
    expect(out.lines().at(-2)).toMatch(/^grid: 6\/10 \(60%\), \d+s elapsed, eta \d+s$/);
  });
});
