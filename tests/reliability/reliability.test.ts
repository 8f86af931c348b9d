// The reliability suite, shortened for `npm test` (the whole suite: `npm run
// reliability`, reliability/run.ts): 2 kill -9 trials each of `train` and `cache gen`, a SIGINT and a
// SIGTERM trial of `train`, a disk-full trial of `train` (where a tmpfs can be mounted), every twelfth
// case of the malformed-input corpus (16, of every kind) and the 5 inputs that must be accepted, and
// one concurrency case, through the same modules.
import { beforeAll, describe, expect, it } from 'vitest';
import { CONCURRENCY_CASES, concurrencyCase } from '../../reliability/concurrency.ts';
import { CORPUS, runCase } from '../../reliability/corpus.ts';
import { makeInputs } from '../../reliability/inputs.ts';
import { diskPassed, diskTrials, diskTrialsUnavailable } from '../../reliability/disk.ts';
import { KILL_COMMANDS, killTrials, reference, saidToContinue, slug, stopPassed, trainingPhase, type Reference } from '../../reliability/kill.ts';

// Each command starts Node (and tsx where dist/ is older than a source) and often ONNX Runtime (2-5 s
// on a loaded 2-core machine).
const LONG = 600_000;
let inputs = '';
beforeAll(async () => {
  inputs = await makeInputs(undefined, 'inputs', false); // (no trial here reads the wide inputs)
}, LONG);

const train = KILL_COMMANDS.find((c) => c.name === 'train')!;
/** train's uninterrupted run, made once: the kill -9 and the SIGINT and SIGTERM trials compare with it. */
let trainReference: Promise<Reference> | undefined;
const trainMade = () => (trainReference ??= reference(train, inputs));

describe('kill -9 trials', () => {
  for (const name of ['train', 'cache gen'])
    it(
      `${name}: killed at 2 random moments, the rerun gives the uninterrupted run's files; nothing else changes, nothing is left half-written`,
      async () => {
        const command = KILL_COMMANDS.find((c) => c.name === name)!;
        const { trials } = await killTrials(command, inputs, 2, 'npm test', undefined, false, undefined, command === train ? trainMade() : undefined);
        for (const t of trials) {
          expect(t.killed).toBe(true); // a kill that never landed (the command ended first) tries nothing
          expect(t.finished, JSON.stringify(t.refusals)).toBe(true);
          expect(t.differing).toEqual([]);
          expect(t.outside).toEqual([]);
          expect([...t.unparseableAfterKill, ...t.unparseable]).toEqual([]);
          expect(t.leftoverTemp).toEqual([]);
          expect(t.stackTrace).toBe(false);
          // A refusal (a kill before the first checkpoint: nothing to resume) says what to run instead.
          for (const r of t.refusals) expect(r.said).toMatch(/--force|--resume|again|start/i);
        }
      },
      LONG,
    );
});

describe('SIGINT and SIGTERM trials', () => {
  it(
    'train: stopped after start-up, it exits 130/143 saying the command that continues, leaves no lock or *.tmp; that command finishes the run',
    async () => {
      const { trials } = await killTrials(train, inputs, 1, 'npm test', undefined, false, ['SIGINT', 'SIGTERM'], trainMade());
      for (const t of trials) {
        // The signal landed (the command had not ended), and the stop passed: no branch that may not run.
        expect(t.killed).toBe(true);
        expect(t.stopped).toBeDefined();
        expect(stopPassed(t.signal, t.stopped!), JSON.stringify(t.stopped)).toBe(true);
        expect(t.phase).not.toBe('start-up');
        expect(t.finished, JSON.stringify(t.refusals)).toBe(true);
        expect(t.differing).toEqual([]);
        expect(t.outside).toEqual([]);
        expect(t.leftoverTemp).toEqual([]);
        expect(t.stackTrace).toBe(false);
      }
    },
    LONG,
  );

  it('a trial tells the phase of training from the progress lines said so far', () => {
    const start = 'warning: a small split\ntraining on cache/cache.jsonl (onnx-cpu); 3 epochs from epoch 1; run r\n';
    const epoch1 = 'epoch 1/3: 8/8 (100%), 0s elapsed, finished | loss 0\n';
    const valid1 = 'epoch 1: validation accuracy 93.3%, cost 100.0% of Full-Debate, kept 100.0% of edges (best)\n';
    expect(trainingPhase('warning: a small split\n')).toBe('start-up');
    expect(trainingPhase(start)).toBe('training');
    expect(trainingPhase(start + epoch1)).toBe('evaluation');
    expect(trainingPhase(start + epoch1 + valid1)).toBe('training');
    expect(trainingPhase(start + epoch1.replaceAll('1/3', '3/3') + valid1.replace('epoch 1', 'epoch 3'))).toBe('finishing');
    // One bar over the run: a line every tenth of it, saying the epoch and whether it validates.
    const bar = (epoch: number, status: string) => `train: 10/30 (33%), 2s elapsed, eta 4s | epoch ${epoch}/3 | ${status}\n`;
    expect(trainingPhase(start + bar(1, 'loss 0 keep 1'))).toBe('training');
    expect(trainingPhase(start + bar(2, 'validation'))).toBe('evaluation');
    expect(trainingPhase(start + bar(2, 'validated') + valid1.replace('epoch 1', 'epoch 2'))).toBe('training');
    expect(trainingPhase(start + bar(3, 'validated'))).toBe('finishing');
  });

  it('reads back the command a stopped command says continues it, quoted words included', () => {
    const said = "stopped\nto continue: npx cpp-workbench ablate --grid g.json --out 'my grid' --note 'it'\\''s'\n";
    expect(saidToContinue(said)).toEqual(['ablate', '--grid', 'g.json', '--out', 'my grid', '--note', "it's"]);
    expect(saidToContinue('done\n')).toBeUndefined();
  });
});

describe('disk full', () => {
  const unavailable = diskTrialsUnavailable();
  it.skipIf(unavailable !== null)(
    'train on a tmpfs that fills up: exit 1 naming the path and ENOSPC, nothing half-written or left; ' +
      `with room again the resume gives the uninterrupted run${unavailable ? ` (skipped: ${unavailable})` : ''}`,
    async () => {
      const { trials } = await diskTrials(train, inputs, 1, 'npm test');
      for (const t of trials) expect(diskPassed(t), JSON.stringify(t)).toBe(true);
      expect(trials.filter((t) => t.code === 1).length).toBeGreaterThan(0);
    },
    LONG,
  );
});

describe('malformed-input corpus', () => {
  it('has at least 120 cases refusing bad input, of every kind, with unique folders', () => {
    const refusing = CORPUS.filter((c) => c.code !== 0);
    expect(refusing.length).toBeGreaterThanOrEqual(120);
    expect(new Set(CORPUS.map((c) => c.kind))).toEqual(
      new Set(['cache', 'embeddings', 'config', 'grid', 'checkpoint', 'flags', 'import', 'parquet', 'columns']),
    );
    expect(new Set(CORPUS.map((c) => slug(c.id))).size).toBe(CORPUS.length);
  });

  // Every twelfth case and each accepted input (pretty-printed checkpoints, byte-order marks); of the
  // damaged columns files (each accepted: named and rebuilt) only those every twelfth case picks, as
  // tests/cache/columns.test.ts makes each of them in-process.
  const sample = CORPUS.filter((c, i) => (i % 12 === 0 || (c.code === 0 && c.kind !== 'columns')) && (c.available?.() ?? true));
  it.each(sample.map((c) => [c.id, c] as const))(
    '%s',
    async (_, c) => {
      const r = await runCase(c, inputs);
      expect({ code: r.code, codeOk: r.codeOk, named: r.named, said: r.said }).toMatchObject({ codeOk: true, named: true });
      expect(r.stackTrace).toBe(false);
      expect(r.changed).toEqual([]);
    },
    LONG,
  );
});

describe('concurrency', () => {
  it(
    'a second train into the same --out, started while the first writes, is refused naming its pid; the first finishes',
    async () => {
      const r = await concurrencyCase(CONCURRENCY_CASES[0], inputs);
      expect(r.beside).toBe(true);
      expect({ refused: r.refused, namesPid: r.namesPid }, `the second train said: ${r.said}`).toEqual({ refused: true, namesPid: true });
      expect(r.firstCode).toBe(0);
      expect(r.stackTrace).toBe(false);
      expect(r.unparseable).toEqual([]);
    },
    LONG,
  );
});
