import * as tf from '@tensorflow/tfjs';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureEmbeddings } from '../../src/cache/embeddings.ts';
import { cacheFromRecords } from '../../src/cache/load.ts';
import { bofEncoder } from '../../src/encoders/bof.ts';
import { makeEnvironment } from '../../src/env/environment.ts';
import { artifactOf, loadCheckpoint, loadPolicy, saveCheckpoint, type Checkpoint } from '../../src/policy/artifact.ts';
import { zeroMoments, type PolicyEngine } from '../../src/policy/engine.ts';
import { exportPolicy } from '../../src/policy/export.ts';
import { forwardLogits } from '../fixtures/referenceForward.ts';
import { deployPolicy } from '../../src/policy/inference.ts';
import { initWeights, sigmoid, type DecisionBatch, type PolicyShape } from '../../src/policy/model.ts';
import { normalizeInto } from '../../src/policy/decisionBatch.ts';
import { rollout } from '../../src/policy/rollout.ts';
import { loadBackend, tfjsEngine } from '../../src/policy/tfjsEngine.ts';
import { tinyRecords } from '../fixtures/tinyWorld.ts';
import { randomBatch as sharedRandomBatch } from '../../bench/randomBatch.ts';
import { TINY } from '../fixtures/gradientCheck.ts';

const shape: PolicyShape = { ...TINY, dim: 12, hidden: 6 };
const opt = { lr: 1e-2, beta1: 0.9, beta2: 0.999, epsilon: 1e-8, entropyBonus: 0.01 };

const randomBatch = (n: number, seed: string) => sharedRandomBatch(shape, n, seed).batch;

const engineFor = (weights = initWeights(shape, 's')) => tfjsEngine(shape, { weights, step: 0, m: zeroMoments(weights), v: zeroMoments(weights) }, opt);

beforeAll(async () => {
  await loadBackend('cpu');
});

describe('FuseGLU engine (TF.js)', () => {
  it('computes the same keep logits as the plain-JS reference forward pass', async () => {
    const weights = initWeights(shape, 's');
    weights['b1.Wd'].data.forEach((_, i, a) => (a[i] = Math.sin(i))); // make every path matter
    const batch = randomBatch(7, 'b');
    const engine = engineFor(weights);
    const got = await engine.keepLogits(batch);
    const want = forwardLogits(shape, weights, batch);
    got.forEach((x, i) => expect(x).toBeCloseTo(want[i], 4));
    engine.dispose();
  });

  it('gradients match finite differences of the loss', async () => {
    const weights = initWeights(shape, 'g');
    const batch = randomBatch(5, 'c');
    const actions = Uint8Array.from([1, 0, 1, 1, 0]);
    const adv = Float32Array.from([0.5, -1, 2, -0.3, 1]);
    const engine = engineFor(weights);
    const { gradients } = await engine.lossAndGradients(batch, actions, adv);
    engine.dispose();
    // Loss in float64 from the reference forward pass.
    const loss = () => {
      const l = forwardLogits(shape, weights, batch);
      let sum = 0,
        ent = 0;
      l.forEach((x, i) => {
        const p = sigmoid(x);
        sum += adv[i] * Math.log(actions[i] ? p : 1 - p);
        ent += -(p * Math.log(p) + (1 - p) * Math.log(1 - p));
      });
      return -sum / l.length - opt.entropyBonus * (ent / l.length);
    };
    for (const name of ['head.w', 'b2.Wg', 'b1.Vu', 'b1.lnx.g', 'behavior', 'sourceEmb', 'roundEmb', 'ownEmb']) {
      const w = weights[name].data;
      for (const i of [0, 3, w.length - 1]) {
        const old = w[i];
        const h = 1e-2;
        w[i] = old + h;
        const up = loss();
        w[i] = old - h;
        const down = loss();
        w[i] = old;
        expect(gradients[name].data[i]).toBeCloseTo((up - down) / (2 * h), 3);
      }
    }
  });

  it('a train step raises the log-probability of actions with positive advantage', async () => {
    // The shape this was measured on before the protocol features (every logit rises there; with more shared parameters one need not).
    const plain = { ...shape, currentFeature: false, turnFeature: false };
    const batch = sharedRandomBatch(plain, 16, 'd').batch;
    const actions = new Uint8Array(16).fill(1);
    const adv = new Float32Array(16).fill(1);
    const weights = initWeights(plain, 's');
    const engine = tfjsEngine(plain, { weights, step: 0, m: zeroMoments(weights), v: zeroMoments(weights) }, opt);
    const before = await engine.keepLogits(batch);
    for (let k = 0; k < 5; k++) await engine.trainStep(batch, actions, adv);
    const after = await engine.keepLogits(batch);
    after.forEach((x, i) => expect(x).toBeGreaterThan(before[i]));
    expect((await engine.getState()).step).toBe(5);
    engine.dispose();
  });
});

describe('conditional, progressive query (docs/method.md §4)', () => {
  it("a kept candidate enters the recipient's query before the next candidate is decided", async () => {
    const cache = cacheFromRecords(tinyRecords(4));
    const env = makeEnvironment(cache, { rounds: 2, miss: 'error' });
    const emb = await ensureEmbeddings(mkdtempSync(join(tmpdir(), 'cpp-q-')), cache, bofEncoder(32));
    const seen: DecisionBatch[] = [];
    // Keeps exactly the own response (position 0), records what it was asked.
    const stub = {
      shape: { ...shape, dim: 32 },
      keepLogits: async (b: DecisionBatch) => (seen.push(structuredClone(b)), Float32Array.from(b.own, (o) => (o ? 10 : -10))),
    } as unknown as PolicyEngine;
    for (const conditioning of [true, false]) {
      seen.length = 0;
      await rollout(stub, env, emb, [0], { mode: 'greedy', debateSeed: '0', conditioning });
      const q = cache.questions[0];
      const own = cache.responses.find((r) => r.question === q.id && r.agent === 'a1' && r.round === 1)!;
      const S = new Float32Array(32).map((_, k) => emb.question(0)[k] * q.promptTokens + (conditioning ? emb.response(own.index)[k] * own.outTokens : 0));
      const want = new Float32Array(32);
      normalizeInto(S, 0, 32, want, 0);
      const first = new Float32Array(32);
      normalizeInto(emb.question(0), 0, 32, first, 0);
      // recipient a1 (row 0): position 0 sees the question alone; position 1 sees question + kept own response
      expect([...seen[0].query.subarray(0, 32)].map((x) => x.toFixed(5))).toEqual([...first].map((x) => x.toFixed(5)));
      expect([...seen[1].query.subarray(0, 32)].map((x) => x.toFixed(5))).toEqual([...want].map((x) => x.toFixed(5)));
    }
  });
});

describe('checkpoints and export', () => {
  it('save, load and export round-trip to identical decisions, and the TF.js weights load back', async () => {
    const cache = cacheFromRecords(tinyRecords(4));
    const emb = await ensureEmbeddings(mkdtempSync(join(tmpdir(), 'cpp-x-')), cache, bofEncoder(12));
    const weights = initWeights(shape, 'x');
    const engine = engineFor(weights);
    await engine.trainStep(randomBatch(8, 'e'), new Uint8Array(8).fill(1), new Float32Array(8).fill(1));
    const checkpoint: Checkpoint = {
      format: 'cpp-checkpoint',
      version: 1,
      config: { cache: 'tiny', seed: 0 },
      shape,
      team: ['a1', 'a2', 'a3'],
      encoder: 'bof-12',
      epoch: 1,
      step: 1,
      baseline: [0],
      best: null,
      engine: await engine.getState(),
    };
    const dir = mkdtempSync(join(tmpdir(), 'cpp-ckpt-'));
    saveCheckpoint(join(dir, 'c.json'), checkpoint);
    const loaded = loadCheckpoint(join(dir, 'c.json'));
    expect(loaded.engine.weights).toEqual(checkpoint.engine.weights);
    expect(loaded.engine.m).toEqual(checkpoint.engine.m);
    const { policy, onnx, tfjs } = await exportPolicy(loaded, join(dir, 'export'));
    const artifact = loadPolicy(policy);
    expect(artifact).toEqual(artifactOf(checkpoint));
    // The deployed API decides as the engine does on the same inputs.
    const q = cache.questions[0];
    const r1 = (a: string) => cache.responses.find((r) => r.question === q.id && r.agent === a && r.round === 1)!;
    // ... from the exported ONNX model, loaded by ONNX Runtime as any other runtime would.
    const deployed = await deployPolicy(artifact, bofEncoder(12), readFileSync(onnx));
    const decisions = await deployed.decide({
      question: { text: q.text, tokens: q.promptTokens },
      round: 2,
      recipient: 'a2',
      responses: Object.fromEntries(['a1', 'a2', 'a3'].map((a) => [a, { text: r1(a).text, tokens: r1(a).outTokens }])),
    });
    expect(decisions.map((d) => d.agent)).toEqual(['a2', 'a1', 'a3']);
    const env = makeEnvironment(cache, { rounds: 2, miss: 'error' });
    const played = await rollout(engine, env, emb, [0], { mode: 'greedy', debateSeed: '0', conditioning: true });
    const a2 = [3, 4, 5]; // recipient a2's decisions in round 2
    expect(decisions.map((d) => d.p.toFixed(5))).toEqual(a2.map((x) => played.probs[x].toFixed(5)));
    expect(decisions.map((d) => d.keep)).toEqual(a2.map((x) => played.actions[x] === 1));
    // TF.js's own format
    const manifest = JSON.parse((await import('node:fs')).readFileSync(join(tfjs, 'model.json'), 'utf8'));
    const bin = (await import('node:fs')).readFileSync(join(tfjs, 'weights.bin'));
    const tensors = tf.io.decodeWeights(bin.buffer.slice(bin.byteOffset, bin.byteOffset + bin.byteLength), manifest.weightsManifest[0].weights);
    expect(Array.from(tensors['head.w'].dataSync())).toEqual(Array.from(artifact.weights['head.w'].data));
    engine.dispose();
  });
});
