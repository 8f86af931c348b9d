// Corpus cases of kind 'config': damaged training configs (unknown keys, values out of range or of
// the wrong type, bad JSON or bytes) read by `train` and `main`, a config that does not exist or is
// a folder, and a byte-order mark that must be accepted.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { INPUT } from '../inputs.ts';
import { replaceFile, withBom, trainArgs, type CorpusCase } from './case.ts';

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

export const configCases: CorpusCase[] = [
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
