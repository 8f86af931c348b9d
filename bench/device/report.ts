// What the device check (check.ts) found, as JSON (check.json) and as the Markdown that
// docs/bench.md takes (check.md): the steps and their times, the bench's table with its goals, the
// two engines' training side by side, and the evaluations.
import type { GpuBench } from '../gpu.ts';

export interface StepResult {
  name: string;
  ok: boolean;
  seconds: number;
  /** Why it failed or was not run (empty when it ran to its end). */
  note: string;
}

export interface TrainComparison {
  steps: { webgpu: number; onnx: number };
  /** The largest |loss difference| over the steps both logged (4 decimals in the log). */
  maxLossDifference: number;
  /** Steps whose keep rate is the same on both engines (the same decisions sampled). */
  sameKeepRate: number;
  validation: Record<'webgpu' | 'onnx', { accuracy?: number; costPct?: number }[]>;
}

export interface CheckReport {
  /** The bundle's BUILD.json: the commit it was built from and when. */
  build: { commit: string; built: string; dirty?: boolean };
  date: string;
  machine: string;
  loadBefore: number;
  loadAfter?: number;
  small: boolean;
  adapter?: { name: string; description: string; software: boolean } | { error: string };
  steps: StepResult[];
  bench?: GpuBench;
  train?: TrainComparison;
}

const int = (x: number) => Math.round(x).toLocaleString('en-US');
const GOAL_BATCH = 16384;

function benchTable(b: GpuBench): string[] {
  if (b.missing) return [`bench gpu measured nothing: ${b.missing}`];
  const names = Object.keys(b.rows[0]?.rates ?? {});
  const torch = 'missing' in b.torch ? `PyTorch on CUDA: not run (${b.torch.missing})` : `PyTorch ${b.torch.version} on CUDA (${b.torch.device})`;
  const moved = (x?: { up: number; down: number }) => (x ? `${int(x.up)} / ${int(x.down)}` : '-');
  const lines = [
    `One REINFORCE step, width 512, hidden 256, decisions/s min / median / max; ${torch}.`,
    '',
    `| batch | ${names.join(' | ')} | webgpu / onnx 2 threads | webgpu / PyTorch CUDA | bytes a GPU step moves up / down |`,
    `| ----: | ${names.map(() => '---:').join(' | ')} | ---: | ---: | ---: |`,
    ...b.rows.map(
      (r) =>
        `| ${int(r.batch)} | ${names.map((n) => `${int(r.rates[n].min)} / ${int(r.rates[n].median)} / ${int(r.rates[n].max)}`).join(' | ')} | ` +
        `${r.overCpu2.toFixed(2)}x | ${r.overTorch === undefined ? '-' : `${r.overTorch.toFixed(2)}x`} | ${moved(r.bytes.train)} |`,
    ),
  ];
  if (b.forward)
    lines.push(
      '',
      `An evaluation's forward pass of ${int(b.forward.decisions)} decisions (decisions/s, median): ` +
        `${Object.entries(b.forward.rates)
          .map(([n, s]) => `${n} ${int(s.median)}`)
          .join(', ')}; a GPU call moves ${moved(b.forward.bytes)} bytes up / down (its parameters stay in GPU buffers).`,
    );
  const goal = b.rows.find((r) => r.batch === GOAL_BATCH);
  const crossover = b.rows.find((r) => r.overCpu2 >= 1)?.batch;
  lines.push(
    '',
    goal
      ? `Goals at batch ${int(GOAL_BATCH)}: webgpu >= 25x onnx at 2 threads -> ${goal.overCpu2 >= 25 ? 'met' : 'NOT met'} (${goal.overCpu2.toFixed(2)}x); ` +
          `webgpu >= PyTorch CUDA -> ${goal.overTorch === undefined ? 'not measured' : `${goal.overTorch >= 1 ? 'met' : 'NOT met'} (${goal.overTorch.toFixed(2)}x)`}.`
      : `Goals at batch ${int(GOAL_BATCH)}: not measured (batches ${b.rows.map((r) => int(r.batch)).join(', ')}).`,
    `Crossover: the GPU engine ${crossover ? `passes the 2-thread CPU engine from batch ${int(crossover)}` : 'passes the 2-thread CPU engine at no batch measured'}.`,
  );
  return lines;
}

function trainLines(t: TrainComparison, steps: StepResult[]): string[] {
  const took = (name: string) => steps.find((s) => s.name === name)?.seconds;
  const [g, c] = [took('train-webgpu'), took('train-onnx')];
  const val = (v: TrainComparison['validation']['webgpu']) =>
    v.map((e) => `${((e.accuracy ?? 0) * 100).toFixed(1)} % at ${(e.costPct ?? 0).toFixed(1)} %`).join('; ');
  return [
    '| engine | seconds | steps | validation per epoch (accuracy at cost) |',
    '| --- | ---: | ---: | --- |',
    `| webgpu | ${g?.toFixed(1) ?? '-'} | ${t.steps.webgpu} | ${val(t.validation.webgpu)} |`,
    `| onnx | ${c?.toFixed(1) ?? '-'} | ${t.steps.onnx} | ${val(t.validation.onnx)} |`,
    '',
    `Losses: the largest difference over ${Math.min(t.steps.webgpu, t.steps.onnx)} steps is ${t.maxLossDifference.toFixed(4)} (logged to 4 decimals); ` +
      `the keep rate is the same at ${t.sameKeepRate} of them. webgpu / onnx time: ${g && c ? `${(g / c).toFixed(2)}x` : '-'} ` +
      `(goal: the GPU engine no slower -> ${g && c ? (g <= c ? 'met' : 'NOT met') : 'not measured'}).`,
  ];
}

/** The report as Markdown. */
export function checkTable(r: CheckReport): string {
  const adapter = !r.adapter ? 'not asked' : 'error' in r.adapter ? `none (${r.adapter.error})` : `${r.adapter.name} (${r.adapter.description})`;
  return [
    `# Device check${r.small ? ' (small world and batches)' : ''}`,
    '',
    `Adapter: ${adapter}. Bundle of commit ${r.build.commit}${r.build.dirty ? ' with uncommitted changes' : ''}, built ${r.build.built}; ` +
      `run ${r.date} on ${r.machine}; load average ${r.loadBefore.toFixed(1)} before, ${r.loadAfter?.toFixed(1) ?? '-'} after.`,
    '',
    '| step | ran | seconds | note |',
    '| --- | --- | ---: | --- |',
    ...r.steps.map((s) => `| ${s.name} | ${s.ok ? 'yes' : 'no'} | ${s.seconds.toFixed(1)} | ${s.note} |`),
    '',
    '## bench gpu',
    '',
    ...(r.bench ? benchTable(r.bench) : ['not run (its step above says why)']),
    '',
    '## The main config trained on each engine',
    '',
    ...(r.train ? trainLines(r.train, r.steps) : ['not compared: a training step above did not finish']),
    '',
    "`eval` of the webgpu run's best policy (Full-Debate beside it): the steps eval-webgpu and eval-onnx above; the GPU engine plays 4,096 debates a batch.",
    '',
  ].join('\n');
}
