// Corpus cases of kind 'grid': damaged ablation grids (unknown keys, no seeds or variants, unknown
// references, duplicate variants, bad settings, caches that do not exist, bad JSON) read by
// `ablate`, and a byte-order mark that must be accepted.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { INPUT } from '../inputs.ts';
import { replaceFile, withBom, type CorpusCase } from './case.ts';

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
  {
    id: 'rloo over a base of one rollout',
    setup: grid((g) => ({ ...g, base: { ...(g.base as object), rollouts: 1 }, variants: [{ name: 'leave one out', settings: { baseline: 'rloo' } }] })),
    field: 'leave one out',
  },
  { id: 'base epochs 0', setup: grid((g) => ({ ...g, base: { epochs: 0 } })), field: 'epochs' },
  { id: 'no caches', setup: grid((g) => ({ ...g, caches: [] })), field: 'caches' },
  { id: 'a cache that does not exist', setup: grid((g) => ({ ...g, caches: ['no-such-cache'] })), field: 'no-such-cache' },
  { id: 'bad JSON', setup: replaceFile('bad-grid.json', '{"name": "x", '), field: '' },
  { id: 'empty file', setup: replaceFile('bad-grid.json', ''), field: '' },
];
export const gridCases: CorpusCase[] = [
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
