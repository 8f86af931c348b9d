// Command line: `npm run cli -- <command> --help` lists every option.
// Commands that need TF.js import it when they run: the cache commands stay quick to start.
import { existsSync } from 'node:fs';
import { basename, join } from 'node:path';
import yargs, { type Argv } from 'yargs';
import { hideBin } from 'yargs/helpers';
import { COMPUTE_SETTINGS, computeOf, defaultCompute, readConfigFile, resolveConfig } from '../train/config.ts';
import { flagSettings, trainFlags } from '../train/flags.ts';
import { ensureEmbeddings } from './cache/embeddings.ts';
import { ANSWER_TYPES, type AnswerType } from './answer.ts';
import { SPLITS, type Split } from './cache/format.ts';
import { formatImportProblem, importDu, peerSummary, PriceFile, SplitFile } from './cache/importDu.ts';
import { cacheFilePath, loadCache } from './cache/load.ts';
import { cacheStats } from './cache/stats.ts';
import { formatIssue, validateCache } from './cache/validate.ts';
import { ENCODINGS, type Encoding } from './cache/tokens.ts';
import { writeCacheRecords, writeFileAtomic } from './cache/write.ts';
import { ENCODERS, makeEncoder, type EncoderName } from './encoders/index.ts';
import { DebateSettings, MISS_TIERS } from './env/settings.ts';
import { readJsonFile } from './jsonFile.ts';
import { BACKENDS, ENGINES } from './policy/backends.ts';
import { ensureDefaultCache, generateCache } from './sim/generate.ts';
import { WorldConfig } from './sim/world.ts';

const DEFAULT_CACHE = 'cache/default';

function debateOptions<T>(y: Argv<T>) {
  return y
    .option('miss', { choices: MISS_TIERS, default: 'model' as const, describe: 'deepest lookup tier on a cache miss: error | signature | model | record (record asks the live endpoint; simulator caches have one)' })
    .option('rounds', { type: 'number', default: 3, describe: 'debate rounds R (round 1 = independent answers)' })
    .option('agents', { type: 'string', describe: 'team as comma-separated agent ids (default: every agent of the cache)' })
    .option('round1-sample', { choices: ['first', 'random'] as const, default: 'first' as const, describe: 'round-1 sample a debate starts from' })
    .option('tie-break', { choices: ['lowest-agent', 'random'] as const, default: 'lowest-agent' as const, describe: 'majority tie rule' })
    .option('seed', { type: 'number', default: 0, describe: 'seed of every random choice in a replay' });
}

function computeOptions<T>(y: Argv<T>) {
  const d = defaultCompute();
  return y
    .option('engine', { choices: ENGINES, default: d.engine, describe: 'policy-math engine: onnx (ONNX Runtime, native CPU), tfjs (TF.js on --backend); auto: onnx when it loads' })
    .option('threads', { type: 'number', default: d.threads, describe: 'CPU threads of the onnx engine' })
    .option('backend', { choices: BACKENDS, default: d.backend, describe: 'TF.js backend of the tfjs engine' });
}

function debateSettings(a: { miss: DebateSettings['miss']; rounds: number; agents?: string; round1Sample: DebateSettings['round1Sample']; tieBreak: DebateSettings['tieBreak']; seed: number }): Partial<DebateSettings> {
  return { miss: a.miss, rounds: a.rounds, agents: a.agents?.split(',').map((s) => s.trim()), round1Sample: a.round1Sample, tieBreak: a.tieBreak, seed: a.seed };
}

const readWorldConfig = (file: string | undefined): Partial<WorldConfig> => (file ? readJsonFile(file, WorldConfig.partial()) : {});

const cli = yargs(hideBin(process.argv))
  .scriptName('cpp')
  .usage('$0 <command> [options]\n\nWorkbench for learned communication pruning in multi-agent debate (CPP), replayed offline from cached responses.')
  .command(
    'main',
    'the main job: create the default simulated cache if missing, train CPP for several seeds, compare it with every baseline on the test split',
    (y) => computeOptions(debateOptions(y))
      .option('cache', { type: 'string', default: DEFAULT_CACHE, describe: 'cache directory' })
      .option('split', { choices: SPLITS, default: 'test' as Split, describe: 'questions to evaluate on' })
      .option('config', { type: 'string', default: 'train/configs/main.json', describe: 'training settings of the CPP runs' })
      .option('seeds', { type: 'number', default: 3, describe: 'training seeds (0..N-1)' })
      .option('workers', { type: 'number', default: 2, describe: 'training runs at a time' })
      .option('runs', { type: 'string', default: 'checkpoints/main', describe: 'folder of the per-seed runs (finished ones are reused)' }),
    async (a) => console.log(await (await import('../eval/mainJob.ts')).mainJob({ cache: a.cache, split: a.split, settings: debateSettings(a), config: a.config, seeds: a.seeds, runs: a.runs, workers: a.workers, compute: computeOf(a) })),
  )
  .command(
    'baselines',
    'replay Full-Debate, No-communication and each Single agent on a split',
    (y) => debateOptions(y)
      .option('cache', { type: 'string', default: DEFAULT_CACHE, describe: 'cache directory' })
      .option('split', { choices: SPLITS, default: 'test' as Split, describe: 'questions to replay' }),
    async (a) => {
      const { evalJob } = await import('../eval/evalPolicy.ts');
      if (a.cache === DEFAULT_CACHE) ensureDefaultCache(a.cache);
      console.log((await evalJob({ policies: [], cache: a.cache, split: a.split, compute: defaultCompute(), settings: debateSettings(a), methods: ['full', 'none', 'single'], seeds: 1, reference: 'Full-Debate' })).table);
    },
  )
  .command('cache', 'create, check and inspect response caches', (y) =>
    y
      .command(
        'gen',
        'generate a simulated debate world (seeded; a simulator, not model data)',
        (y) => y
          .option('out', { type: 'string', default: DEFAULT_CACHE, describe: 'cache directory to write' })
          .option('config', { type: 'string', describe: 'JSON file with world settings (see src/sim/world.ts); flags below override it' })
          .option('questions', { type: 'number', describe: 'number of questions (default 1200)' })
          .option('seed', { type: 'number', describe: 'world seed (default 7)' })
          .option('adversary', { type: 'boolean', describe: 'add one adversarial agent that always argues for the distractor' })
          .option('name', { type: 'string', default: 'default-sim', describe: 'cache name recorded in its header' }),
        (a) => {
          const world = { ...readWorldConfig(a.config), ...(a.questions !== undefined && { questions: a.questions }), ...(a.seed !== undefined && { seed: a.seed }), ...(a.adversary !== undefined && { adversary: a.adversary }) };
          generateCache(a.out, WorldConfig.parse(world), a.name);
          console.log(`wrote ${cacheFilePath(a.out)}`);
        },
      )
      .command(
        'validate <dir>',
        'check every line of a cache; prints file:line: field: problem for each error (exits 1 if any) and each warning (prices, answers, token counts)',
        (y) => y.positional('dir', { type: 'string', demandOption: true, describe: 'cache directory' }),
        (a) => {
          const { cache, issues } = validateCache(a.dir);
          for (const i of issues) console.log(formatIssue(i));
          const errors = issues.filter((i) => i.severity === 'error').length;
          const warnings = issues.length - errors;
          const plural = (k: number, w: string) => `${k} ${w}${k === 1 ? '' : 's'}`;
          if (errors) {
            console.log(`${plural(errors, 'problem')}${warnings ? `, ${plural(warnings, 'warning')}` : ''}: ${cacheFilePath(a.dir)} is not a valid cache`);
            process.exitCode = 1;
            return;
          }
          console.log(`${cacheFilePath(a.dir)}: valid (${cache!.questions.length} questions, ${cache!.agents.length} agents, ${cache!.responses.length} responses)${warnings ? `, ${plural(warnings, 'warning')}` : ''}`);
        },
      )
      .command(
        'stats <dir>',
        'questions per split, agents, responses and contexts per round, accuracy per agent and round, response-model fidelity',
        (y) => y
          .positional('dir', { type: 'string', demandOption: true, describe: 'cache directory' })
          .option('prior-smoothing', { type: 'number', default: DebateSettings.shape.priorSmoothing.parse(undefined), describe: 'pseudo-count of the tier-3 prior' }),
        (a) => console.log(cacheStats(loadCache(a.dir), a.priorSmoothing)),
      )
      .command(
        'embed <dir>',
        'compute and store text embeddings for every question and response not yet embedded',
        (y) => y
          .positional('dir', { type: 'string', demandOption: true, describe: 'cache directory' })
          .option('encoder', { choices: ENCODERS, default: 'bof' as EncoderName, describe: 'bof: hashed bag of features (fast, default); use: Universal Sentence Encoder lite (512-dim)' }),
        async (a) => {
          const cache = loadCache(a.dir);
          const e = await ensureEmbeddings(a.dir, cache, await makeEncoder(a.encoder));
          console.log(`${a.dir}: ${e.questions.length} question and ${e.responses.length} response embeddings under ${e.encoder} (dim ${e.dim})`);
        },
      )
      .command(
        'import <files..>',
        'import recorded debates into a cache and print the import report (--format du: Du et al./DyLAN JSON, {prompt: [agent transcripts, gold, ...]})',
        (y) => y
          .positional('files', { type: 'string', array: true, demandOption: true, describe: 'files of recorded debates' })
          .option('format', { choices: ['du'] as const, demandOption: true, describe: 'layout of the files' })
          .option('out', { type: 'string', demandOption: true, describe: 'cache directory to write (must not hold a cache yet)' })
          .option('name', { type: 'string', describe: 'cache name recorded in its header (default: the folder name)' })
          .option('model', { type: 'string', array: true, demandOption: true, describe: 'model of each transcript position, in order; the last one serves every later position' })
          .option('price-in', { type: 'number', describe: 'price per million input tokens, for every --model not in --prices' })
          .option('price-out', { type: 'number', describe: 'price per million output tokens, for every --model not in --prices' })
          .option('prices', { type: 'string', describe: 'JSON file {model: {"in": price, "out": price}}, prices per million tokens' })
          .option('encoding', { choices: ENCODINGS, default: 'cl100k_base' as Encoding, describe: 'tokenizer for token counts: cl100k_base (GPT-3.5/4) or o200k_base (GPT-4o and later)' })
          .option('benchmark', { type: 'string', default: 'MATH', describe: 'benchmark name recorded for every question' })
          .option('answer-type', { choices: ANSWER_TYPES, default: 'math' as AnswerType, describe: 'how answers are normalized and judged' })
          .option('split-seed', { type: 'number', default: 0, describe: 'seed of the split assignment' })
          .option('train-fraction', { type: 'number', default: 0.6, describe: 'share of questions in the train split' })
          .option('validation-fraction', { type: 'number', default: 0.2, describe: 'share in the validation split (the rest is test)' })
          .option('splits', { type: 'string', describe: 'JSON file {questionId: "train"|"validation"|"test"} instead of the seeded rule' })
          .option('peer-marker', { type: 'string', describe: 'regex marking each peer answer in revision prompts, tried with the built-in markers of Du et al. and DyLAN (with a capture group: the group is the answer)' })
          .option('allow-no-peers', { type: 'boolean', default: false, describe: 'import even when no revision prompt shows a recognised peer answer' }),
        async (a) => {
          if (existsSync(cacheFilePath(a.out))) throw new Error(`${a.out} already holds a cache: choose another --out, or delete it first`);
          const prices = { ...(a.prices ? readJsonFile(a.prices, PriceFile) : {}) };
          for (const model of a.model)
            if (!prices[model] && a.priceIn !== undefined && a.priceOut !== undefined) prices[model] = { in: a.priceIn, out: a.priceOut };
          const result = importDu(a.files, {
            name: a.name ?? basename(a.out), models: a.model, prices, encoding: a.encoding, benchmark: a.benchmark, answerType: a.answerType,
            splitSeed: a.splitSeed, trainFraction: a.trainFraction, validationFraction: a.validationFraction, splits: a.splits ? readJsonFile(a.splits, SplitFile) : undefined,
            peerMarker: a.peerMarker, allowNoPeers: a.allowNoPeers,
          });
          const problems = result.problems.map(formatImportProblem);
          if (result.imported === 0) throw new Error(`nothing imported from ${a.files.join(', ')}:\n  ${problems.join('\n  ')}`);
          writeCacheRecords(a.out, result.records);
          const { importReport } = await import('../eval/importReport.ts');
          const report = [
            `imported ${result.imported} of ${result.read} problems from ${a.files.length} file${a.files.length === 1 ? '' : 's'} into ${cacheFilePath(a.out)}`,
            `${problems.length} problem${problems.length === 1 ? '' : 's'} reported${problems.length ? ':' : ''}`,
            ...problems.map((p) => `  ${p}`),
            peerSummary(result.peers),
            '',
            importReport(loadCache(a.out)),
          ].join('\n');
          writeFileAtomic(join(a.out, 'import-report.md'), [report + '\n']);
          console.log(report);
        },
      )
      .demandCommand(1, 'name a cache command: gen, validate, stats, embed or import'),
  )
  .command(
    'train',
    'train a FuseGLU pruning policy with REINFORCE on a cache (SPEC §4-7); every setting is a flag below',
    (y) => trainFlags(y)
      .option('config', { type: 'string', describe: 'JSON file of settings; flags override it' })
      .option('resume', { type: 'boolean', default: false, describe: 'continue the run in --out from its last checkpoint (its saved settings apply, except --engine, --threads and --backend)' })
      .example('$0 train --epochs 12 --k -1 --out checkpoints/k-1', 'train with prune pressure')
      .example('$0 train --resume --out checkpoints/k-1', 'continue an interrupted run'),
    async (a) => {
      const config = resolveConfig(a.config ? readConfigFile(a.config) : {}, flagSettings(a));
      const { train, runFiles } = await import('../train/trainer.ts');
      const flags = flagSettings(a);
      const compute = Object.fromEntries(COMPUTE_SETTINGS.filter((k) => flags[k] !== undefined).map((k) => [k, flags[k]]));
      const { checkpoint } = await train(config, { resume: a.resume, compute });
      const files = runFiles(config.out);
      const best = checkpoint.best;
      console.log(`done: ${config.out} (logs ${files.jsonl}, ${files.csv}); best validation epoch ${best?.epoch}: accuracy ${best ? (100 * best.accuracy).toFixed(1) : '-'}%, cost ${best?.costPct.toFixed(1)}% -> ${files.best}`);
    },
  )
  .command(
    'eval',
    'compare methods on a split (SPEC §8-9): baselines, consistency votes, freeze gates, random pruning, static mask, trained policies; writes Markdown, CSV and an accuracy-vs-cost SVG',
    (y) => computeOptions(debateOptions(y))
      .option('policy', { type: 'string', array: true, default: [] as string[], describe: 'checkpoint or policy.json; plain paths are the runs (seeds) of one method, label=path1,path2 makes a method of its own' })
      .option('w-collapse', { type: 'number', default: 1, describe: 'signed utility: weight of a collapse prevented' })
      .option('w-correction', { type: 'number', default: 1, describe: 'signed utility: weight of a correction lost' })
      .option('methods', { type: 'string', default: 'full,none,single,consistency,freeze,random,mask', describe: 'comma-separated: full, none, single, consistency, freeze, random, mask' })
      .option('keep-rate', { type: 'number', describe: 'keep rate of random pruning (default: the policies\' mean keep rate, 0.5 without policies)' })
      .option('seeds', { type: 'number', default: 3, describe: 'seeded runs of random pruning and the static mask' })
      .option('config', { type: 'string', describe: 'training settings (reward, return, epochs, ...) for the static mask' })
      .option('reference', { type: 'string', default: 'Full-Debate', describe: 'method (name prefix) for cost % and signed utility' })
      .option('out', { type: 'string', describe: 'folder for comparison.md, comparison.csv, accuracy-cost.svg' })
      .option('cache', { type: 'string', default: DEFAULT_CACHE, describe: 'cache directory' })
      .option('split', { choices: SPLITS, default: 'test' as Split, describe: 'questions to evaluate on' }),
    async (a) => {
      const { evalJob, METHODS } = await import('../eval/evalPolicy.ts');
      const methods = a.methods.split(',').map((m) => m.trim());
      const unknown = methods.filter((m) => !(METHODS as readonly string[]).includes(m));
      if (unknown.length) throw new Error(`--methods: unknown ${unknown.join(', ')} (choose from ${METHODS.join(', ')})`);
      const out = await evalJob({ policies: a.policy, cache: a.cache, split: a.split, compute: computeOf(a), settings: debateSettings(a), methods: methods as (typeof METHODS)[number][], keepRate: a.keepRate, seeds: a.seeds, config: a.config, reference: a.reference, out: a.out, weights: { collapse: a.wCollapse, correction: a.wCorrection } });
      console.log(out.table);
      if (out.files.length) console.log(`\nwritten: ${out.files.join(', ')}`);
    },
  )
  .command(
    'ablate',
    'run an ablation grid (variants x caches x seeds) in worker processes and print the Table 6 style table (--engine, --threads, --backend apply to cells whose grid settings do not set them, and to the evaluation)',
    (y) => computeOptions(y)
      .option('grid', { type: 'string', default: 'train/grids/table6.json', describe: 'grid file: name, base settings, seeds, caches, variants' })
      .option('workers', { type: 'number', default: 2, describe: 'cells trained at a time' })
      .option('out', { type: 'string', describe: 'results folder (default results/<grid name>)' })
      .option('split', { choices: SPLITS, default: 'test' as Split, describe: 'split the table is evaluated on' }),
    async (a) => {
      const started = Date.now();
      const { readGrid, expandGrid, runGrid } = await import('../train/grid.ts');
      const { ablationReport } = await import('../eval/table6.ts');
      const grid = readGrid(a.grid);
      const results = a.out ?? `results/${grid.name}`;
      for (const cache of grid.caches) if (cache === DEFAULT_CACHE) ensureDefaultCache(cache);
      const outcomes = await runGrid(expandGrid(grid, results, computeOf(a)), a.workers);
      const { markdown, files } = await ablationReport(grid, outcomes, results, a.split, computeOf(a));
      console.log(markdown);
      const failed = outcomes.filter((o) => o.status === 'failed').length;
      console.log(`\nwritten: ${files.join(', ')}\nwall time ${((Date.now() - started) / 60000).toFixed(1)} min for ${outcomes.length} cells (${outcomes.filter((o) => o.status === 'trained').length} trained, ${outcomes.filter((o) => o.status === 'reused').length} reused, ${failed} failed) with ${a.workers} workers`);
      if (failed) process.exitCode = 1;
    },
  )
  .command(
    'export <checkpoint>',
    'write a deployable policy.json (weights, architecture, team, encoder id), policy.onnx (a standard ONNX inference model) and the weights in TF.js format',
    (y) => y
      .positional('checkpoint', { type: 'string', demandOption: true, describe: 'a training checkpoint (e.g. checkpoints/run/best.json)' })
      .option('out', { type: 'string', describe: 'output folder (default: export/ beside the checkpoint)' }),
    async (a) => {
      const out = a.out ?? `${a.checkpoint.replace(/[^/]*$/, '')}export`;
      const { exportPolicy } = await import('./policy/export.ts');
      const { loadCheckpoint } = await import('./policy/artifact.ts');
      const { policy, onnx, tfjs } = await exportPolicy(loadCheckpoint(a.checkpoint), out);
      console.log(`wrote ${policy}, ${onnx} and ${tfjs}/ (model.json, weights.bin)`);
    },
  )
  .demandCommand(1, 'name a command')
  .strict()
  .help()
  .fail((msg, err, y) => {
    if (err) throw err; // bad input: reported below as its message alone
    console.error(`${y.help()}\n\n${msg}`);
    process.exit(2);
  });

try {
  await cli.parseAsync();
} catch (e) {
  // Bad input is reported as its message (file, line, field); a stack would only bury it.
  console.error((e as Error).message);
  process.exit(1);
}
