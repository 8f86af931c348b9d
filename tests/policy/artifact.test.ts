// Checkpoints and exported policies are read back through a schema: the parsed `format` tells them
// apart, every tensor has the name and shape the policy's dimensions give it and finite values, and
// every problem names the file (a truncated or empty file too). A failed export leaves no folder.
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { artifactOf, loadAnyPolicy, loadCheckpoint, loadPolicy, saveCheckpoint, savePolicy, type Checkpoint } from '../../src/policy/artifact.ts';
import { exportPolicy } from '../../src/policy/export.ts';
import { initWeights, type PolicyShape } from '../../src/policy/model.ts';
import { zeroMoments } from '../../src/policy/engine.ts';
import { fileBytes } from '../fixtures/bytes.ts';
import { checkpoint, shape } from '../fixtures/checkpoint.ts';

/** A saved checkpoint's JSON, changed by `edit`, written to a file of its own. */
// biome-ignore lint/suspicious/noExplicitAny: edits reach into any nested field of a saved checkpoint
function edited(dir: string, name: string, edit: (json: Record<string, any>) => void): string {
  const good = join(dir, 'good.json');
  saveCheckpoint(good, checkpoint());
  const json = JSON.parse(readFileSync(good, 'utf8'));
  edit(json);
  const file = join(dir, name);
  writeFileSync(file, JSON.stringify(json));
  return file;
}

/** `n` float32 values as base64, every one `x`. */
const floats = (n: number, x: number) => Buffer.from(new Float32Array(n).fill(x).buffer).toString('base64');

describe('reading checkpoints and policies', () => {
  it('a checkpoint reads back as written; a pretty-printed one is told apart by its parsed format', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cpp-artifact-'));
    const c = checkpoint();
    saveCheckpoint(join(dir, 'c.json'), c);
    expect(loadCheckpoint(join(dir, 'c.json')).engine.weights).toEqual(c.engine.weights);
    writeFileSync(join(dir, 'pretty.json'), JSON.stringify(JSON.parse(readFileSync(join(dir, 'c.json'), 'utf8')), null, 2));
    expect(loadAnyPolicy(join(dir, 'pretty.json')).weights).toEqual(c.engine.weights);
    savePolicy(join(dir, 'p.json'), artifactOf(c));
    expect(loadAnyPolicy(join(dir, 'p.json')).format).toBe('cpp-policy');
  });

  it('a checkpoint saved to two files (a best epoch: checkpoint.json and best.json) is the same in both, and they are replaced together', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cpp-artifact-'));
    const [latest, best] = [join(dir, 'checkpoint.json'), join(dir, 'best.json')];
    const c = checkpoint();
    saveCheckpoint([latest, best], c);
    expect(readFileSync(best, 'utf8')).toBe(readFileSync(latest, 'utf8'));
    expect(loadCheckpoint(best).engine.weights).toEqual(c.engine.weights);
    // A second file that cannot be written (its folder is a file) leaves the first as it was.
    const before = readFileSync(latest, 'utf8');
    writeFileSync(join(dir, 'blocked'), '');
    expect(() => saveCheckpoint([latest, join(dir, 'blocked', 'best.json')], { ...c, epoch: c.epoch + 1 })).toThrow(/blocked/);
    expect(readFileSync(latest, 'utf8')).toBe(before);
  });

  it('every malformed checkpoint is an error naming the file and the field', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cpp-artifact-'));
    const D = shape.dim;
    // biome-ignore lint/suspicious/noExplicitAny: edits reach into any nested field of a saved checkpoint
    const cases: [string, (j: Record<string, any>) => void, string][] = [
      [
        'wrong-width',
        (j) => (j.engine.weights['head.w'] = { shape: [D + 1], data: floats(D + 1, 0.1) }),
        `engine.weights.head.w: shape [${D + 1}], but the policy's dimensions (dim 8, hidden 4, 3 agents, 2 rounds) give [${D}]`,
      ],
      [
        'half-tensor',
        (j) => (j.engine.weights['b1.Wg'].data = floats((D * 4) / 2, 0.1)),
        'engine.weights.b1.Wg: holds 16 float32 values, its shape [8, 4] needs 32',
      ],
      [
        'nan-weight',
        (j) => (j.engine.weights['head.w'].data = floats(D, NaN)),
        'engine.weights.head.w: value 0 is NaN: a checkpoint holds finite numbers only',
      ],
      ['missing-tensor', (j) => delete j.engine.m['head.b'], 'engine.m.head.b: missing'],
      ['string-epoch', (j) => (j.epoch = 'one'), 'epoch'],
      ['no-format', (j) => delete j.format, "format: expected 'cpp-checkpoint' (a training checkpoint), found undefined"],
      ['team-size', (j) => (j.team = ['a1', 'a2']), 'team: 2 agents, but shape.agents is 3'],
    ];
    for (const [name, edit, message] of cases) {
      const file = edited(dir, `${name}.json`, edit);
      expect(() => loadCheckpoint(file), name).toThrow(file);
      expect(() => loadCheckpoint(file), name).toThrow(message);
    }
    // A policy file is checked the same way, under the same reader eval uses for both.
    const policy = join(dir, 'policy.json');
    savePolicy(policy, artifactOf(checkpoint()));
    const json = JSON.parse(readFileSync(policy, 'utf8'));
    json.weights.behavior.data = floats(shape.agents * shape.dim, Infinity);
    writeFileSync(policy, JSON.stringify(json));
    expect(() => loadPolicy(policy)).toThrow(`${policy}: weights.behavior: value 0 is Infinity`);
    expect(() => loadAnyPolicy(policy)).toThrow(`${policy}: weights.behavior: value 0 is Infinity`);
  });

  it('a truncated, empty or missing file, or a folder, is an error naming it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cpp-artifact-'));
    saveCheckpoint(join(dir, 'c.json'), checkpoint());
    const text = readFileSync(join(dir, 'c.json'), 'utf8');
    writeFileSync(join(dir, 'cut.json'), text.slice(0, text.length / 2));
    writeFileSync(join(dir, 'empty.json'), '');
    expect(() => loadCheckpoint(join(dir, 'cut.json'))).toThrow(`${join(dir, 'cut.json')}: invalid JSON (cut short, or not a policy file?)`);
    expect(() => loadAnyPolicy(join(dir, 'empty.json'))).toThrow(`${join(dir, 'empty.json')}: empty file (a write cut short?)`);
    expect(() => loadCheckpoint(join(dir, 'none.json'))).toThrow(`${join(dir, 'none.json')}: file not found`);
    expect(() => loadAnyPolicy(dir)).toThrow(`${dir}: is a folder, not a file`);
  });

  it('a failed export leaves no folder, and an earlier export stays whole', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cpp-artifact-'));
    const broken = checkpoint();
    delete broken.engine.weights.behavior; // unreadable weights: the ONNX model cannot be built
    await expect(exportPolicy(broken, join(dir, 'export'))).rejects.toThrow();
    expect(readdirSync(dir)).toEqual([]);
    await exportPolicy(checkpoint(), join(dir, 'export'));
    const before = fileBytes(join(dir, 'export', 'policy.json'));
    await expect(exportPolicy(broken, join(dir, 'export'))).rejects.toThrow();
    expect(readdirSync(dir)).toEqual(['export']);
    expect(fileBytes(join(dir, 'export', 'policy.json'))).toEqual(before);
    expect(existsSync(join(dir, 'export', 'tfjs', 'weights.bin'))).toBe(true);
  }, 300_000);
});

describe('a policy without a behavior embedding', () => {
  it('reads back from a checkpoint whose optimizer moments leave the frozen embedding out, as the engines write them (was: engine.m.behavior: missing)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cpp-artifact-none-'));
    const none: PolicyShape = { ...shape, behavior: 'none' };
    const weights = initWeights(none, '0');
    const { behavior: _frozen, ...trainable } = zeroMoments(weights);
    const c: Checkpoint = { ...checkpoint(), shape: none, engine: { step: 6, weights, m: trainable, v: trainable } };
    saveCheckpoint(join(dir, 'c.json'), c);
    const back = loadCheckpoint(join(dir, 'c.json'));
    expect(back.engine.weights).toEqual(weights);
    expect(Object.keys(back.engine.m).sort()).toEqual(Object.keys(trainable).sort());
    expect(loadAnyPolicy(join(dir, 'c.json')).weights).toEqual(weights);
    // A trainable tensor's moment is still required.
    const { 'head.w': _head, ...short } = trainable;
    saveCheckpoint(join(dir, 'short.json'), { ...c, engine: { ...c.engine, m: short } });
    expect(() => loadCheckpoint(join(dir, 'short.json'))).toThrow(`${join(dir, 'short.json')}: engine.m.head.w: missing`);
  });
});
