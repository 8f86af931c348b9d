// The transfer report (docs/transfer.md), as shown: the table of the five ways and Full-Debate with
// each way's paired test against (d), the two claims of the issue as read from it, and the files:
// transfer.md, transfer.csv, paired-tests.csv, accuracy-cost.svg and curves.svg (test accuracy and
// keep rate by training step, (b)-(d)).
import { join } from 'node:path';
import { writeFileAtomic } from '../src/io/atomic.ts';
import { formatP } from '../src/significance.ts';
import { markdownTable } from '../src/table.ts';
import { learningCurvesPlot, type CurvePoint } from '../train/curves.ts';
import { csv, csvTable, interval, meanSd, pairedCsv, plot, pricingNote, signed, statisticsNote, tierText } from './report.ts';
import type { TransferComparison } from './transfer.ts';

/** The transfer goals (zero-shot keeps >= 80% of the from-scratch gain; fine-tuning needs <= 20% of its steps), as claims the report tests. */
export const GOALS = { retainedPct: 80, stepsPct: 20 } as const;

const steps = (x: number) => (Number.isInteger(x) ? String(x) : x.toFixed(1));

/** The table, the claims and the notes, as printed and as transfer.md holds them. */
export function transferMarkdown(c: TransferComparison, title: string): string {
  const scratch = c.rows.find((r) => r.role === 'd')!;
  const table = markdownTable(
    [
      'method',
      'accuracy % (mean ± sd, n)',
      '95% CI',
      'gain over Full-Debate pp',
      'cost %',
      'kept edges %',
      'training steps (checkpoint / in all)',
      `Δ accuracy vs (d) pp`,
      '95% CI (paired bootstrap)',
      'McNemar p',
      'differs',
      'tiers (revisions)',
    ],
    c.rows.map((r) => {
      const t = c.tests.find((x) => x.policy === r.method);
      return [
        r.method,
        meanSd(r.accuracy, r.accuracySd, r.n),
        interval(r.accuracyLow, r.accuracyHigh),
        r.role === null ? '-' : signed(r.gain),
        r.n === 1 ? r.costPct.toFixed(1) : `${r.costPct.toFixed(1)} ± ${r.costSd.toFixed(1)}`,
        r.keptPct.toFixed(1),
        r.role === null ? '-' : `${steps(r.checkpointSteps)} / ${steps(r.trainedSteps)}`,
        t ? signed(t.accuracy.estimate) : r.role === 'd' ? 'reference' : '-',
        t ? interval(t.accuracy.low, t.accuracy.high, signed) : '-',
        t ? `${formatP(t.mcnemar.pMin)} to ${formatP(t.mcnemar.pMax)} (${t.mcnemar.below05}/${t.mcnemar.pairs} < 0.05)` : '-',
        t ? (t.differs ? 'yes' : 'no') : '-',
        tierText(r.tiers),
      ];
    }),
  );
  return [title, '', table, '', ...claims(c, scratch.gain), '', statisticsNote('Full-Debate'), pricingNote(c.rows)].join('\n');
}

/** The two transfer claims, each met, missed or undecided by what the table shows. */
function claims(c: TransferComparison, scratchGain: number): string[] {
  const keeps = (role: 'a' | 'f', k: { retained: number; margin: TransferComparison['margin'] }) => {
    const a = c.rows.find((r) => r.role === role)!;
    const m = k.margin;
    const share = `${(100 * m.share).toFixed(0)}%`;
    return (
      `- (${role}) keeps ${Number.isNaN(k.retained) ? 'an undefined share' : `${k.retained.toFixed(0)}%`} of (d)'s gain over Full-Debate ` +
      `((${role}) ${signed(a.gain)}, (d) ${signed(scratchGain)} points). Claim, at least ${share}: (${role})'s gain minus ${share} of (d)'s is ` +
      `${signed(m.estimate)} ${interval(m.low, m.high, signed)} points (paired bootstrap over questions): ` +
      (m.low > 0 ? 'met' : m.high < 0 ? 'missed' : 'undecided (the interval includes 0)') +
      '.'
    );
  };
  const retained = [keeps('a', c), ...(c.general ? [keeps('f', c.general)] : [])];
  const lines = c.match.map((x) => {
    const name = x.role === 'b' ? '(b), the embedding alone,' : '(c), everything,';
    if (x.step === null) return `- ${name} does not reach (d)'s accuracy on the test trace within its ${x.traced} steps (mean over seeds).`;
    const budget = (GOALS.stepsPct / 100) * c.scratchSteps;
    const pct = (100 * x.step) / c.scratchSteps;
    const verdict = x.role === 'b' ? `; claim, within ${GOALS.stepsPct}% (${steps(budget)} steps): ${pct <= GOALS.stepsPct ? 'met' : 'missed'}` : '';
    const already = x.step === 0 ? ' (its start, (a), already does)' : '';
    return (
      `- ${name} reaches (d)'s accuracy on the test trace at step ${x.step}${already} (mean over seeds), ` +
      `${pct.toFixed(0)}% of (d)'s ${steps(c.scratchSteps)} steps${verdict}.`
    );
  });
  return [...retained, ...lines];
}

/** Write the report's files into `dir` (`title` heads the Markdown, the shorter `plotTitle` the plots); returns their paths. */
export async function writeTransferReport(
  dir: string,
  c: TransferComparison,
  curves: CurvePoint[],
  titles: { title: string; plotTitle: string },
  notes: string[],
): Promise<string[]> {
  const { title, plotTitle } = titles;
  const files = ['transfer.md', 'transfer.csv', 'paired-tests.csv', 'accuracy-cost.svg', 'curves.csv', 'curves.svg'].map((f) => join(dir, f));
  writeFileAtomic(files[0], [`${[transferMarkdown(c, title), ...notes].join('\n\n')}\n`]);
  writeFileAtomic(files[1], [csv(c.rows)]);
  writeFileAtomic(files[2], [pairedCsv(c.tests)]);
  writeFileAtomic(files[3], [await plot(c.rows, `${plotTitle}: accuracy against cost on test`)]);
  writeFileAtomic(files[4], [
    csvTable(
      ['series', 'run', 'step', 'metric', 'value'],
      curves.map((p) => [p.series, p.run, p.x, p.metric, p.value]),
    ),
  ]);
  writeFileAtomic(files[5], [
    await learningCurvesPlot(curves, `${plotTitle}: test accuracy and keep rate by training step (mean over seeds, band: lowest to highest)`, 'training step'),
  ]);
  return files;
}
