// What a run folder tells about itself: provenance (code, command, times, versions, cache hash,
// what computed), a log line per step with its wall time, and a TensorBoard event file whose
// records (framing, CRCs, values) are read back here without the writer's code.
import CRC32C from 'crc-32/crc32c';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { cacheFilePath } from '../../src/cache/load.ts';
import { readProvenance } from '../../src/provenance.ts';
import { Event } from '../../src/tensorboard.ts';
import { resolveConfig } from '../../train/config.ts';
import { readLog, runFiles } from '../../train/runFolder.ts';
import { train } from '../../train/trainer.ts';
import { writeTinyCache } from './tinyWorld.ts';

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
  const config = resolveConfig({ cache: join(dir, 'cache'), out: join(dir, 'run'), rounds: 2, miss: 'error', batchSize: 6, hidden: 16, epochs: 2, evalEvery: 1 });
  const files = runFiles(config.out);
  beforeAll(async () => {
    await train(config, { log: () => {}, stopAfterEpochs: 1 });
    // The rest as a user runs it: `npx cpp-workbench train --resume`.
    execFileSync(process.execPath, [join(repo, 'bin/cpp-workbench.mjs'), 'train', '--resume', '--out', config.out], { cwd: dir, stdio: 'ignore' });
  }, 120_000);

  it('holds provenance: code version, command, times, versions, cache hash, what computed', () => {
    const p = readProvenance(files.provenance);
    expect(p.sessions).toHaveLength(2); // the first session and the resumed one
    for (const s of p.sessions) {
      expect(s.code.commit).toBe(git('rev-parse', 'HEAD'));
      expect(s.code.dirty).toBe(git('status', '--porcelain') !== '');
      expect(s.versions.node).toBe(process.versions.node);
      expect(s.versions['onnxruntime-node']).toMatch(/^\d+\.\d+\.\d+/);
      expect(s.versions['@tensorflow/tfjs']).toMatch(/^\d+\.\d+\.\d+/);
      expect(s.caches).toEqual([{ path: cacheFilePath(config.cache), bytes: readFileSync(cacheFilePath(config.cache)).length, sha256: createHash('sha256').update(readFileSync(cacheFilePath(config.cache))).digest('hex') }]);
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

  it('logs every step with its wall time', () => {
    const log = readLog(config.out);
    expect(log.map((l) => `${l.type} ${l.epoch}`)).toEqual(['step 1', 'step 1', 'step 1', 'eval 1', 'step 2', 'step 2', 'step 2', 'eval 2']);
    for (const l of log) {
      expect(Date.parse(l.time)).not.toBeNaN();
      expect(l.seconds).toBeGreaterThanOrEqual(0);
    }
  });

  it('writes TensorBoard event files whose records and scalars read back', () => {
    const eventFiles = readdirSync(config.out).filter((f) => f.startsWith('events.out.tfevents.')).sort();
    expect(eventFiles).toHaveLength(2); // one per session
    const events = eventFiles.flatMap((f) => readRecords(join(config.out, f)).map((r) => Event.toObject(Event.decode(r), { longs: Number }) as { step: number; wallTime: number; fileVersion?: string; summary?: { value: { tag: string; simpleValue: number }[] }; sessionLog?: { status: number } }));
    expect(events.filter((e) => e.fileVersion)).toHaveLength(2);
    expect(events.every((e) => e.fileVersion === undefined || e.fileVersion === 'brain.Event:2')).toBe(true);
    // Each session opens with a START at its first step (TensorBoard drops later steps of an interrupted session).
    expect(events.filter((e) => e.sessionLog).map((e) => [e.sessionLog!.status, e.step])).toEqual([[1, 1], [1, 4]]);
    const scalars = events.filter((e) => e.summary);
    const log = readLog(config.out);
    expect(scalars).toHaveLength(log.length);
    scalars.forEach((e, i) => {
      const line = log[i];
      expect(e.step).toBe(line.step);
      expect(e.wallTime * 1000).toBeCloseTo(Date.parse(line.time), -1);
      const value = Object.fromEntries(e.summary!.value.map((v) => [v.tag, v.simpleValue]));
      const prefix = line.type === 'step' ? 'train' : 'validation';
      for (const key of line.type === 'step' ? ['loss', 'entropy', 'meanReward', 'meanReturn', 'keepRate', 'accuracy', 'costPct', 'tier_exact'] : ['accuracy', 'costPct', 'keptEdges', 'tier_exact'])
        expect(value[`${prefix}/${key}`]).toBeCloseTo(line[key as keyof typeof line] as number, 5); // float32
    });
  });
});
