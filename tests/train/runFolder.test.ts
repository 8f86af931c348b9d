// What a run folder tells about itself: provenance (code, command, times, versions, cache hash,
// what computed), a log line per step with its wall time, and a TensorBoard event file whose
// records (framing, CRCs, values) are read back here without the writer's code.
import CRC32C from 'crc-32/crc32c';
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { cacheFilePath } from '../../src/cache/load.ts';
import { loadCheckpoint } from '../../src/policy/artifact.ts';
import { readProvenance } from '../../src/provenance.ts';
import { Event } from '../../src/tensorboard.ts';
import { resolveConfig } from '../../train/config.ts';
import { readLog, runFiles } from '../../train/runFolder.ts';
import { train } from '../../train/trainer.ts';
import { killHolder, lockHolder } from '../fixtures/lockHolder.ts';
import { writeTinyCache } from '../fixtures/tinyWorld.ts';
import { BUILT_CLI as CLI } from '../fixtures/cli.ts';
import { METHOD } from '../fixtures/method.ts';

const repo = resolve(import.meta.dirname, '../..');
const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, encoding: 'utf8' }).trim();

/** TensorFlow's record framing, read independently: [length, masked crc(length), data, masked crc(data)]. */
function readRecords(file: string): Buffer[] {
  const masked = (crc: number) => ((((crc >>> 0) >>> 15) | ((crc >>> 0) << 17)) + 0xa282ead8) >>> 0;
  const bytes = readFileSync(file);
  const records: Buffer[] = [];
  for (let at = 0; at < bytes.length; ) {
    const length = Number(bytes.readBigUInt64LE(at));
    expect(bytes.readUInt32LE(at + 8)).toBe(masked(CRC32C.buf(bytes.subarray(at, at + 8))));
    const data = bytes.subarray(at + 12, at + 12 + length);
    expect(bytes.readUInt32LE(at + 12 + length)).toBe(masked(CRC32C.buf(data)));
    records.push(data);
    at += 12 + length + 4;
  }
  return records;
}

describe('a run folder', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cpp-run-'));
  writeTinyCache(join(dir, 'cache'));
  const config = resolveConfig({
    ...METHOD,
    cache: join(dir, 'cache'),
    out: join(dir, 'run'),
    rounds: 2,
    miss: 'error',
    batchSize: 6,
    hidden: 16,
    epochs: 2,
    evalEvery: 1,
  });
  const files = runFiles(config.out);
  const resume = () => spawnSync(process.execPath, [...CLI, 'train', '--resume', '--out', config.out], { cwd: dir, encoding: 'utf8' });
  let resumed: ReturnType<typeof resume>;
  beforeAll(async () => {
    await train(config, { log: () => {}, stopAfterEpochs: 1 });
    // The rest as a user runs it: `npx cpp-workbench train --resume`.
    resumed = resume();
  }, 600_000);

  it('holds provenance: code version, command, times, versions, cache hash, what computed', () => {
    const p = readProvenance(files.provenance);
    expect(p.sessions).toHaveLength(2); // the first session and the resumed one
    for (const s of p.sessions) {
      expect(s.code.commit).toBe(git('rev-parse', 'HEAD'));
      expect(s.code.dirty).toBe(git('status', '--porcelain') !== '');
      expect(s.versions.node).toBe(process.versions.node);
      expect(s.versions['onnxruntime-node']).toMatch(/^\d+\.\d+\.\d+/);
      expect(s.versions['@tensorflow/tfjs']).toMatch(/^\d+\.\d+\.\d+/);
      expect(s.caches).toEqual([
        {
          path: cacheFilePath(config.cache),
          bytes: readFileSync(cacheFilePath(config.cache)).length,
          sha256: createHash('sha256')
            .update(readFileSync(cacheFilePath(config.cache)))
            .digest('hex'),
        },
      ]);
      const embeddings = join(config.cache, 'embeddings', 'bof-256.jsonl');
      expect(s.embeddings.map((e) => [e.path, e.sha256])).toEqual([[embeddings, createHash('sha256').update(readFileSync(embeddings)).digest('hex')]]);
      expect(s.compute).toEqual({ engine: 'onnx', backend: null, threads: 1 }); // what ran, not "auto"
      expect(Date.parse(s.ended!)).toBeGreaterThanOrEqual(Date.parse(s.started));
      expect(s.command.length).toBeGreaterThan(0);
    }
    expect(p.sessions.map((s) => s.epochs.map((e) => e.epoch))).toEqual([[1], [2]]);
    expect(p.sessions[1].command.slice(1)).toEqual(['train', '--resume', '--out', config.out]);
    expect(p.sessions[1].cwd).toBe(dir);
    for (const s of p.sessions) for (const e of s.epochs) expect(e.seconds).toBeGreaterThan(0);
  });

  it('resumes with no note about settings its own version saved (was: "saved without settings endpoints, agents")', () => {
    expect(resumed.status).toBe(0);
    expect(resumed.stderr).toContain('2 epochs from epoch 2');
    expect(resumed.stderr).not.toContain('saved without settings');
  });

  it('--resume of the finished run says it is finished, with its best epoch, and writes nothing (was: "2 epochs from epoch 3")', () => {
    const before = readFileSync(files.provenance, 'utf8');
    const again = resume();
    expect(again.status).toBe(0);
    const best = loadCheckpoint(files.best).best!;
    // best.json is the checkpoint of its best epoch (written together with that epoch's checkpoint.json).
    expect(loadCheckpoint(files.best).epoch).toBe(best.epoch);
    expect(again.stdout.trim()).toBe(
      `${config.out} is finished: 2 of 2 epochs trained; best validation epoch ${best.epoch}: accuracy ${(100 * best.accuracy).toFixed(1)}%, ` +
        `cost ${best.costPct.toFixed(1)}% (${files.best}). Nothing to resume. To train longer, start a new run from its settings: ` +
        `npx cpp-workbench train --config ${files.config} --epochs N --out OTHER`,
    );
    expect(readFileSync(files.provenance, 'utf8')).toBe(before);
  }, 600_000);

  it('--resume of a finished run whose process was killed before its plot writes learning-curves.svg and says it is finished', () => {
    const before = readFileSync(files.provenance, 'utf8');
    const plot = readFileSync(files.curves, 'utf8');
    rmSync(files.curves);
    const again = resume();
    expect(again.status).toBe(0);
    expect(again.stdout).toContain(`${config.out} is finished: 2 of 2 epochs trained`);
    expect(readFileSync(files.curves, 'utf8')).toBe(plot);
    expect(readFileSync(files.provenance, 'utf8')).toBe(before);
  }, 600_000);

  it('logs every step with its wall time', () => {
    const log = readLog(config.out);
    expect(log.map((l) => `${l.type} ${l.epoch}`)).toEqual(['step 1', 'step 1', 'step 1', 'eval 1', 'step 2', 'step 2', 'step 2', 'eval 2']);
    for (const l of log) {
      expect(Date.parse(l.time)).not.toBeNaN();
      expect(l.seconds).toBeGreaterThanOrEqual(0);
    }
  });

  it('writes TensorBoard event files whose records and scalars read back', () => {
    const eventFiles = readdirSync(config.out)
      .filter((f) => f.startsWith('events.out.tfevents.'))
      .sort();
    expect(eventFiles).toHaveLength(2); // one per session
    const events = eventFiles.flatMap((f) =>
      readRecords(join(config.out, f)).map(
        (r) =>
          Event.toObject(Event.decode(r), { longs: Number }) as {
            step: number;
            wallTime: number;
            fileVersion?: string;
            summary?: { value: { tag: string; simpleValue: number }[] };
            sessionLog?: { status: number };
          },
      ),
    );
    expect(events.filter((e) => e.fileVersion)).toHaveLength(2);
    expect(events.every((e) => e.fileVersion === undefined || e.fileVersion === 'brain.Event:2')).toBe(true);
    // Each session opens with a START at its first step (TensorBoard drops later steps of an interrupted session).
    expect(events.filter((e) => e.sessionLog).map((e) => [e.sessionLog!.status, e.step])).toEqual([
      [1, 1],
      [1, 4],
    ]);
    const scalars = events.filter((e) => e.summary);
    const log = readLog(config.out);
    expect(scalars).toHaveLength(log.length);
    scalars.forEach((e, i) => {
      const line = log[i];
      expect(e.step).toBe(line.step);
      expect(e.wallTime * 1000).toBeCloseTo(Date.parse(line.time), -1);
      const value = Object.fromEntries(e.summary!.value.map((v) => [v.tag, v.simpleValue]));
      const prefix = line.type === 'step' ? 'train' : 'validation';
      for (const key of line.type === 'step'
        ? ['loss', 'entropy', 'meanReward', 'meanReturn', 'keepRate', 'accuracy', 'costPct', 'tier_exact']
        : ['accuracy', 'costPct', 'keptEdges', 'tier_exact'])
        expect(value[`${prefix}/${key}`]).toBeCloseTo(line[key as keyof typeof line] as number, 5); // float32
    });
  });
});

/** Every file under `dir` with its sha256, to tell whether anything there changed. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of readdirSync(dir, { recursive: true }) as string[]) {
    const path = join(dir, name);
    if (statSync(path).isFile()) out[name] = createHash('sha256').update(readFileSync(path)).digest('hex');
  }
  return out;
}

describe('a run folder is self-contained and survives a kill at any point', () => {
  const setup = () => {
    const dir = mkdtempSync(join(tmpdir(), 'cpp-run-'));
    writeTinyCache(join(dir, 'cache'));
    const settings = { ...METHOD, cache: join(dir, 'cache'), rounds: 2, miss: 'error' as const, batchSize: 6, hidden: 16, epochs: 2, evalEvery: 1 };
    return { dir, settings, config: (out: string) => resolveConfig({ ...settings, out: join(dir, out) }) };
  };
  const quiet = { log: () => {} };

  it('resuming a copied folder writes only into the copy; a moved folder resumes where it is now', async () => {
    const { dir, config } = setup();
    await train(config('run'), { ...quiet, stopAfterEpochs: 1 });
    const before = snapshot(join(dir, 'run'));
    cpSync(join(dir, 'run'), join(dir, 'copy'), { recursive: true });
    // The resumed settings come from the copy's checkpoint, which was saved in the original folder.
    await train(config('copy'), { ...quiet, resume: true });
    expect(snapshot(join(dir, 'run'))).toEqual(before);
    expect(readLog(join(dir, 'copy')).map((l) => `${l.type} ${l.epoch}`)).toEqual([
      'step 1',
      'step 1',
      'step 1',
      'eval 1',
      'step 2',
      'step 2',
      'step 2',
      'eval 2',
    ]);
    expect(JSON.parse(readFileSync(runFiles(join(dir, 'copy')).config, 'utf8')).out).toBe(join(dir, 'copy'));
    renameSync(join(dir, 'run'), join(dir, 'moved'));
    await train(config('moved'), { ...quiet, resume: true });
    expect(existsSync(join(dir, 'run'))).toBe(false);
    expect(readLog(join(dir, 'moved'))).toHaveLength(8);
  }, 600_000);

  it('the first checkpoint is on disk before the first log line; a folder killed before it starts anew, once', async () => {
    const { config } = setup();
    const c = config('run');
    const files = runFiles(c.out);
    let checkpointFirst: boolean | undefined;
    // The trainer says "training on ..." once the log is open, before its first line.
    await train(c, {
      log: (line) => void (line.startsWith('training on') && (checkpointFirst = existsSync(files.checkpoint) && !existsSync(files.jsonl))),
      stopAfterEpochs: 1,
    });
    expect(checkpointFirst).toBe(true);
    // A run killed after its first log lines but before any checkpoint (as runs were before): a log and no checkpoint.
    rmSync(files.checkpoint);
    await expect(train(c, { ...quiet, resume: true })).rejects.toThrow(
      `${c.out} holds no checkpoint to resume: the run was stopped before its first ` +
        `checkpoint; start it again without --resume (its settings: --config ${files.config})`,
    );
    await train(c, quiet);
    expect(readLog(c.out).map((l) => `${l.type} ${l.epoch}`)).toEqual(['step 1', 'step 1', 'step 1', 'eval 1', 'step 2', 'step 2', 'step 2', 'eval 2']);
    expect(
      readFileSync(files.csv, 'utf8')
        .split('\n')
        .filter((l) => l.startsWith('type,')).length,
    ).toBe(1);
  }, 600_000);

  it('temporary files of killed writes are removed by the next run there', async () => {
    const { dir, config } = setup();
    const c = config('run');
    await train(c, { ...quiet, stopAfterEpochs: 1 });
    // pid 2^22 + 1 is above Linux's pid_max: the writer is gone.
    writeFileSync(`${runFiles(c.out).checkpoint}.4194305.tmp`, '{"format":"cpp-check');
    mkdirSync(join(c.out, 'export.4194305.tmp'));
    await train(c, { ...quiet, resume: true });
    expect(readdirSync(c.out).filter((f) => f.endsWith('.tmp'))).toEqual([]);
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  }, 600_000);

  it('a second writer of a run folder is refused, naming the holder', async () => {
    const { config } = setup();
    const c = config('run');
    const holder = await lockHolder(c.out);
    try {
      await expect(train(c, quiet)).rejects.toThrow(`${c.out} is being written by another process (a test holder: pid ${holder.pid} on `);
      expect(readdirSync(c.out)).toEqual(['.lock']);
    } finally {
      await killHolder(holder);
    }
  }, 600_000);

  it('a refused run creates nothing; a folder holding a run is replaced only with force', async () => {
    const { dir, settings, config } = setup();
    await expect(train(resolveConfig({ ...settings, out: join(dir, 'bad'), agents: ['a1', 'nobody'] }), quiet)).rejects.toThrow(/nobody/);
    expect(existsSync(join(dir, 'bad'))).toBe(false);
    const c = config('run');
    await train(c, { ...quiet, stopAfterEpochs: 1 });
    await expect(train(c, quiet)).rejects.toThrow(
      `${c.out} already holds a run: pass --resume to continue it, --force to train it anew (its files are replaced), or choose another --out`,
    );
    await train(c, { ...quiet, force: true });
    expect(readLog(c.out)).toHaveLength(8);
  }, 600_000);
});
