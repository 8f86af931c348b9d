// The malformed-input corpus (issue 16, "Done when"): each case damages one input (a cache line, an
// embeddings file, a config, a grid, a checkpoint, an import file) or passes one bad flag, runs the
// command that reads it, and expects: its exit code, an error naming the file (and line and field)
// or the flag, no stack trace, and no file created or changed anywhere in the case's folder. A few
// cases are inputs that must be ACCEPTED (a pretty-printed checkpoint, a byte-order mark): the same
// checks with exit 0. The corpus is data: tables of damages crossed with the commands that read them.
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { changes, cli, copyTree, excerpt, freshDir, snapshot, STACK_TRACE } from './harness.ts';
import { DYLAN, INPUT } from './inputs.ts';
import { slug } from './kill.ts';

type Vars = Record<string, string | number>;

export interface CorpusCase {
  id: string;
  kind: 'cache' | 'embeddings' | 'config' | 'grid' | 'checkpoint' | 'flags' | 'import';
  /** Damage the input in the case's folder (a copy of the inputs); returns values the error names (e.g. the line). */
  // biome-ignore lint/suspicious/noConfusingVoidType: a setup that names nothing returns nothing
  setup?: (ws: string) => Vars | void;
  args: string[];
  /** Expected exit code: 1 (bad input), 2 (a mistyped flag), 'nonzero', or 0 for an input that must be accepted. */
  code: number | 'nonzero';
  /** What the output must say (a regex, `{name}` filled from setup's values): the file, line and field, or the flag. */
  error: string;
  /** What an accepted input may write (e.g. an export): left out of the no-file-changed check. */
  writes?: string[];
  available?: () => boolean;
}

// --- damaging files ------------------------------------------------------------------------------

const CACHE_FILE = `${INPUT.cache}/cache.jsonl`;
const EMB_FILE = `${INPUT.cache}/embeddings/bof-256.jsonl`;
const CHECKPOINT = `${INPUT.run}/checkpoint.json`;

const readLines = (file: string) => readFileSync(file, 'utf8').split('\n');

/** Replace the first line of `file` whose record matches `pick` with `edit(record)` (an object, or raw text). */
function editLine(file: string, pick: (r: Record<string, unknown>) => boolean, edit: (r: Record<string, unknown>) => unknown): (ws: string) => Vars {
  return (ws) => {
    const path = join(ws, file);
    const lines = readLines(path);
    const i = lines.findIndex((l) => l && pick(JSON.parse(l)));
    const edited = edit(JSON.parse(lines[i]));
    if (edited === undefined) lines.splice(i, 1);
    else lines[i] = typeof edited === 'string' ? edited : JSON.stringify(edited);
    writeFileSync(path, lines.join('\n'));
    return { line: i + 1 };
  };
}

/** Write raw bytes in place of line `pick` of `file` (bytes that are no JSON, or no UTF-8). */
function rawLine(file: string, pick: (r: Record<string, unknown>) => boolean, bytes: (line: string) => Buffer): (ws: string) => Vars {
  return (ws) => {
    const path = join(ws, file);
    const lines = readLines(path);
    const i = lines.findIndex((l) => l && pick(JSON.parse(l)));
    writeFileSync(path, Buffer.concat([Buffer.from(lines.slice(0, i).join('\n') + '\n'), bytes(lines[i]), Buffer.from('\n' + lines.slice(i + 1).join('\n'))]));
    return { line: i + 1 };
  };
}

const without = (r: Record<string, unknown>, k: string) => Object.fromEntries(Object.entries(r).filter(([f]) => f !== k));
const type = (t: string) => (r: Record<string, unknown>) => r.type === t;
const round2 = (r: Record<string, unknown>) => r.type === 'response' && r.round === 2;
const replaceFile = (file: string, content: string | Buffer) => (ws: string) => writeFileSync(join(ws, file), content);
const folderInstead = (file: string) => (ws: string) => {
  rmSync(join(ws, file), { force: true });
  mkdirSync(join(ws, file), { recursive: true });
};
const withBom = (file: string) => (ws: string) => writeFileSync(join(ws, file), '\uFEFF' + readFileSync(join(ws, file), 'utf8'));
/** Float32 values of a base64 vector, edited. */
const editVector = (b64: string, edit: (v: Float32Array) => Float32Array) => {
  const bytes = Buffer.from(b64, 'base64');
  const v = edit(new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4).slice());
  return Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('base64');
};
const nanAt0 = (v: Float32Array) => ((v[0] = NaN), v);

// --- cache lines ---------------------------------------------------------------------------------

/** Damages of `cache.jsonl`: the setup, and the field the error must name beside `cache.jsonl:<line>`. */
// biome-ignore lint/suspicious/noConfusingVoidType: a setup that names nothing returns nothing
const CACHE_DAMAGES: { id: string; setup: (ws: string) => Vars | void; field: string; loads?: boolean; where?: string }[] = [
  { id: 'bad JSON', setup: editLine(CACHE_FILE, type('response'), (r) => JSON.stringify(r).slice(0, 80)), field: '' },
  { id: 'trailing garbage', setup: editLine(CACHE_FILE, type('response'), (r) => JSON.stringify(r) + ' }x'), field: '' },
  { id: 'a line that is an array', setup: editLine(CACHE_FILE, type('response'), () => '[1, 2]'), field: '' },
  { id: 'question without gold', setup: editLine(CACHE_FILE, type('question'), (r) => without(r, 'gold')), field: 'gold' },
  { id: 'response without text', setup: editLine(CACHE_FILE, type('response'), (r) => without(r, 'text')), field: 'text' },
  { id: 'response without type', setup: editLine(CACHE_FILE, type('response'), (r) => without(r, 'type')), field: 'type' },
  { id: 'round as a string', setup: editLine(CACHE_FILE, round2, (r) => ({ ...r, round: '2' })), field: 'round' },
  { id: 'round 0', setup: editLine(CACHE_FILE, type('response'), (r) => ({ ...r, round: 0 })), field: 'round' },
  { id: 'negative promptTokens', setup: editLine(CACHE_FILE, type('question'), (r) => ({ ...r, promptTokens: -1 })), field: 'promptTokens' },
  { id: 'fractional outTokens', setup: editLine(CACHE_FILE, type('response'), (r) => ({ ...r, outTokens: 1.5 })), field: 'outTokens' },
  { id: 'negative inTokens', setup: editLine(CACHE_FILE, type('response'), (r) => ({ ...r, inTokens: -5 })), field: 'inTokens' },
  { id: 'unknown field (typo)', setup: editLine(CACHE_FILE, type('question'), (r) => ({ ...r, golld: 'C' })), field: 'golld' },
  { id: 'gold unreadable under its answerType', setup: editLine(CACHE_FILE, type('question'), (r) => ({ ...r, gold: 'banana' })), field: 'gold' },
  {
    id: 'answer unreadable under its answerType',
    setup: editLine(CACHE_FILE, type('response'), (r) => ({ ...r, answer: 'banana' })),
    field: 'answer',
    loads: true,
  },
  { id: 'unknown split', setup: editLine(CACHE_FILE, type('question'), (r) => ({ ...r, split: 'dev' })), field: 'split' },
  { id: 'unknown answerType', setup: editLine(CACHE_FILE, type('question'), (r) => ({ ...r, answerType: 'essay' })), field: 'answerType' },
  { id: 'negative price', setup: editLine(CACHE_FILE, type('agent'), (r) => ({ ...r, priceIn: -1e-6 })), field: 'priceIn' },
  { id: 'price 1e308', setup: editLine(CACHE_FILE, type('agent'), (r) => ({ ...r, priceOut: 1e308 })), field: 'priceOut' },
  {
    id: 'price 1e999 (Infinity)',
    setup: editLine(CACHE_FILE, type('agent'), (r) => JSON.stringify(r).replace(/"priceIn":[^,]+/, '"priceIn":1e999')),
    field: 'priceIn',
  },
  { id: 'price as a string', setup: editLine(CACHE_FILE, type('agent'), (r) => ({ ...r, priceOut: '0.5' })), field: 'priceOut' },
  { id: 'header version 2', setup: editLine(CACHE_FILE, type('cache'), (r) => ({ ...r, version: 2 })), field: 'version' },
  { id: 'no header line', setup: editLine(CACHE_FILE, type('cache'), () => undefined), field: 'type', where: String.raw`cache\.jsonl(:1)?` },
  { id: 'response of an unknown question', setup: editLine(CACHE_FILE, type('response'), (r) => ({ ...r, question: 'q999' })), field: 'question' },
  { id: 'response of an unknown agent', setup: editLine(CACHE_FILE, type('response'), (r) => ({ ...r, agent: 'ghost' })), field: 'agent' },
  { id: 'unknown context id', setup: editLine(CACHE_FILE, round2, (r) => ({ ...r, context: ['nope'] })), field: 'context' },
  {
    id: 'duplicate question id',
    setup: editLine(CACHE_FILE, type('question'), (r) => `${JSON.stringify(r)}\n${JSON.stringify(r)}`),
    field: 'id',
    where: String.raw`cache\.jsonl:\d+`,
  },
  { id: 'raw NUL byte in a text', setup: rawLine(CACHE_FILE, type('response'), (l) => Buffer.from(l.replace('"text":"', '"text":"\u0000'))), field: '' },
  {
    id: 'invalid UTF-8',
    setup: rawLine(CACHE_FILE, type('response'), (l) =>
      Buffer.concat([Buffer.from(l.slice(0, 60)), Buffer.from([0xff, 0xfe, 0xc3]), Buffer.from(l.slice(60))]),
    ),
    field: 'UTF-8',
  },
  { id: 'a folder in place of cache.jsonl', setup: folderInstead(CACHE_FILE), field: '', where: String.raw`cache\.jsonl` },
  { id: 'no cache.jsonl', setup: (ws) => rmSync(join(ws, CACHE_FILE)), field: '', where: String.raw`cache(\.jsonl|\b)` },
  { id: 'empty cache.jsonl', setup: replaceFile(CACHE_FILE, ''), field: '', where: String.raw`cache\.jsonl` },
];

const validateArgs = ['cache', 'validate', INPUT.cache];
const trainArgs = ['train', '--cache', INPUT.cache, '--config', INPUT.config, '--out', 'new-run'];

const cacheCases: CorpusCase[] = CACHE_DAMAGES.flatMap((d) => {
  const error = `${d.where ?? String.raw`cache\.jsonl:{line}\b`}${d.field ? `.*\\b${d.field}\\b` : ''}`;
  const cases: CorpusCase[] = [{ id: `cache: ${d.id} (validate)`, kind: 'cache', setup: d.setup, args: validateArgs, code: 1, error }];
  if (!d.loads) cases.push({ id: `cache: ${d.id} (train)`, kind: 'cache', setup: d.setup, args: trainArgs, code: 1, error });
  return cases;
});
cacheCases.push(
  { id: 'cache: a byte-order mark is accepted (validate)', kind: 'cache', setup: withBom(CACHE_FILE), args: validateArgs, code: 0, error: 'valid' },
  {
    id: 'cache: gen over an existing cache is refused',
    kind: 'cache',
    args: ['cache', 'gen', '--out', INPUT.cache, '--questions', '20'],
    code: 1,
    error: String.raw`cache.*(exists|already|--force)`,
  },
);

// --- embeddings ----------------------------------------------------------------------------------

// biome-ignore lint/suspicious/noConfusingVoidType: a setup that names nothing returns nothing
const EMB_DAMAGES: { id: string; setup: (ws: string) => Vars | void; field: string }[] = [
  {
    id: 'header dim 128',
    setup: editLine(
      EMB_FILE,
      (r) => r.type === 'embeddings',
      (r) => ({ ...r, dim: 128 }),
    ),
    field: '',
  },
  {
    id: 'a vector of half its length',
    setup: editLine(
      EMB_FILE,
      (r) => 'v' in r,
      (r) => ({ ...r, v: editVector(r.v as string, (v) => v.slice(0, v.length / 2)) }),
    ),
    field: 'v',
  },
  {
    id: 'a NaN value',
    setup: editLine(
      EMB_FILE,
      (r) => 'v' in r,
      (r) => ({ ...r, v: editVector(r.v as string, nanAt0) }),
    ),
    field: 'v',
  },
  {
    id: 'an infinite value',
    setup: editLine(
      EMB_FILE,
      (r) => 'v' in r,
      (r) => ({ ...r, v: editVector(r.v as string, (v) => ((v[3] = Infinity), v)) }),
    ),
    field: 'v',
  },
  {
    id: 'bad JSON',
    setup: editLine(
      EMB_FILE,
      (r) => 'v' in r,
      (r) => JSON.stringify(r).slice(0, 50),
    ),
    field: '',
  },
  {
    id: 'unknown field',
    setup: editLine(
      EMB_FILE,
      (r) => 'v' in r,
      (r) => ({ ...r, id: 'x' }),
    ),
    field: 'id',
  },
  {
    id: 'header of another encoder',
    setup: editLine(
      EMB_FILE,
      (r) => r.type === 'embeddings',
      (r) => ({ ...r, encoder: 'use-lite-512' }),
    ),
    field: 'encoder',
  },
  {
    id: 'duplicate vector',
    setup: editLine(
      EMB_FILE,
      (r) => 'v' in r,
      (r) => `${JSON.stringify(r)}\n${JSON.stringify(r)}`,
    ),
    field: '',
  },
  { id: 'a folder in place of the file', setup: folderInstead(EMB_FILE), field: '' },
];

const embeddingCases: CorpusCase[] = EMB_DAMAGES.flatMap((d) => {
  const error = String.raw`(bof-256\.jsonl|embedding)` + (d.field ? `.*\\b${d.field}\\b` : '');
  return [
    { id: `embeddings: ${d.id} (validate)`, kind: 'embeddings', setup: d.setup, args: validateArgs, code: 1, error },
    { id: `embeddings: ${d.id} (train)`, kind: 'embeddings', setup: d.setup, args: trainArgs, code: 1, error },
  ];
});
// Embeddings are keyed by the hash of their text: a text without a vector (missing, or its text
// edited) is no damage but work left, computed at the next use; `cache validate` says so (exit 0).
embeddingCases.push(
  {
    id: 'embeddings: a missing vector is reported (validate)',
    kind: 'embeddings',
    setup: editLine(
      EMB_FILE,
      (r) => 'v' in r,
      () => undefined,
    ),
    args: validateArgs,
    code: 0,
    error: String.raw`bof-256\.jsonl.*\b1 of .* texts have no vector`,
  },
  {
    id: 'embeddings: a stale vector (its text edited) is reported (validate)',
    kind: 'embeddings',
    setup: editLine(CACHE_FILE, type('response'), (r) => ({ ...r, text: `${r.text} Edited.` })),
    args: validateArgs,
    code: 0,
    error: String.raw`bof-256\.jsonl:\d+: sha256: .*no longer holds`,
  },
);

// --- config files --------------------------------------------------------------------------------

const CONFIG_DAMAGES: { id: string; content: string | Buffer; field: string }[] = [
  { id: 'unknown key', content: '{"epochz": 2}', field: 'epochz' },
  { id: 'lr -1', content: '{"lr": -1}', field: 'lr' },
  { id: 'epochs 0', content: '{"epochs": 0}', field: 'epochs' },
  { id: 'batchSize 0', content: '{"batchSize": 0}', field: 'batchSize' },
  { id: 'beta1 1', content: '{"beta1": 1}', field: 'beta1' },
  { id: 'rounds 1', content: '{"rounds": 1}', field: 'rounds' },
  { id: 'targetCost 2', content: '{"targetCost": 2}', field: 'targetCost' },
  { id: 'entropyBonus -1', content: '{"entropyBonus": -1}', field: 'entropyBonus' },
  { id: 'epochs as a string', content: '{"epochs": "3"}', field: 'epochs' },
  { id: 'conditioning as a string', content: '{"conditioning": "yes"}', field: 'conditioning' },
  { id: 'unknown encoder', content: '{"encoder": "xyz"}', field: 'encoder' },
  { id: 'rloo with one rollout', content: '{"baseline": "rloo", "rollouts": 1}', field: 'baseline|rollouts' },
  { id: 'bad JSON', content: '{"epochs": 2,', field: '' },
  { id: 'empty file', content: '', field: '' },
  { id: 'an array', content: '[{"epochs": 2}]', field: '' },
  { id: 'invalid UTF-8', content: Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d]), field: 'UTF-8' },
];

const configCases: CorpusCase[] = [
  ...CONFIG_DAMAGES.map(
    (d): CorpusCase => ({
      id: `config: ${d.id} (train)`,
      kind: 'config',
      setup: replaceFile('bad.json', d.content),
      args: [...trainArgs.slice(0, 3), '--config', 'bad.json', '--out', 'new-run'],
      code: 1,
      error: String.raw`bad\.json` + (d.field ? `.*\\b(${d.field})\\b` : ''),
    }),
  ),
  ...CONFIG_DAMAGES.slice(0, 3).map(
    (d): CorpusCase => ({
      id: `config: ${d.id} (main)`,
      kind: 'config',
      setup: replaceFile('bad.json', d.content),
      args: ['main', '--cache', INPUT.cache, '--seeds', '1', '--config', 'bad.json', '--out', 'job'],
      code: 1,
      error: String.raw`bad\.json.*\b${d.field}\b`,
    }),
  ),
  {
    id: 'config: a file that does not exist',
    kind: 'config',
    args: [...trainArgs.slice(0, 3), '--config', 'missing.json', '--out', 'new-run'],
    code: 1,
    error: String.raw`missing\.json`,
  },
  {
    id: 'config: a folder',
    kind: 'config',
    setup: (ws) => void mkdirSync(join(ws, 'folder.json')),
    args: [...trainArgs.slice(0, 3), '--config', 'folder.json', '--out', 'new-run'],
    code: 1,
    error: String.raw`folder\.json`,
  },
  {
    id: 'config: a byte-order mark is accepted',
    kind: 'config',
    setup: withBom(INPUT.config),
    args: ['train', '--config', INPUT.config, '--print-config'],
    code: 0,
    error: String.raw`"epochs": 2`,
  },
];

// --- grid files ----------------------------------------------------------------------------------

const grid = (edit: (g: Record<string, unknown>) => unknown) => (ws: string) => {
  const g = JSON.parse(readFileSync(join(ws, INPUT.grid), 'utf8')) as Record<string, unknown>;
  writeFileSync(join(ws, 'bad-grid.json'), JSON.stringify(edit(g)));
};
const GRID_DAMAGES: { id: string; setup: (ws: string) => void; field: string }[] = [
  { id: 'unknown key', setup: grid((g) => ({ ...g, seedz: 2 })), field: 'seedz' },
  { id: 'seeds []', setup: grid((g) => ({ ...g, seeds: [] })), field: 'seeds' },
  { id: 'seeds 0', setup: grid((g) => ({ ...g, seeds: 0 })), field: 'seeds' },
  { id: 'no variants', setup: grid((g) => ({ ...g, variants: [] })), field: 'variants' },
  { id: 'unknown reference', setup: grid((g) => ({ ...g, reference: 'nope' })), field: 'reference' },
  {
    id: 'two variants of one name',
    setup: grid((g) => ({
      ...g,
      variants: [
        { name: 'full', settings: {} },
        { name: 'full', settings: { k: 1 } },
      ],
    })),
    field: 'variants|name',
  },
  { id: 'a variant with an unknown setting', setup: grid((g) => ({ ...g, variants: [{ name: 'full', settings: { kk: 1 } }] })), field: 'kk' },
  { id: 'base epochs 0', setup: grid((g) => ({ ...g, base: { epochs: 0 } })), field: 'epochs' },
  { id: 'no caches', setup: grid((g) => ({ ...g, caches: [] })), field: 'caches' },
  { id: 'a cache that does not exist', setup: grid((g) => ({ ...g, caches: ['no-such-cache'] })), field: 'no-such-cache' },
  { id: 'bad JSON', setup: replaceFile('bad-grid.json', '{"name": "x", '), field: '' },
  { id: 'empty file', setup: replaceFile('bad-grid.json', ''), field: '' },
];
const gridCases: CorpusCase[] = [
  ...GRID_DAMAGES.map(
    (d): CorpusCase => ({
      id: `grid: ${d.id}`,
      kind: 'grid',
      setup: d.setup,
      args: ['ablate', '--grid', 'bad-grid.json', '--out', 'grid-out'],
      code: 1,
      error: String.raw`bad-grid\.json` + (d.field ? `.*\\b(${d.field})\\b` : ''),
    }),
  ),
  {
    id: 'grid: a byte-order mark is accepted',
    kind: 'grid',
    setup: withBom(INPUT.grid),
    args: ['ablate', '--grid', INPUT.grid, '--out', 'grid-out', '--dry-run'],
    code: 0,
    error: 'full',
  },
];

// --- checkpoints ---------------------------------------------------------------------------------

const checkpoint = (edit: (c: Record<string, unknown>) => unknown) => (ws: string) => {
  const path = join(ws, CHECKPOINT);
  const c = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
  const edited = edit(c);
  writeFileSync(path, typeof edited === 'string' ? edited : JSON.stringify(edited));
};
type Tensors = Record<string, { shape: number[]; data: string }>;
const tensor = (name: string, edit: (t: { shape: number[]; data: string }) => { shape: number[]; data: string }) =>
  checkpoint((c) => {
    const engine = c.engine as { weights: Tensors };
    return { ...c, engine: { ...engine, weights: { ...engine.weights, [name]: edit(engine.weights[name]) } } };
  });
const CHECKPOINT_DAMAGES: { id: string; setup: (ws: string) => void; field: string }[] = [
  { id: 'wrong width (shape.hidden 32)', setup: checkpoint((c) => ({ ...c, shape: { ...(c.shape as object), hidden: 32 } })), field: 'hidden|shape|b1' },
  { id: 'half a tensor', setup: tensor('b1.Wg', (t) => ({ ...t, data: t.data.slice(0, Math.floor(t.data.length / 8) * 4) })), field: 'b1\\.Wg' },
  { id: 'a NaN weight', setup: tensor('head.w', (t) => ({ ...t, data: editVector(t.data, nanAt0) })), field: 'head\\.w' },
  { id: 'epoch of the wrong type', setup: checkpoint((c) => ({ ...c, epoch: 'one' })), field: 'epoch' },
  { id: 'cut off halfway', setup: checkpoint((c) => JSON.stringify(c).slice(0, 2000)), field: '' },
  { id: 'empty', setup: checkpoint(() => ''), field: '' },
  { id: 'not a checkpoint', setup: checkpoint((c) => ({ ...c, format: 'cpp-something' })), field: 'format' },
];
const checkpointCommands: [string, string[]][] = [
  ['eval', ['eval', '--cache', INPUT.cache, '--policy', CHECKPOINT, '--methods', 'full']],
  ['export', ['export', CHECKPOINT, '--out', 'exported']],
  ['train --resume', ['train', '--resume', '--out', INPUT.run]],
];
const checkpointCases: CorpusCase[] = [
  ...CHECKPOINT_DAMAGES.flatMap((d) =>
    checkpointCommands.map(
      ([name, args]): CorpusCase => ({
        id: `checkpoint: ${d.id} (${name})`,
        kind: 'checkpoint',
        setup: d.setup,
        args,
        code: 1,
        error: String.raw`checkpoint\.json` + (d.field ? `.*\\b(${d.field})\\b` : ''),
      }),
    ),
  ),
  ...checkpointCommands.slice(0, 2).map(
    ([name, args]): CorpusCase => ({
      id: `checkpoint: pretty-printed, valid, is accepted (${name})`,
      kind: 'checkpoint',
      setup: checkpoint((c) => JSON.stringify(c, null, 2)),
      args,
      code: 0,
      error: '.',
      writes: ['exported'],
    }),
  ),
];

// --- flags ---------------------------------------------------------------------------------------

const evalRandom = ['eval', '--cache', INPUT.cache, '--methods', 'random'];
const recordRandom = ['record', '--cache', INPUT.cache, '--method', 'random', '--split', 'train'];
const FLAG_CASES: { args: string[]; flag: string; code?: number }[] = [
  { args: [...evalRandom, '--keep-rate', '2'], flag: 'keep-rate' },
  { args: [...evalRandom, '--keep-rate', '-0.5'], flag: 'keep-rate' },
  { args: [...recordRandom, '--keep-rate', '2'], flag: 'keep-rate' },
  { args: [...trainArgs, '--rounds', '1'], flag: 'rounds' },
  { args: [...trainArgs, '--epochs', '0'], flag: 'epochs' },
  { args: [...trainArgs, '--batch-size', '-4'], flag: 'batch-size' },
  { args: [...trainArgs, '--lr', '0'], flag: 'lr' },
  { args: [...trainArgs, '--threads', '0'], flag: 'threads' },
  { args: [...trainArgs, '--seed', '1.5'], flag: 'seed' },
  { args: [...trainArgs, '--epochs', 'many'], flag: 'epochs' },
  { args: [...trainArgs, '--epochz', '3'], flag: 'epochz', code: 2 },
  { args: ['ablate', '--grid', INPUT.grid, '--out', 'grid-out', '--workers', '0'], flag: 'workers' },
  { args: ['ablate', '--grid', INPUT.grid, '--out', 'grid-out', '--rounds', '1'], flag: 'rounds' },
  { args: ['main', '--cache', INPUT.cache, '--config', INPUT.config, '--out', 'job', '--seeds', '0'], flag: 'seeds' },
  { args: ['main', '--cache', INPUT.cache, '--config', INPUT.config, '--out', 'job', '--seeds', '-1'], flag: 'seeds' },
  { args: ['main', '--cache', INPUT.cache, '--config', INPUT.config, '--out', 'job', '--workers', '0'], flag: 'workers' },
  { args: ['cache', 'gen', '--out', 'generated', '--questions', '-5'], flag: 'questions' },
  { args: ['cache', 'gen', '--out', 'generated', '--questions', '0'], flag: 'questions' },
  { args: ['cache', 'gen', '--out', 'generated', '--questions', '2.5'], flag: 'questions' },
  { args: ['cache', 'gen', '--out', 'generated', '--quesstions', '5'], flag: 'quesstions', code: 2 },
  { args: ['baselines', '--cache', INPUT.cache, '--rounds', '0'], flag: 'rounds' },
  { args: ['eval', '--cache', INPUT.cache, '--methods', 'full', '--split', 'dev'], flag: 'split' },
  { args: [...recordRandom, '--max-calls', '-1'], flag: 'max-calls' },
  { args: [...recordRandom, '--concurrency', '0'], flag: 'concurrency' },
  { args: ['eval', '--cache', INPUT.cache, '--methods', 'full', '--policy', 'missing.json'], flag: 'missing\\.json' },
  { args: ['export', 'missing.json'], flag: 'missing\\.json' },
  { args: ['train', '--resume', '--out', 'nowhere'], flag: 'nowhere' },
  { args: ['cache', 'validate', 'nowhere'], flag: 'nowhere' },
  { args: ['baselines', '--cache', 'nowhere'], flag: 'nowhere' },
];
/** A flag as the error may name it: `--batch-size`, or its setting `batchSize`. */
const flagNames = (flag: string) => (/^[a-z-]+$/.test(flag) ? `(--${flag}|\\b${flag.replace(/-(\w)/g, (_, c: string) => c.toUpperCase())}\\b)` : flag);
const flagCases: CorpusCase[] = FLAG_CASES.map((f) => ({
  id: `flags: ${f.args.join(' ')}`,
  kind: 'flags',
  args: f.args,
  code: f.code ?? 'nonzero',
  error: flagNames(f.flag),
}));

// --- import files --------------------------------------------------------------------------------

const importArgs = (file: string, ...more: string[]) => ['cache', 'import', '--format', 'du', file, '--out', 'imported', '--model', 'gpt-3.5-turbo', ...more];
const priced = ['--price-in', '0.5', '--price-out', '1.5'];
const dylan = (edit: (text: string) => string | Buffer) => (ws: string) =>
  writeFileSync(join(ws, 'bad-dylan.json'), edit(readFileSync(join(ws, INPUT.dylan), 'utf8')));
const IMPORT_CASES: Omit<CorpusCase, 'kind' | 'code'>[] = [
  { id: 'import: bad JSON', setup: dylan((t) => t.replace('{', '{,')), args: importArgs('bad-dylan.json', ...priced), error: String.raw`bad-dylan\.json` },
  {
    id: 'import: a file cut inside a transcript',
    setup: dylan((t) => t.slice(0, Math.floor(t.length / 2))),
    args: importArgs('bad-dylan.json', ...priced),
    error: String.raw`bad-dylan\.json`,
  },
  { id: 'import: empty file', setup: dylan(() => ''), args: importArgs('bad-dylan.json', ...priced), error: String.raw`bad-dylan\.json` },
  { id: 'import: a list, not an object', setup: dylan((t) => `[${t}]`), args: importArgs('bad-dylan.json', ...priced), error: String.raw`bad-dylan\.json` },
  {
    id: 'import: invalid UTF-8',
    setup: dylan((t) => Buffer.concat([Buffer.from(t.slice(0, 100)), Buffer.from([0xff, 0xfe]), Buffer.from(t.slice(100))])),
    args: importArgs('bad-dylan.json', ...priced),
    error: String.raw`bad-dylan\.json.*UTF-8`,
  },
  { id: 'import: a file that does not exist', args: importArgs('missing.json', ...priced), error: String.raw`missing\.json` },
  {
    id: 'import: a folder',
    setup: (ws) => void mkdirSync(join(ws, 'folder.json')),
    args: importArgs('folder.json', ...priced),
    error: String.raw`folder\.json`,
  },
  { id: 'import: --price-in -1', args: importArgs(INPUT.dylan, '--price-in', '-1', '--price-out', '1.5'), error: '--price-in' },
  { id: 'import: --price-in 1e308', args: importArgs(INPUT.dylan, '--price-in', '1e308', '--price-out', '1.5'), error: '--price-in' },
  { id: 'import: --price-in abc', args: importArgs(INPUT.dylan, '--price-in', 'abc', '--price-out', '1.5'), error: '--price-in' },
  { id: 'import: --price-in without --price-out', args: importArgs(INPUT.dylan, '--price-in', '0.5'), error: '--price-(in|out)' },
  {
    id: 'import: a prices file of bad JSON',
    setup: replaceFile('bad-prices.json', '{"gpt-3.5-turbo": '),
    args: importArgs(INPUT.dylan, '--prices', 'bad-prices.json'),
    error: String.raw`bad-prices\.json`,
  },
  {
    id: 'import: a prices file without the model',
    setup: replaceFile('bad-prices.json', '{"gpt-4": {"in": 1, "out": 2}}'),
    args: importArgs(INPUT.dylan, '--prices', 'bad-prices.json'),
    error: String.raw`gpt-3\.5-turbo`,
  },
  {
    id: 'import: a negative price in the prices file',
    setup: replaceFile('bad-prices.json', '{"gpt-3.5-turbo": {"in": -1, "out": 2}}'),
    args: importArgs(INPUT.dylan, '--prices', 'bad-prices.json'),
    error: String.raw`bad-prices\.json.*\bin\b`,
  },
  {
    id: 'import: a splits file with an unknown split',
    setup: replaceFile('splits.json', '{"algebra_1_248_4_3/1": "dev"}'),
    args: importArgs(INPUT.dylan, ...priced, '--splits', 'splits.json'),
    error: String.raw`splits\.json`,
  },
  { id: 'import: an invalid --peer-marker', args: importArgs(INPUT.dylan, ...priced, '--peer-marker', '(unclosed'), error: '--peer-marker' },
  {
    id: 'import: over an existing cache',
    args: [...importArgs(INPUT.dylan, ...priced).slice(0, 6), INPUT.cache, ...importArgs(INPUT.dylan, ...priced).slice(7)],
    error: String.raw`cache.*(exists|already|--force)`,
  },
];
const importCases: CorpusCase[] = IMPORT_CASES.map((c) => ({ ...c, kind: 'import', code: 1, available: () => existsSync(DYLAN) }));

export const CORPUS: CorpusCase[] = [...cacheCases, ...embeddingCases, ...configCases, ...gridCases, ...checkpointCases, ...flagCases, ...importCases];

export interface CorpusResult {
  id: string;
  kind: CorpusCase['kind'];
  /** Expected exit code met ('nonzero': any but 0). */
  codeOk: boolean;
  code: number | null;
  /** The output says what `error` asks (file, line, field, or flag). */
  named: boolean;
  stackTrace: boolean;
  /** zod's issue list, or for a setting zod's own wording, instead of a sentence (issue 16, point 9). */
  rawSchema: boolean;
  /** Files created, changed or removed in the case's folder (+, ~, -). */
  changed: string[];
  said: string;
  hung: boolean;
}

export const casePassed = (r: CorpusResult) => r.codeOk && r.named && !r.stackTrace && !r.rawSchema && r.changed.length === 0 && !r.hung;

/**
 * zod's issue list printed as JSON, anywhere; and for settings (config, grid, flags, import flags)
 * zod's own wording ("Too small: expected number to be >0") where a sentence should say it.
 */
const rawSchema = (kind: CorpusCase['kind'], out: string) =>
  /"code": "(too_small|too_big|invalid_type|invalid_value|custom)"/.test(out) ||
  (['config', 'grid', 'flags', 'import'].includes(kind) && /Too (small|big): expected|Invalid input: expected/.test(out));

/** Run one case in a fresh copy of the inputs. */
export async function runCase(c: CorpusCase, inputs: string): Promise<CorpusResult> {
  const ws = freshDir('corpus', slug(c.id));
  copyTree(inputs, ws, [INPUT.plain, INPUT.sparse]); // (no case reads them)
  const vars = c.setup?.(ws) ?? {};
  const before = snapshot(ws, c.writes);
  const run = await cli(c.args, { cwd: ws, timeoutMs: 180_000 });
  const error = c.error.replace(/\{(\w+)\}/g, (_, k: string) => String(vars[k]));
  const result: CorpusResult = {
    id: c.id,
    kind: c.kind,
    code: run.code,
    codeOk: c.code === 'nonzero' ? run.code !== 0 && run.code !== null : run.code === c.code,
    named: new RegExp(error, 'i').test(run.out),
    stackTrace: STACK_TRACE.test(run.out),
    rawSchema: rawSchema(c.kind, run.out),
    changed: changes(before, snapshot(ws, c.writes)),
    said: excerpt(run.out),
    hung: run.hung,
  };
  if (casePassed(result)) rmSync(ws, { recursive: true, force: true });
  return result;
}
