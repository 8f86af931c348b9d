// `pareto`: CPP trained to several target budgets (setting targetCost, dual ascent on the cost
// multiplier), each budget for each policy variant (setting decisions: edges, edges+revise,
// edges+revise+stop; a budget below a variant's cost floor is left out for it), each over several
// seeds in worker processes (a grid, train/grid.ts), evaluated on a split beside the baselines at
// matched budgets: Consistency-Best and Consistency-Fuse extended to CPP's cost, random pruning at
// CPP's keep rate, random revise and random stop at its rates (variants that make those
// decisions), the static mask trained to the same target (edges); at each budget whatever the
// policies, random revise, random stop and Consistency-Fuse at the budget itself; and the fixed
// rules at their own cost (No-communication, the round-1 majority, consensus stops, sparse debate),
// and Full-Debate. Accuracy and cost are means over seeds with a 95% t-interval (deterministic methods
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
import { freezeGate, fullDebate, noCommunication, randomPruning } from '../eval/baselines.ts';
import { decisionRates, randomAtBudget, randomRevise, randomStop, stoppingRules } from '../eval/stopping.ts';
import type { Question } from '../src/cache/types.ts';
import type { Environment } from '../src/env/environment.ts';
import type { Decisions } from '../src/policy/model.ts';
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
  /** The policy variants trained to each budget (default: edges); none: the baselines' frontier alone. */
  decisions?: Decisions[];
  seeds: number;
  workers: number;
  /** Folder of the runs (one per budget and seed) and of the report (report/). */
  out: string;
  compute: ComputeSettings;
  /** Train anew the runs whose folders hold runs of other settings or another cache (else an error naming each difference). */
  force?: boolean;
}

const budgetName = (b: number) => `target ${(100 * b).toFixed(0)}%`;
/** A grid variant's name: the budget, and the decisions where they are more than edges. */
const variantName = (b: number, v: Decisions) => (v === 'edges' ? budgetName(b) : `${budgetName(b)}, ${v}`);

type Group = MethodGroup & { family: string; budget: number | null; variant?: Decisions };

/**
 * The baselines matched to one policy variant's runs at budget `b`: the votes at its cost, random
 * pruning at its keep rate, random revise and random stop at its rates (where it makes those
 * decisions), the static mask trained to the same target (edges).
 */
async function matchedToPolicy(
  env: Environment,
  questions: Question[],
  validation: Question[],
  train: Question[],
  fullCost: number,
  runs: MethodResult[],
  b: number,
  v: Decisions,
  seeds: number[],
  base: object,
): Promise<Group[]> {
  const mean = (f: (r: MethodResult) => number) => runs.reduce((s, r) => s + f(r), 0) / runs.length;
  const cost = mean((r) => r.cost);
  const name = variantName(b, v);
  const groups: Group[] = [];
  for (const [family, vote] of [
    ['Consistency-Best', await consistencyBest(env, questions, validation, cost)],
    ['Consistency-Fuse', consistencyFuse(env, questions, cost)],
  ] as const) {
    // Its own note measures cost against the budget it was given; say it against Full-Debate.
    vote.note =
      `within CPP's ${((100 * cost) / fullCost).toFixed(1)}% of Full-Debate's cost, used ` +
      `${((100 * vote.cost) / fullCost).toFixed(1)}%${vote.note?.includes('no more samples') ? ': the cache holds no more samples' : ''}`;
    groups.push({ method: `${vote.method} at CPP's cost (${name})`, family, budget: b, variant: v, runs: [vote] });
  }
  const seeded = async (family: string, method: string, play: (s: number) => Promise<MethodResult>) => {
    const out: MethodResult[] = [];
    for (const s of seeds) out.push(await play(s));
    groups.push({ method, family, budget: b, variant: v, runs: out });
  };
  const keep = mean((r) => r.keptEdges / r.maxEdges);
  await seeded('Random pruning', `Random pruning (keep ${(100 * keep).toFixed(0)}%, CPP's rate at ${name})`, (s) => randomPruning(env, questions, keep, s));
  const rates = runs.map((r) => decisionRates(r, env.rounds));
  const rate = (k: 'revise' | 'stop') => rates.reduce((s, r) => s + r[k], 0) / rates.length;
  if (v !== 'edges')
    await seeded('Random revise', `Random revise (${(100 * rate('revise')).toFixed(0)}% of revisions, CPP's rate at ${name})`, (s) =>
      randomRevise(env, questions, rate('revise'), s),
    );
  if (v === 'edges+revise+stop')
    await seeded('Random stop', `Random stop (${(100 * rate('stop')).toFixed(0)}% a round, CPP's rate at ${name})`, (s) =>
      randomStop(env, questions, rate('stop'), s),
    );
  if (v === 'edges') {
    const mask = resolveConfig({ ...base, targetCost: b });
    await seeded('Static mask', `Static mask (${budgetName(b)})`, async (s) =>
      staticMask(env, questions, (await trainStaticMask(env, train, rewardSettingsOf(mask, mask.k), { ...mask, lr: 0.05, seed: s })).theta),
    );
  }
  return groups;
}

/** The Pareto job, with its folder locked (a second job into it is refused, naming this one). */
export function paretoJob(o: ParetoOptions): Promise<string> {
  return withLock(o.out, 'a Pareto job', () => paretoLocked(o));
}

async function paretoLocked(options: ParetoOptions): Promise<string> {
  const o = { ...options, decisions: options.decisions ?? ['edges'] };
  ensureDefaultCache(o.cache);
  // The runs train the debate the comparison debates (the debate flags given: --agents, --rounds, --protocol, ...), with the config's other settings.
  // (A config file read through the schema holds every setting: the grid sets cache, seed and out itself.)
  const { cache: _cache, seed: _seed, out: _out, ...file } = readConfigFile(o.config);
  const base = { ...file, ...o.settings };
  const config = resolveConfig({ ...base, cache: o.cache });
  const cache = loadCache(o.cache);
  const env = openEnvironment(cache, { ...o.settings, agents: config.agents, rounds: config.rounds });
  const train = splitQuestions(env, 'train').questions;
  const trainQs = train.map((q) => q.index);
  // Each variant's floor; the baselines' is round 1's own cost (a debate that stops at once).
  const floors = new Map<Decisions, number>();
  for (const v of new Set<Decisions>([...o.decisions, 'edges', 'edges+revise'])) floors.set(v, await costFloor(env, trainQs, v));
  const floor = floors.get('edges')!;
  const lowest = Math.min(...(o.decisions.length ? o.decisions : (['edges+revise'] as const)).map((v) => floors.get(v)!));
  const infeasible = o.budgets.filter((b) => b < lowest);
  if (infeasible.length)
    throw new SettingsError(
      `--budgets: ${infeasible.join(', ')} below ${lowest.toFixed(3)}, ` +
        (lowest === floor
          ? `the cost of pruning every edge on the train split of ${cache.file}`
          : `the cost of round 1 alone on the train split of ${cache.file}`),
    );
  const cells = o.budgets.flatMap((b) => o.decisions.filter((v) => b >= floors.get(v)!).map((v) => ({ b, v })));
  const unreachable = o.budgets.flatMap((b) => o.decisions.filter((v) => b < floors.get(v)!).map((v) => `${budgetName(b)} (${v})`));

  // CPP at each budget and variant: a grid with one variant per pair (none: the baselines alone).
  const grid = () =>
    parseSettings(
      GridFile,
      {
        name: 'pareto',
        base,
        seeds: o.seeds,
        caches: [o.cache],
        variants: cells.map(({ b, v }) => ({ name: variantName(b, v), settings: { targetCost: b, ...(v !== 'edges' && { decisions: v }) } })),
      },
      (path) => `--budgets (pareto grid ${path})`,
    );
  const outcomes = cells.length ? await runGrid(expandGrid(grid(), o.out, o.compute), o.workers, undefined, o.force) : [];
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
  const groups: Group[] = [{ method: 'Full-Debate', family: 'Full-Debate', budget: null, runs: [full] }];
  // The fixed rules, each at its own cost.
  for (const r of [await noCommunication(env, questions), await freezeGate(env, questions, 'always'), ...(await stoppingRules(env, questions))])
    groups.push({ method: r.method, family: r.method, budget: null, runs: [r] });
  for (const b of o.budgets) {
    for (const v of o.decisions.filter((x) => b >= floors.get(x)!)) {
      // The last checkpoint: the multiplier has followed the target for the whole run (the best
      // validation checkpoint may come from before it reached the budget).
      const runs: MethodResult[] = [];
      for (const cell of outcomes.filter((x) => x.cell.variant === variantName(b, v))) {
        const a = readAnyPolicy(runFiles(cell.cell.settings.out).checkpoint);
        if (a.team.join() !== teamIds(env).join())
          throw new InputError(`${cell.cell.settings.out}: trained for team ${a.team.join(', ')}, the debate team is ${teamIds(env).join(', ')}`);
        const engine = await inferenceEngine(o.compute, a.shape, a.weights);
        runs.push(await evaluatePolicy(engine, env, await ensureEmbeddings(o.cache, cache, await encoderFor(a.encoder)), questions, cell.cell.id));
        engine.dispose();
      }
      groups.push({ method: `CPP (${variantName(b, v)})`, family: 'CPP', budget: b, variant: v, runs, policy: true });
      groups.push(...(await matchedToPolicy(env, questions, validation, train, full.cost, runs, b, v, seeds, base)));
    }
    // Whatever the policies: random revise, random stop and Consistency-Fuse at the budget itself.
    for (const r of await randomAtBudget(env, questions, validation, b, seeds))
      groups.push({ method: r.method, family: r.method.split(' (')[0], budget: b, runs: r.runs });
    const fuse = consistencyFuse(env, questions, b * full.cost);
    fuse.note = `within ${(100 * b).toFixed(0)}% of Full-Debate's cost, used ${((100 * fuse.cost) / full.cost).toFixed(1)}%`;
    groups.push({ method: `${fuse.method} at the budget`, family: 'Consistency-Fuse', budget: b, runs: [fuse] });
  }

  const rs = rows(groups, full);
  // Each baseline against CPP at the same budget, on the same questions: CPP minus the baseline.
  const order = full.outcomes.map((x) => x.q);
  const fullCost = full.outcomes.map((x) => x.cost);
  // A baseline matched to a policy is tested against that policy; one at the budget against the budget's most accurate policy.
  const accuracy = (g: Group) => g.runs.reduce((s, r) => s + r.correct / r.questions, 0) / g.runs.length;
  const paired = groups.map((g) => {
    const cpps = groups.filter((c) => c.family === 'CPP' && c.budget === g.budget && c.budget !== null && (g.variant === undefined || c.variant === g.variant));
    const cpp = cpps.sort((x, y) => accuracy(y) - accuracy(x))[0];
    if (!cpp || cpp === g || g.family === 'CPP') return null;
    const d = pairedDifference(perQuestion(cpp.method, cpp.runs, order), perQuestion(g.method, g.runs, order), fullCost, {
      seed: `${cpp.method} vs ${g.method}`,
    }).accuracy;
    return { ...d, against: cpp.method };
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
    r.paired
      ? `${signed(r.paired.estimate)} ${interval(r.paired.low, r.paired.high, signed)}${excludesZero(r.paired) ? '' : ' (not significant)'}` +
        (o.decisions.length > 1 && r.g.variant === undefined ? `, ${r.paired.against}` : '')
      : '-',
    tierText(r.row.tiers),
  ]);
  const title = `${cache.header.name}, ${o.split} split, ${questions.length} questions: CPP at target budgets against the baselines at matched cost`;
  const notes = [
    `n = 1: a deterministic method (no interval). Budget = target cost as a share of Full-Debate's; ` +
      `the cost of pruning every edge is ${(100 * floor).toFixed(1)}% here, of round 1 alone ${(100 * floors.get('edges+revise')!).toFixed(1)}% (train split).`,
    ...(unreachable.length ? [`Below the variant's cost floor, not trained: ${unreachable.join(', ')}.`] : []),
    `CPP minus a baseline: CPP at the row's budget against it on the same ${questions.length} questions, each question's accuracy averaged ` +
      `over a method's runs; percentile bootstrap over questions (5000 ` +
      `resamples).` +
      (cppVsFull.length
        ? ` CPP against Full-Debate: ${cppVsFull.map(({ g, d }) => `${g.method} ${signed(d.estimate)} ${interval(d.low, d.high, signed)}`).join('; ')}.`
        : ''),
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
            'cpp_compared',
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
            ...(r.paired ? [r.paired.estimate, r.paired.low, r.paired.high, r.paired.against] : ['', '', '', '']),
            ...TIERS.map((t) => r.row.tiers[t]),
          ]),
        ),
      ],
    ],
    [files[2], [svg]],
  ]);
  return `${markdown}\n\nwritten: ${files.join(', ')}`;
}
