// Progress of long work, on stderr so that stdout stays clean for tables. On a terminal: a bar that
// redraws itself. Elsewhere (CI, nohup, a queue, a log file): plain lines with the ETA, one at every
// further 10% (but not within `gapSeconds` of the last: quick work prints only its last line) and
// at least one every `everySeconds` while the work runs, so a watcher always sees that it moves.
import cliProgress from 'cli-progress';

interface Progress {
  /** Move to `done` (of a new `total`, if given), with an optional status text. */
  update(done: number, total?: number, status?: string): void;
  stop(): void;
}

interface ProgressOptions {
  /** Work already done before this process started (reused runs): left out of the rate behind the ETA. */
  done?: number;
  /** Longest silence between plain lines, in seconds. */
  everySeconds?: number;
  /** Shortest time between two plain lines at 10% steps, in seconds. */
  gapSeconds?: number;
  stream?: NodeJS.WritableStream & { isTTY?: boolean };
}

const duration = (seconds: number) => {
  const s = Math.round(seconds);
  return s < 60
    ? `${s}s`
    : s < 3600
      ? `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`
      : `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
};

export function progress(label: string, total: number, o: ProgressOptions = {}): Progress {
  const stream = o.stream ?? process.stderr;
  if (stream.isTTY) {
    const bar = new cliProgress.SingleBar(
      { format: `${label} [{bar}] {percentage}% | {value}/{total} | {duration_formatted} elapsed, eta {eta_formatted} {status}`, stream, hideCursor: true },
      cliProgress.Presets.shades_classic,
    );
    bar.start(total, o.done ?? 0, { status: '' });
    return {
      update: (done, newTotal, status) => {
        if (newTotal !== undefined) bar.setTotal(newTotal);
        bar.update(done, status === undefined ? undefined : { status });
      },
      stop: () => bar.stop(),
    };
  }
  return plainProgress(label, total, stream, o.done ?? 0, (o.everySeconds ?? 30) * 1000, (o.gapSeconds ?? 2) * 1000);
}

function plainProgress(label: string, total: number, stream: NodeJS.WritableStream, start: number, every: number, gap: number): Progress {
  const began = Date.now();
  let done = start;
  let status = '';
  let printedAt = began;
  let printedTenth = Math.floor((10 * start) / Math.max(total, 1));
  const print = (final = false) => {
    const elapsed = (Date.now() - began) / 1000;
    const rate = (done - start) / elapsed;
    const eta = final ? '' : `, eta ${done > start ? duration((total - done) / rate) : '?'}`;
    const percent = total > 0 ? ` (${Math.floor((100 * done) / total)}%)` : '';
    stream.write(`${label}: ${done}/${total}${percent}, ${duration(elapsed)} elapsed${eta}${final ? ', finished' : ''}${status ? ` | ${status}` : ''}\n`);
    printedAt = Date.now();
  };
  const heartbeat = setInterval(() => Date.now() - printedAt >= every - 50 && print(), every);
  heartbeat.unref(); // never keeps the process alive
  return {
    update(d, newTotal, s) {
      done = d;
      if (newTotal !== undefined) total = newTotal;
      if (s !== undefined) status = s;
      const tenth = Math.floor((10 * done) / Math.max(total, 1));
      const since = Date.now() - printedAt;
      if ((tenth > printedTenth && since >= gap) || since >= every) {
        printedTenth = tenth;
        print();
      }
    },
    stop() {
      clearInterval(heartbeat);
      print(true);
    },
  };
}
