// Corpus cases of kind 'embeddings': damages of an embeddings file (its header, a vector's length
// and values, bad JSON, unknown fields, duplicates, a folder in its place), each read by `cache
// validate` and `train`; and the work left (a missing or stale vector) that `cache validate` reports.
import { CACHE_FILE, EMB_FILE, editLine, type, folderInstead, editVector, nanAt0, validateArgs, trainArgs, type Vars, type CorpusCase } from './case.ts';

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

export const embeddingCases: CorpusCase[] = EMB_DAMAGES.flatMap((d) => {
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
