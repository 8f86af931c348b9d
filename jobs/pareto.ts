// `pareto`: CPP trained to several target budgets (setting targetCost, dual ascent on the cost
// multiplier), each over several seeds in worker processes (a grid, train/grid.ts), evaluated on a
// split beside the baselines at matched budgets: Consistency-Best and Consistency-Fuse extended to
// CPP's cost, random pruning at CPP's keep rate, the static mask trained to the same target, and
// Full-Debate. Accuracy and cost are means over seeds with a 95% t-interval (deterministic methods
// are one run); each baseline is tested against CPP at the same budget (paired bootstrap over
// questions), and each row says which tiers answered its revisions. Writes pareto.md, a numeric
// pareto.csv and accuracy-cost.svg.
import { join } from 'node:path';
import type { Split } from '../src/cache/format.ts';
import { ensureEmbeddings } from '../src/cache/embeddings.ts';
import { loadCache } from '../src/cache/load.ts';
import { writeFilesAtomic } from '../src/io/atomic.ts';
import { splitQuestions, teamIds } from '../src/env/environment.ts';
import { closeRecording, openEnvironment, recordingSummary } from '../src/recording.ts';
import type { DebateSettings } from '../src/env/settings.ts';
import { readAnyPolicy } from '../train/checkpoint.ts';
import type { ComputeSettings } from '../src/policy/backends.ts';
import { inferenceEngine } from '../src/policy/createEngine.ts';
import { encoderFor } from '../src/policy/inference.ts';
import { ensureDefaultCache } from '../src/sim/generate.ts';
import { markdownTable } from '../src/table.ts';
import { readConfigFile, resolveConfig, rewardSettingsOf } from '../train/config.ts';
import { expandGrid, GridFile, runGrid } from '../train/grid.ts';
import { parseSettings } from '../src/io/problems.ts';
import { runFiles } from '../train/runFolder.ts';
import { costFloor } from '../train/budget.ts';
import type { MethodResult } from '../src/env/tally.ts';
import { fullDebate, randomPruning } from '../eval/baselines.ts';
import { consistencyBest, consistencyFuse } from '../eval/consistency.ts';
import { evaluatePolicy } from '../src/policy/evaluate.ts';
import { perQuestion, rows, type MethodGroup } from '../eval/comparison.ts';
import { csvTable, interval, num, plot, signed, tierText } from '../eval/report.ts';
import { TIERS } from '../src/env/tiers.ts';
import { staticMask, trainStaticMask } from '../eval/staticMask.ts';
import { excludesZero, pairedDifference, tInterval, type Estimate } from '../src/significance.ts';
import { withLock } from '../src/io/lock.ts';
import { failedRuns, InputError, SettingsError } from '../src/io/errors.ts';

export interface ParetoOptions {
  cache: string;
  split: Split;
  settings: Partial<DebateSettings>;
  /** Training settings of the CPP runs (and the static mask); each budget sets targetCost on top. */
  config: string;
  /** Target costs as fractions of Full-Debate's. */
  budgets: number[];
  seeds: number;
  workers: number;
  /** Folder of the runs (one per budget and seed) and of the report (report/). */
  out: string;
  compute: ComputeSettings;
  /** Train anew the runs whose folders hold runs of other settings or another cache (else an error naming each difference). */
  force?: boolean;
}

const budgetName = (b: number) => `target ${(100 * b).toFixed(0)}%`;

/** The Pareto job, with its folder locked (a second job into it is refused, naming this one). */
export function paretoJob(o: ParetoOptions): Promise<string> {
  return withLock(o.out, 'a Pareto job', () => paretoLocked(o));
}

async function paretoLocked(o: ParetoOptions): Promise<string> {
  ensureDefaultCache(o.cache);
  // The runs train the team the comparison debates (--agents), with the config's other settings.
  // (A config file read through the schema holds every setting: the grid sets cache, seed and out itself.)
  const { cache: _cache, seed: _seed, out: _out, ...file } = readConfigFile(o.config);
  const base = { ...file, ...(o.settings.agents && { agents: o.settings.agents }) };
  const config = resolveConfig({ ...base, cache: o.cache });
  const cache = loadCache(o.cache);
  const env = openEnvironment(cache, { ...o.settings, agents: config.agents, rounds: config.rounds });
  const train = splitQuestions(env, 'train').questions;
  const floor = await costFloor(
    env,
    train.map((q) => q.index),
  );
  const infeasible = o.budgets.filter((b) => b < floor);
  if (infeasible.length)
    throw new SettingsError(
      `--budgets: ${infeasible.join(', ')} below ${floor.toFixed(3)}, the cost of pruning every edge on the train split of ${cache.file}`,
    );

  // CPP at each budget: a grid with one variant per budget.
  const grid = parseSettings(
    GridFile,
    { name: 'pareto', base, seeds: o.seeds, caches: [o.cache], variants: o.budgets.map((b) => ({ name: budgetName(b), settings: { targetCost: b } })) },
    (path) => `--budgets (pareto grid ${path})`,
  );
  const outcomes = await runGrid(expandGrid(grid, o.out, o.compute), o.workers, undefined, o.force);
  const failed = outcomes.filter((x) => x.status === 'failed');
  if (failed.length)
    throw failedRuns(
      failed.map((f) => `${f.cell.id}: ${f.error}`).join('\n'),
      failed.map((f) => f.reason),
    );

  const { questions } = splitQuestions(env, o.split);
  const validation = splitQuestions(env, 'validation').questions;
  const full = await fullDebate(env, questions);
  const seeds = Array.from({ length: o.seeds }, (_, s) => s);
  const groups: (MethodGroup & { family: string; budget: number | null })[] = [{ method: 'Full-Debate', family: 'Full-Debate', budget: null, runs: [full] }];
  for (const b of o.budgets) {
    // The last checkpoint: the multiplier has followed the target for the whole run (the best
    // validation checkpoint may come from before it reached the budget).
    const runs: MethodResult[] = [];
    for (const cell of outcomes.filter((x) => x.cell.variant === budgetName(b))) {
      const a = readAnyPolicy(runFiles(cell.cell.settings.out).checkpoint);
      if (a.team.join() !== teamIds(env).join())
        throw new InputError(`${cell.cell.settings.out}: trained for team ${a.team.join(', ')}, the debate team is ${teamIds(env).join(', ')}`);
      const engine = await inferenceEngine(o.compute, a.shape, a.weights);
      runs.push(await evaluatePolicy(engine, env, await ensureEmbeddings(o.cache, cache, await encoderFor(a.encoder)), questions, cell.cell.id));
      engine.dispose();
    }
    const cost = runs.reduce((s, r) => s + r.cost, 0) / runs.length;
    const keep = runs.reduce((s, r) => s + r.keptEdges / r.maxEdges, 0) / runs.length;
    groups.push({ method: `CPP (${budgetName(b)})`, family: 'CPP', budget: b, runs });
    for (const [family, vote] of [
      ['Consistency-Best', await consistencyBest(env, questions, validation, cost)],
      ['Consistency-Fuse', consistencyFuse(env, questions, cost)],
    ] as const) {
      // Its own note measures cost against the budget it was given; say it against Full-Debate.
      vote.note =
        `within CPP's ${((100 * cost) / full.cost).toFixed(1)}% of Full-Debate's cost, used ` +
        `${((100 * vote.cost) / full.cost).toFixed(1)}%${vote.note?.includes('no more samples') ? ': the cache holds no more samples' : ''}`;
      groups.push({ method: `${vote.method} at CPP's cost`, family, budget: b, runs: [vote] });
    }
    const random: MethodResult[] = [];
    for (const s of seeds) random.push(await randomPruning(env, questions, keep, s));
    groups.push({
      method: `Random pruning (keep ${(100 * keep).toFixed(0)}%, CPP's rate at ${budgetName(b)})`,
      family: 'Random pruning',
      budget: b,
      runs: random,
    });
    const mask = resolveConfig({ ...base, targetCost: b });
    const masks: MethodResult[] = [];
    for (const s of seeds)
      masks.push(await staticMask(env, questions, (await trainStaticMask(env, train, rewardSettingsOf(mask, mask.k), { ...mask, lr: 0.05, seed: s })).theta));
    groups.push({ method: `Static mask (${budgetName(b)})`, family: 'Static mask', budget: b, runs: masks });
  }

  const rs = rows(groups, full);
  // Each baseline against CPP at the same budget, on the same questions: CPP minus the baseline.
  const order = full.outcomes.map((x) => x.q);
  const fullCost = full.outcomes.map((x) => x.cost);
  const paired = groups.map((g) => {
    const cpp = groups.find((c) => c.family === 'CPP' && c.budget === g.budget);
    if (!cpp || cpp === g) return null;
    return pairedDifference(perQuestion(cpp.method, cpp.runs, order), perQuestion(g.method, g.runs, order), fullCost, { seed: `${cpp.method} vs ${g.method}` })
      .accuracy;
  });
  const cppVsFull = groups
    .filter((g) => g.family === 'CPP')
    .map((g) => ({
      g,
      d: pairedDifference(perQuestion(g.method, g.runs, order), perQuestion('Full-Debate', [full], order), fullCost, { seed: `${g.method} vs Full-Debate` })
        .accuracy,
    }));
  const table = groups.map((g, i) => ({
    g,
    budget: g.budget === null ? '-' : `${(100 * g.budget).toFixed(0)}%`,
    acc: tInterval(g.runs.map((r) => (100 * r.correct) / r.questions)),
    cost: tInterval(g.runs.map((r) => (100 * r.cost) / full.cost)),
    row: rs[i],
    paired: paired[i],
  }));
  const ci = (m: Estimate) => (Number.isNaN(m.low) ? m.estimate.toFixed(1) : `${m.estimate.toFixed(1)} ± ${((m.high - m.low) / 2).toFixed(1)}`);
  const header = [
    'budget',
    'method',
    'n',
    'accuracy % (mean ± 95% t-interval over seeds)',
    'cost % (mean ± 95% t-interval)',
    'kept edges %',
    'CPP minus it, pp (95% paired bootstrap)',
    'tiers (revisions)',
  ];
  const lines = table.map((r) => [
    r.budget,
    r.g.method,
    r.g.runs.length,
    ci(r.acc),
    ci(r.cost),
    r.row.keptPct.toFixed(1),
    r.paired ? `${signed(r.paired.estimate)} ${interval(r.paired.low, r.paired.high, signed)}${excludesZero(r.paired) ? '' : ' (not significant)'}` : '-',
    tierText(r.row.tiers),
  ]);
  const title = `${cache.header.name}, ${o.split} split, ${questions.length} questions: CPP at target budgets against the baselines at matched cost`;
  const notes = [
    `n = 1: a deterministic method (no interval). Budget = target cost as a share of Full-Debate's; ` +
      `the cost of pruning every edge is ${(100 * floor).toFixed(1)}% here (train split).`,
    `CPP minus a baseline: CPP at the row's budget against it on the same ${questions.length} questions, each question's accuracy averaged ` +
      `over a method's runs; percentile bootstrap over questions (5000 ` +
      `resamples). CPP against Full-Debate: ${cppVsFull.map(({ g, d }) => `${g.method} ${signed(d.estimate)} ${interval(d.low, d.high, signed)}`).join('; ')}.`,
    ...groups.filter((g) => g.runs[0].note).map((g) => `- ${g.method}: ${g.runs[0].note}`),
    ...(env.recording ? [recordingSummary(env.recording)] : []),
  ];
  if (env.recording) closeRecording(env.recording);
  const markdown = [title, '', markdownTable(header, lines), '', ...notes].join('\n');
  const dir = join(o.out, 'report');
  const files = [join(dir, 'pareto.md'), join(dir, 'pareto.csv'), join(dir, 'accuracy-cost.svg')];
  const svg = await plot(rs, title);
  // Together: a failed write (a full disk) leaves the report there as it was.
  writeFilesAtomic([
    [files[0], [markdown + '\n']],
    [
      files[1],
      [
        csvTable(
          [
            'budget',
            'method',
            'family',
            'n',
            'accuracy_mean',
            'accuracy_ci_low',
            'accuracy_ci_high',
            'cost_pct_mean',
            'cost_pct_ci_low',
            'cost_pct_ci_high',
            'kept_edges_pct',
            'cpp_minus_pp',
            'cpp_minus_ci_low',
            'cpp_minus_ci_high',
            ...TIERS.map((t) => `tier_${t}_pct`),
          ],
          table.map((r) => [
            r.g.budget ?? '',
            r.g.method,
            r.g.family,
            r.g.runs.length,
            r.acc.estimate,
            num(r.acc.low),
            num(r.acc.high),
            r.cost.estimate,
            num(r.cost.low),
            num(r.cost.high),
            r.row.keptPct,
            ...(r.paired ? [r.paired.estimate, r.paired.low, r.paired.high] : ['', '', '']),
            ...TIERS.map((t) => r.row.tiers[t]),
          ]),
        ),
      ],
    ],
    [files[2], [svg]],
  ]);
  return `${markdown}\n\nwritten: ${files.join(', ')}`;
}
