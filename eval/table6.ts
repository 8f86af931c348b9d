// The Table 6 style ablation table of a grid (SPEC §9): a row per variant (and cache) with
// accuracy mean ± sd (n seeds), cost %, kept edges, collapses, corrections, signed utility against
// Full-Debate and the accuracy difference to the reference variant; as Markdown and CSV, with
// plots of validation learning curves and of accuracy against cost.
import { stringify } from 'csv-stringify/sync';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vega from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';
import type { Split } from '../src/cache/format.ts';
import { ensureEmbeddings } from '../src/cache/embeddings.ts';
import { loadCache } from '../src/cache/load.ts';
import { writeFileAtomic } from '../src/cache/write.ts';
import { makeEnvironment, splitQuestions } from '../src/env/environment.ts';
import { loadAnyPolicy } from '../src/policy/artifact.ts';
import { encoderFor } from '../src/policy/inference.ts';
import type { ComputeSettings } from '../src/policy/backends.ts';
import { inferenceEngine } from '../src/policy/createEngine.ts';
import { markdownTable } from '../src/table.ts';
import type { CellOutcome, GridFile } from '../train/grid.ts';
import { runFiles, type LogLine } from '../train/runFolder.ts';
import { fullDebate, type MethodResult } from './baselines.ts';
import { evaluatePolicy } from './policyEval.ts';
import { plot, rows, type MethodGroup, type Row } from './report.ts';

export async function ablationReport(grid: GridFile, outcomes: CellOutcome[], results: string, split: Split, compute: ComputeSettings): Promise<{ markdown: string; files: string[] }> {
  const rs: (Row & { delta: number | null })[] = [];
  const fullAccuracy: string[] = [];
  const curves: { variant: string; epoch: number; accuracy: number }[] = [];
  for (const cachePath of grid.caches) {
    const cache = loadCache(cachePath);
    const env = makeEnvironment(cache, { agents: grid.base.agents });
    const { questions } = splitQuestions(env, split);
    const full = fullDebate(env, questions);
    fullAccuracy.push(`${((100 * full.correct) / full.questions).toFixed(1)}% on ${cachePath}`);
    const groups: MethodGroup[] = [];
    for (const v of grid.variants) {
      const label = grid.caches.length > 1 ? `${v.name} [${cachePath}]` : v.name;
      const runs: MethodResult[] = [];
      for (const o of outcomes.filter((x) => x.cell.variant === v.name && x.cell.cache === cachePath && x.status !== 'failed')) {
        const artifact = loadAnyPolicy(runFiles(o.cell.settings.out).best);
        const engine = await inferenceEngine(compute, artifact.shape, artifact.weights);
        const emb = await ensureEmbeddings(cachePath, cache, await encoderFor(artifact.encoder));
        const runEnv = makeEnvironment(cache, { agents: artifact.team, rounds: artifact.shape.rounds });
        runs.push(await evaluatePolicy(engine, runEnv, emb, questions, o.cell.id));
        engine.dispose();
        const log = runFiles(o.cell.settings.out).jsonl;
        if (existsSync(log))
          for (const line of readFileSync(log, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as LogLine))
            if (line.type === 'eval') curves.push({ variant: label, epoch: Number(line.epoch), accuracy: 100 * Number(line.accuracy) });
      }
      if (runs.length) groups.push({ method: label, runs });
    }
    // Cost %, utility and the difference to the reference variant are within the same cache.
    const cacheRows = rows(groups, full);
    const ref = cacheRows.find((r) => r.method.startsWith(grid.reference ?? grid.variants[0].name));
    rs.push(...cacheRows.map((r) => ({ ...r, delta: ref ? r.accuracy - ref.accuracy : null })));
  }
  const header = ['variant', 'accuracy % (mean ± sd, n)', 'cost %', 'kept edges %', 'collapse', 'correction', 'utility vs Full-Debate', `Δ accuracy vs ${grid.reference ?? grid.variants[0].name}`];
  const cells = (r: Row & { delta: number | null }) => [
    r.method,
    r.n === 1 ? `${r.accuracy.toFixed(1)} (n = 1)` : `${r.accuracy.toFixed(1)} ± ${r.accuracySd.toFixed(1)} (n = ${r.n})`,
    r.costPct.toFixed(1), r.keptPct.toFixed(1), r.ledger.collapse.toFixed(1), r.ledger.correction.toFixed(1),
    `${r.utility.toFixed(1)} (+${r.collapsesPrevented.toFixed(1)} / -${r.correctionsLost.toFixed(1)})`,
    r.delta === null ? '-' : `${r.delta >= 0 ? '+' : ''}${r.delta.toFixed(1)}`,
  ];
  const failed = outcomes.filter((o) => o.status === 'failed').map((o) => `- failed: ${o.cell.id}: ${o.error}`);
  const markdown = [
    `${grid.name}: ${split} split; Full-Debate ${fullAccuracy.join(', ')}; utility = collapses prevented - corrections lost against Full-Debate`,
    '',
    markdownTable(header, rs.map(cells)),
    ...failed,
  ].join('\n');
  const files = [join(results, 'table6.md'), join(results, 'table6.csv'), join(results, 'accuracy-cost.svg'), join(results, 'learning-curves.svg')];
  writeFileAtomic(files[0], [markdown + '\n']);
  writeFileAtomic(files[1], [stringify(rs.map(cells), { header: true, columns: header })]);
  writeFileAtomic(files[2], [await plot(rs, `${grid.name}: accuracy against cost (${split})`)]);
  writeFileAtomic(files[3], [await learningCurves(curves, grid.name)]);
  return { markdown, files };
}

/** Validation accuracy per epoch, mean over seeds, one line per variant. */
async function learningCurves(points: { variant: string; epoch: number; accuracy: number }[], name: string): Promise<string> {
  const spec: TopLevelSpec = {
    $schema: 'https://vega.github.io/schema/vega-lite/v5.json',
    title: `${name}: validation accuracy by epoch (mean over seeds)`,
    width: 560,
    height: 340,
    data: { values: points },
    mark: { type: 'line', point: true },
    encoding: {
      x: { field: 'epoch', type: 'quantitative' },
      y: { aggregate: 'mean', field: 'accuracy', type: 'quantitative', title: 'validation accuracy (%)', scale: { zero: false } },
      color: { field: 'variant', type: 'nominal' },
    },
  };
  return new vega.View(vega.parse(compile(spec).spec), { renderer: 'none' }).toSVG();
}
