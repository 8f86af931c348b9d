// Progress bars for long work, on stderr so that stdout stays clean for tables. Shown only on a
// terminal; in logs and CI they would be noise.
import cliProgress from 'cli-progress';

export interface Progress {
  /** Move to `done` (of a new `total`, if given), with an optional status text. */
  update(done: number, total?: number, status?: string): void;
  stop(): void;
}

export function progress(label: string, total: number): Progress {
  if (!process.stderr.isTTY) return { update() {}, stop() {} };
  const bar = new cliProgress.SingleBar(
    { format: `${label} [{bar}] {percentage}% | {value}/{total} | {duration_formatted} elapsed, eta {eta_formatted} {status}`, stream: process.stderr, hideCursor: true },
    cliProgress.Presets.shades_classic,
  );
  bar.start(total, 0, { status: '' });
  return {
    update: (done, newTotal, status) => {
      if (newTotal !== undefined) bar.setTotal(newTotal);
      bar.update(done, status === undefined ? undefined : { status });
    },
    stop: () => bar.stop(),
  };
}
