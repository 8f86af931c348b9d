// `cache gen | validate | stats | audit | embed | import | from-parquet | to-parquet | compact | fit`: create, check and
// inspect response caches (the jobs: jobs/cache.ts, jobs/validate.ts, jobs/import.ts, jobs/parquet.ts).
import { basename } from 'node:path';
import type { Argv } from 'yargs';
import { ANSWER_TYPES, type AnswerType } from '../../src/answer.ts';
import { PriceFile, SplitFile } from '../../src/cache/importDu.ts';
import { ENCODINGS, type Encoding } from '../../src/cache/tokens.ts';
import { ENCODERS, type EncoderName } from '../../src/encoders/index.ts';
import { DebateSettings } from '../../src/env/settings.ts';
import { readJsonFile } from '../../src/io/jsonFile.ts';
import { DEFAULT_CACHE } from '../../src/sim/generate.ts';
import { parseReplacement } from '../../src/sim/replace.ts';
import { given, refuseUnused } from '../given.ts';
import { SettingsError } from '../../src/io/errors.ts';
import { command } from './command.ts';
import { validateCommand } from '../validate.ts';

const gen = <T>(y: Argv<T>) =>
  y.command(
    'gen',
    'generate a simulated debate world (seeded; a simulator, not model data)',
    (y) =>
      y
        .option('out', { type: 'string', default: DEFAULT_CACHE, describe: 'cache directory to write' })
        .option('world', { type: 'string', describe: 'JSON file with world settings (see src/sim/world.ts); flags below override it' })
        .option('questions', { type: 'number', describe: 'number of questions (default 1200)' })
        .option('seed', { type: 'number', describe: 'world seed (default 7)' })
        .option('adversary', { type: 'boolean', describe: 'add one adversarial agent that always argues for the distractor' })
        .option('replace', {
          type: 'string',
          describe:
            'AGENT=ABILITY: the same world with that agent replaced by a stronger, weaker or adversarial one (everything else drawn with the same seed)',
          coerce: (v?: string) => (v === undefined ? v : parseReplacement(v)),
        })
        .option('name', { type: 'string', default: 'default-sim', describe: 'cache name recorded in its header' })
        .option('force', {
          type: 'boolean',
          default: false,
          describe: 'replace the cache --out holds (with its record journal and import report; embeddings stay, matched by text)',
        }),
    async (a) => {
      const { genJob } = await import('../../jobs/cache.ts');
      console.log(
        await genJob({
          out: a.out,
          world: a.world,
          questions: a.questions,
          seed: a.seed,
          adversary: a.adversary,
          replace: a.replace,
          name: a.name,
          force: a.force,
        }),
      );
    },
  );

const validate = <T>(y: Argv<T>) =>
  y.command(
    'validate <dir>',
    'check every line of a cache and of its record journal; prints file:line: field: problem ' +
      'for each error (exits 1 if any) and each warning (prices, answers, token counts)',
    (y) => y.positional('dir', { type: 'string', demandOption: true, describe: 'cache directory' }),
    (a) => validateCommand(a.dir),
  );

const stats = <T>(y: Argv<T>) =>
  y.command(
    'stats <dir>',
    'questions per split, agents, responses and contexts per round, accuracy per agent and round, response-model fidelity',
    (y) =>
      y.positional('dir', { type: 'string', demandOption: true, describe: 'cache directory' }).option('prior-smoothing', {
        type: 'number',
        default: DebateSettings.shape.priorSmoothing.parse(undefined),
        describe: 'pseudo-count of the tier-3 prior',
      }),
    async (a) => console.log(await (await import('../../jobs/cache.ts')).statsJob(a.dir, a.priorSmoothing)),
  );

const audit = <T>(y: Argv<T>) =>
  y.command(
    'audit <dir>',
    "the misread audit: per agent, the responses whose stored answer is not in the reply's closing sentences, to read by eye",
    (y) =>
      y
        .positional('dir', { type: 'string', demandOption: true, describe: 'cache directory' })
        .option('agent', { type: 'string', describe: 'only this agent (an agent id of the cache)' })
        .option('limit', { type: 'number', default: 10, describe: 'responses listed per agent (all are counted)' }),
    async (a) => {
      if (!Number.isInteger(a.limit) || a.limit < 0) throw new SettingsError(`--limit: expected a whole number >= 0, found ${a.limit}`);
      console.log(await (await import('../../jobs/cache.ts')).auditJob(a.dir, { agent: a.agent, limit: a.limit }));
    },
  );

const embed = <T>(y: Argv<T>) =>
  y.command(
    'embed <dir>',
    'compute and store text embeddings for every question and response not yet embedded',
    (y) =>
      y.positional('dir', { type: 'string', demandOption: true, describe: 'cache directory' }).option('encoder', {
        choices: ENCODERS,
        default: 'bof' as EncoderName,
        describe: 'bof: hashed bag of features (fast, default); use: Universal Sentence Encoder lite (512-dim)',
      }),
    async (a) => console.log(await (await import('../../jobs/cache.ts')).embedJob(a.dir, a.encoder)),
  );

const fit = <T>(y: Argv<T>) =>
  y.command(
    'fit <dir>',
    "fit a simulator to a recorded cache's round-1 answers and revisions (src/sim/fitted.ts) and write it beside the cache " +
      'as its live endpoint (miss = record, record, active, fidelity); prints the knobs and recorded vs fitted revision rates',
    (y) =>
      y
        .positional('dir', {
          type: 'string',
          demandOption: true,
          describe: 'cache directory (an imported or hand-written cache; a simulated one has its own simulator)',
        })
        .option('seed', { type: 'number', default: 0, describe: 'seed of the per-question ability offsets drawn from their posteriors' })
        .option('force', { type: 'boolean', default: false, describe: 'replace the fit the folder holds' }),
    async (a) => console.log(await (await import('../../jobs/cache.ts')).fitJob(a.dir, { seed: a.seed, force: a.force })),
  );

const importCommand = <T>(y: Argv<T>) =>
  y.command(
    'import <files..>',
    'import recorded debates into a cache and print the import report (--format du: Du et al./DyLAN JSON, {prompt: [agent transcripts, gold, ...]})',
    (y) =>
      y
        .positional('files', { type: 'string', array: true, demandOption: true, describe: 'files of recorded debates' })
        .option('format', { choices: ['du'] as const, demandOption: true, describe: 'layout of the files' })
        .option('out', { type: 'string', demandOption: true, describe: 'cache directory to write (must not hold a cache yet, unless --force)' })
        .option('force', { type: 'boolean', default: false, describe: 'replace the cache --out holds (its journal and import report go with it)' })
        .option('name', { type: 'string', describe: 'cache name recorded in its header (default: the folder name)' })
        .option('model', {
          type: 'string',
          array: true,
          demandOption: true,
          describe: 'model of each transcript position, in order; the last one serves every later position',
        })
        .option('price-in', { type: 'number', describe: 'price per million input tokens, for every --model not in --prices' })
        .option('price-out', { type: 'number', describe: 'price per million output tokens, for every --model not in --prices' })
        .option('prices', { type: 'string', describe: 'JSON file {model: {"in": price, "out": price}}, prices per million tokens' })
        .option('encoding', {
          choices: ENCODINGS,
          default: 'cl100k_base' as Encoding,
          describe: 'tokenizer for token counts: cl100k_base (GPT-3.5/4) or o200k_base (GPT-4o and later)',
        })
        .option('benchmark', { type: 'string', default: 'MATH', describe: 'benchmark name recorded for every question' })
        .option('answer-type', { choices: ANSWER_TYPES, default: 'math' as AnswerType, describe: 'how answers are normalized and judged' })
        .option('split-seed', { type: 'number', default: 0, describe: 'seed of the split assignment' })
        .option('train-fraction', { type: 'number', default: 0.6, describe: 'share of questions in the train split' })
        .option('validation-fraction', { type: 'number', default: 0.2, describe: 'share in the validation split (the rest is test)' })
        .option('splits', { type: 'string', describe: 'JSON file {questionId: "train"|"validation"|"test"} instead of the seeded rule' })
        .option('peer-marker', {
          type: 'string',
          describe:
            'regex marking each peer answer in revision prompts, tried with the built-in ' +
            'markers of Du et al. and DyLAN (with a capture group: the group is the answer)',
        })
        .option('allow-no-peers', { type: 'boolean', default: false, describe: 'import even when no revision prompt shows a recognised peer answer' }),
    async (a) => {
      const prices = a.prices ? readJsonFile(a.prices, PriceFile) : {};
      const priced = a.model.every((m) => prices[m]);
      const pair = 'needs its pair: --price-in and --price-out price the models --prices leaves out';
      refuseUnused(a, [
        ['price-in', given(a, 'price-in') !== given(a, 'price-out'), pair],
        ['price-out', given(a, 'price-in') !== given(a, 'price-out'), pair],
        ['price-in', priced, `prices the models --prices leaves out, and ${a.prices} prices every --model`],
        ['price-out', priced, `prices the models --prices leaves out, and ${a.prices} prices every --model`],
        ...(['split-seed', 'train-fraction', 'validation-fraction'] as const).map((f): [string, boolean, string] => [
          f,
          a.splits !== undefined,
          `sets the seeded split rule, which --splits ${a.splits} replaces`,
        ]),
      ]);
      const { importJob, pricesOf } = await import('../../jobs/import.ts');
      console.log(
        await importJob({
          files: a.files,
          out: a.out,
          name: a.name ?? basename(a.out),
          models: a.model,
          prices: pricesOf(a.model, a.prices, a.priceIn, a.priceOut),
          encoding: a.encoding,
          benchmark: a.benchmark,
          answerType: a.answerType,
          splitSeed: a.splitSeed,
          trainFraction: a.trainFraction,
          validationFraction: a.validationFraction,
          splits: a.splits ? readJsonFile(a.splits, SplitFile) : undefined,
          peerMarker: a.peerMarker,
          allowNoPeers: a.allowNoPeers,
          force: a.force,
        }),
      );
    },
  );

const compact = <T>(y: Argv<T>) =>
  y.command(
    'compact <dir>',
    "fold the record tier's journal (journal.jsonl) into cache.jsonl, atomically; run it when nothing records into the cache",
    (y) => y.positional('dir', { type: 'string', demandOption: true, describe: 'cache directory' }),
    async (a) => console.log(await (await import('../../jobs/cache.ts')).compactJob(a.dir)),
  );

const importParquet = <T>(y: Argv<T>) =>
  y.command(
    'from-parquet <file>',
    'import a Parquet table of cache records (one row per record, columns as cache.jsonl fields; without an answer column, ' +
      'answers are read from the texts as cache import reads them) and print the import report',
    (y) =>
      y
        .positional('file', { type: 'string', demandOption: true, describe: 'Parquet file' })
        .option('out', { type: 'string', demandOption: true, describe: 'cache directory to write (must not hold a cache yet, unless --force)' })
        .option('force', { type: 'boolean', default: false, describe: 'replace the cache --out holds (its journal and import report go with it)' })
        .option('name', { type: 'string', describe: 'cache name when the table has no cache row (default: the folder name)' }),
    async (a) => console.log(await (await import('../../jobs/parquet.ts')).importParquetJob({ file: a.file, out: a.out, name: a.name, force: a.force })),
  );

const exportParquet = <T>(y: Argv<T>) =>
  y.command(
    'to-parquet <dir>',
    'write a cache (its journal included) as a Parquet table, one row per record (cache from-parquet reads it back)',
    (y) =>
      y
        .positional('dir', { type: 'string', demandOption: true, describe: 'cache directory' })
        .option('out', { type: 'string', demandOption: true, describe: 'Parquet file to write' }),
    async (a) => console.log(await (await import('../../jobs/parquet.ts')).exportParquetJob(a.dir, a.out)),
  );

// Each cache command is a subcommand of its own (gen, validate, ...): all of them load with `cache`.
export const cacheCommand = command((y) =>
  [gen, validate, stats, audit, embed, importCommand, importParquet, exportParquet, compact, fit]
    .reduce((y, c) => c(y), y)
    .demandCommand(1, 'name a cache command: gen, validate, stats, audit, embed, import, from-parquet, to-parquet, compact or fit'),
);
