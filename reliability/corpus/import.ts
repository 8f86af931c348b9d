// Corpus cases of kind 'import': damaged import files for `cache import` (bad JSON, cut files,
// bad bytes, files that do not exist), bad price, prices, splits and peer-marker arguments, and an
// import over an existing cache. They run only where the DyLAN records are at hand.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DYLAN, INPUT } from '../inputs.ts';
import { replaceFile, type CorpusCase } from './case.ts';

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
export const importCases: CorpusCase[] = IMPORT_CASES.map((c) => ({ ...c, kind: 'import', code: 1, available: () => existsSync(DYLAN) }));
