// The inputs every trial starts from, made once per suite run in WORK/inputs* by the command line
// itself: a small simulated cache with its embeddings, a larger one without, a finished training
// run (checkpoints for the corpus), small training settings and a small grid, and a few DyLAN
// MATH debates (12 problems of the algebra file of tests/fixtures/dylan-math, committed gzip'd).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { cli, freshDir, REPO, tail } from './harness.ts';

/** DyLAN's recorded MATH debates on algebra (SALT-NLP/DyLAN, MIT), gzip'd in the repository's test fixtures. */
export const DYLAN = resolve(REPO, 'tests/fixtures/dylan-math/algebra_1_248_4_3.json.gz');

/** Small training settings: 2 epochs of a narrow policy with one rollout a question, seconds per run. */
export const SMALL_CONFIG = { epochs: 2, batchSize: 4, hidden: 16, rollouts: 1, baseline: 'running' };

/** What WORK/inputs holds (paths relative to it, as the commands name them). */
export const INPUT = {
  /** 60 questions, embedded (bof): what train, main, ablate, record and the corpus read. */
  cache: 'cache',
  /** 200 questions, no embeddings: what `cache embed` fills. */
  plain: 'plain',
  /** `plain` as a Parquet table (`cache to-parquet`): what `cache from-parquet` reads. */
  table: 'plain.parquet',
  /** 200 questions whose recorded debates are Full-Debate and No-communication only, embedded: what `record` records into. */
  sparse: 'sparse',
  config: 'small.json',
  grid: 'grid.json',
  /** A finished `train` run on `cache` with SMALL_CONFIG: checkpoint.json, best.json. */
  run: 'trained',
  /** 12 problems of dylan-math's algebra file, in its own layout (Du et al.). */
  dylan: 'dylan.json',
  prices: 'prices.json',
} as const;

/** The small grid: two variants, one seed, the small settings, on the inputs' cache. */
const GRID = {
  name: 'small',
  base: SMALL_CONFIG,
  seeds: 1,
  caches: [INPUT.cache],
  reference: 'full',
  variants: [
    { name: 'full', settings: {} },
    { name: 'k = 1', settings: { k: 1 } },
  ],
};

/** The inputs that only `cache embed`, `cache from-parquet` and `record` read: no corpus case, no trial of train or cache gen. */
export const WIDE_INPUTS = [INPUT.plain, INPUT.sparse, INPUT.table];

/**
 * Make WORK/<name>; returns its path. Each step is a command a user would run. `wide`: WIDE_INPUTS
 * too (`npm test`'s trials, of train and cache gen, leave out their four commands).
 */
export async function makeInputs(log: (line: string) => void = () => {}, name = 'inputs', wide = true): Promise<string> {
  const dir = freshDir(name);
  const steps: string[][] = [
    ['cache', 'gen', '--out', INPUT.cache, '--questions', '60', '--seed', '11', '--name', 'reliability'],
    ['cache', 'embed', INPUT.cache],
    ...(wide
      ? [
          ['cache', 'gen', '--out', INPUT.plain, '--questions', '200', '--seed', '12', '--name', 'plain'],
          ['cache', 'to-parquet', INPUT.plain, '--out', INPUT.table],
          ['cache', 'gen', '--out', INPUT.sparse, '--world', 'sparse-world.json', '--seed', '13', '--name', 'sparse'],
          ['cache', 'embed', INPUT.sparse],
        ]
      : []),
  ];
  writeFileSync(join(dir, 'sparse-world.json'), JSON.stringify({ randomTrajectories: 0, questions: 200 }) + '\n');
  writeFileSync(join(dir, INPUT.config), JSON.stringify(SMALL_CONFIG, null, 2) + '\n');
  writeFileSync(join(dir, INPUT.grid), JSON.stringify(GRID, null, 2) + '\n');
  writeFileSync(join(dir, INPUT.prices), JSON.stringify({ 'gpt-3.5-turbo': { in: 0.5, out: 1.5 } }) + '\n');
  if (existsSync(DYLAN)) {
    const all = JSON.parse(gunzipSync(readFileSync(DYLAN)).toString('utf8')) as Record<string, unknown>;
    writeFileSync(join(dir, INPUT.dylan), JSON.stringify(Object.fromEntries(Object.entries(all).slice(0, 12))));
  }
  steps.push(['train', '--cache', INPUT.cache, '--config', INPUT.config, '--out', INPUT.run]);
  for (const args of steps) {
    const run = await cli(args, { cwd: dir });
    log(`inputs: ${args.join(' ')} (${(run.ms / 1000).toFixed(1)} s)`);
    if (run.code !== 0) throw new Error(`making the inputs: ${args.join(' ')} exited ${run.code}: ${tail(run.out, 8)}`);
  }
  return dir;
}
