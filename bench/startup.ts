// Start-up figures: the wall time of a fresh `cpp-workbench` process, the built bin on plain Node,
// as a user starts it: `--help` (goal <= 0.5 s), `baselines` on the default cache (goal <= 2 s),
// `cache validate` of it (no goal), and `npx cpp-workbench --help` (no goal: npx looks the package
// up before it starts the bin, which costs it more than the bin takes). Each runs once untimed (the
// file cache), then in rounds of rotating order (trials.ts); min / median / max, the median beside its goal.
import { beside } from './goals.ts';
import { BIN, timed } from './jobs.ts';
import { loadNote } from './engines.ts';
import { interleaved, spread } from './trials.ts';

interface Start {
  label: string;
  command: string[];
  goalS?: number;
}

export async function benchStartup(cache: string, trials = 5): Promise<void> {
  const starts: Start[] = [
    { label: 'cpp-workbench --help', command: [process.execPath, BIN, '--help'], goalS: 0.5 },
    { label: `cpp-workbench baselines (${cache})`, command: [process.execPath, BIN, 'baselines', '--cache', cache], goalS: 2 },
    { label: `cpp-workbench cache validate ${cache}`, command: [process.execPath, BIN, 'cache', 'validate', cache] },
    { label: 'npx cpp-workbench --help', command: ['npx', 'cpp-workbench', '--help'] },
  ];
  // A contender's rate is starts per second: one start per call, its warm-up included.
  const rates = await interleaved(
    starts.map((start) => ({ name: start.label, run: async () => 1 / timed(start.label, start.command).seconds })),
    { warmup: 0, seconds: 0, trials },
  );
  console.log(`\nStart-up, the built bin on plain Node in fresh processes, min / median / max of ${trials} (s); ${loadNote(false)}:`);
  for (const start of starts) {
    const s = spread(rates.get(start.label)!.trials.map((rate) => 1 / rate));
    const goal = start.goalS === undefined ? '' : `  ${beside(start.label, s.median, 's', { limit: start.goalS, atMost: true }, `median of ${trials}`)}`;
    console.log(`  ${start.label.padEnd(44)} ${[s.min, s.median, s.max].map((x) => x.toFixed(2)).join(' / ')}${goal}`);
  }
}
