// The numbers of a transfer comparison (docs/transfer.md): five ways to a policy for a team with one
// member replaced, on the same test questions: (a) the old policy with the newcomer's embedding
// started from its validation responses, no training; (b) (a) with the behavior embedding
// fine-tuned; (c) (a) with everything fine-tuned; (d) a policy trained from scratch on the new
// team; (e) the old policy with the replaced member's embedding. Each against (d) (paired tests),
// each beside Full-Debate; what (a) keeps of (d)'s gain over Full-Debate, and the first step of
// the test-split traces at which (b) and (c) reach (d).
import type { MethodResult } from '../src/env/tally.ts';
import { mean, pairedBootstrap, type Estimate } from '../src/significance.ts';
import type { CurvePoint } from '../train/curves.ts';
import { pairedTests, perQuestion, rows, type MethodGroup, type PairedTest, type Row } from './comparison.ts';

/** (f), when given: a team-general policy (behavior rows, trained across teams) on the new team, no training. */
export const ROLES = ['a', 'b', 'c', 'd', 'e', 'f'] as const;
export type Role = (typeof ROLES)[number];

/** One way to the new team's policy: its runs (one per seed), the steps each trained in all and the step of the checkpoint evaluated. */
export interface TransferMethod {
  role: Role;
  method: string;
  runs: MethodResult[];
  trainedSteps: number[];
  checkpointSteps: number[];
}

export interface TransferRow extends Row {
  role: Role | null;
  /** Accuracy minus Full-Debate's, percentage points. */
  gain: number;
  trainedSteps: number;
  checkpointSteps: number;
}

/** The first traced step at which a fine-tune's mean test accuracy over its seeds reaches (d)'s; null if none within its steps. */
export interface StepsToMatch {
  role: 'b' | 'c';
  step: number | null;
  /** Its trace's last step. */
  traced: number;
}

export interface TransferComparison {
  rows: TransferRow[];
  /** Each way against (d), on the same questions. */
  tests: PairedTest[];
  /** (a)'s gain over Full-Debate as a share of (d)'s (%), pooled over the questions (NaN when (d) gains nothing). */
  retained: number;
  /**
   * The claim "(a) keeps at least `share` of (d)'s gain", as a difference that is defined even when
   * (d) gains little: (a)'s gain minus `share` x (d)'s, percentage points, with a paired bootstrap
   * interval over the questions (above 0: kept).
   */
  margin: Estimate & { share: number };
  /** The same two for (f), when the comparison has it. */
  general?: { retained: number; margin: Estimate & { share: number } };
  /** (d)'s steps in all (mean over its seeds). */
  scratchSteps: number;
  match: StepsToMatch[];
}

export function transferComparison(full: MethodResult, methods: TransferMethod[], curves: CurvePoint[], share: number): TransferComparison {
  const of = (role: Role) => methods.find((m) => m.role === role)!;
  const groups: (MethodGroup & { role: Role | null })[] = [
    { method: full.method, runs: [full], role: null },
    ...methods.map((m) => ({ method: m.method, runs: m.runs, policy: true, role: m.role })),
  ];
  const scratch = of('d');
  const rs = rows(groups, full);
  const fullAccuracy = rs[0].accuracy;
  const transferRows: TransferRow[] = rs.map((r, i) => {
    const m = methods.find((x) => x.method === r.method);
    return {
      ...r,
      role: groups[i].role,
      gain: r.accuracy - fullAccuracy,
      trainedSteps: m ? mean(m.trainedSteps) : 0,
      checkpointSteps: m ? mean(m.checkpointSteps) : 0,
    };
  });
  const tests = pairedTests(groups, full).filter((t) => t.method === scratch.method);
  const order = full.outcomes.map((o) => o.q);
  const right = (runs: MethodResult[]) => perQuestion('', runs, order).correct;
  const [f, d] = [right([full]), right(scratch.runs)];
  const gain = (x: number[]) => x.reduce((s, v, i) => s + v - f[i], 0);
  const keeps = (role: 'a' | 'f') => {
    const x = right(of(role).runs);
    const [margin] = pairedBootstrap([{ num: x.map((v, i) => 100 * (v - f[i] - share * (d[i] - f[i]))) }], { seed: 'transfer retained gain' });
    return { retained: gain(d) > 0 ? (100 * gain(x)) / gain(d) : NaN, margin: { ...margin, share } };
  };
  const { retained, margin } = keeps('a');
  const scratchAccuracy = transferRows.find((r) => r.role === 'd')!.accuracy;
  const match = (['b', 'c'] as const).map((role) => stepsToMatch(role, curves, of(role).method, of(role).runs.length, scratchAccuracy));
  const general = methods.some((m) => m.role === 'f') ? keeps('f') : undefined;
  return { rows: transferRows, tests, retained, margin, ...(general && { general }), scratchSteps: mean(scratch.trainedSteps), match };
}

/** The first step at which every seed of `series` was traced and their mean accuracy reached `target` (%). */
function stepsToMatch(role: 'b' | 'c', curves: CurvePoint[], series: string, runs: number, target: number): StepsToMatch {
  const byStep = new Map<number, number[]>();
  for (const p of curves) if (p.series === series && p.metric === 'accuracy (%)') byStep.set(p.x, [...(byStep.get(p.x) ?? []), p.value]);
  const steps = [...byStep.keys()].filter((x) => byStep.get(x)!.length === runs).sort((x, y) => x - y);
  return { role, step: steps.find((x) => mean(byStep.get(x)!) >= target) ?? null, traced: steps.at(-1) ?? 0 };
}
