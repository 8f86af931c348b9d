// Corpus cases of kind 'checkpoint': damaged training checkpoints (wrong width, cut tensors, NaN
// weights, wrong types, cut files, another format, damaged settings saved inside) read by `eval`,
// `export` and `train --resume`, and a pretty-printed checkpoint that must be accepted.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { INPUT } from '../inputs.ts';
import { CHECKPOINT, editVector, nanAt0, type CorpusCase } from './case.ts';

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
const saved = (edit: (s: Record<string, unknown>) => Record<string, unknown>) =>
  checkpoint((c) => ({ ...c, config: edit(c.config as Record<string, unknown>) }));
const CHECKPOINT_DAMAGES: { id: string; setup: (ws: string) => void; field: string }[] = [
  { id: 'wrong width (shape.hidden 32)', setup: checkpoint((c) => ({ ...c, shape: { ...(c.shape as object), hidden: 32 } })), field: 'hidden|shape|b1' },
  { id: 'half a tensor', setup: tensor('b1.Wg', (t) => ({ ...t, data: t.data.slice(0, Math.floor(t.data.length / 8) * 4) })), field: 'b1\\.Wg' },
  { id: 'a NaN weight', setup: tensor('head.w', (t) => ({ ...t, data: editVector(t.data, nanAt0) })), field: 'head\\.w' },
  { id: 'epoch of the wrong type', setup: checkpoint((c) => ({ ...c, epoch: 'one' })), field: 'epoch' },
  { id: 'cut off halfway', setup: checkpoint((c) => JSON.stringify(c).slice(0, 2000)), field: '' },
  { id: 'empty', setup: checkpoint(() => ''), field: '' },
  { id: 'not a checkpoint', setup: checkpoint((c) => ({ ...c, format: 'cpp-something' })), field: 'format' },
  // The training settings saved inside: the schema of a config file, before anything is made from them.
  { id: 'saved settings: lr "fast"', setup: saved((s) => ({ ...s, lr: 'fast' })), field: 'config\\.lr' },
  { id: 'saved settings: no cache', setup: saved(({ cache: _, ...s }) => s), field: 'config\\.cache' },
  { id: 'saved settings: an unknown setting', setup: saved((s) => ({ ...s, speed: 'max' })), field: 'config\\.speed' },
  { id: 'saved settings: rloo with one rollout', setup: saved((s) => ({ ...s, baseline: 'rloo', rollouts: 1 })), field: 'rollouts' },
];
const checkpointCommands: [string, string[]][] = [
  ['eval', ['eval', '--cache', INPUT.cache, '--policy', CHECKPOINT, '--methods', 'full']],
  ['export', ['export', CHECKPOINT, '--out', 'exported']],
  ['train --resume', ['train', '--resume', '--out', INPUT.run]],
];
export const checkpointCases: CorpusCase[] = [
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
