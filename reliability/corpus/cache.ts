// Corpus cases of kind 'cache': damages of `cache.jsonl` (bad JSON, missing, unknown and mistyped
// fields, unknown references, bad bytes, no file), each read by `cache validate` and (where the cache
// no longer loads) `train`; a byte-order mark that must be accepted, and `cache gen` over a cache.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { INPUT } from '../inputs.ts';
import {
  CACHE_FILE,
  editLine,
  rawLine,
  without,
  type,
  round2,
  replaceFile,
  folderInstead,
  withBom,
  validateArgs,
  trainArgs,
  type Vars,
  type CorpusCase,
} from './case.ts';

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

export const cacheCases: CorpusCase[] = CACHE_DAMAGES.flatMap((d) => {
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
