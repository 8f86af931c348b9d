// A policy that decides revise and stop too: versioned in checkpoints, exported with kind and agree
// inputs and golden rows of each kind, and served by the inference API as the rollout decides.
import * as ort from 'onnxruntime-node';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureEmbeddings } from '../../src/cache/embeddings.ts';
import { cacheFromRecords } from '../../src/cache/load.ts';
import { bofEncoder } from '../../src/encoders/bof.ts';
import { makeEnvironment } from '../../src/env/environment.ts';
import { loadCheckpoint, loadPolicy, saveCheckpoint, type Checkpoint } from '../../src/policy/artifact.ts';
import { decisionLayout } from '../../src/policy/decisionLayout.ts';
import { zeroMoments } from '../../src/policy/engine.ts';
import { exportPolicy } from '../../src/policy/export.ts';
import type { Golden } from '../../src/policy/golden.ts';
import { deployPolicy } from '../../src/policy/inference.ts';
import { initWeights, KIND, type PolicyShape } from '../../src/policy/model.ts';
import { rollout } from '../../src/policy/rollout.ts';
import { loadBackend, tfjsEngine } from '../../src/policy/tfjsEngine.ts';
import { TINY } from '../fixtures/gradientCheck.ts';
import { tinyRecords } from '../fixtures/tinyWorld.ts';

const D = 16;
const shape: PolicyShape = { ...TINY, dim: D, hidden: 6, rounds: 2, decisions: 'edges+revise+stop' };
const weights = () => {
  const w = initWeights(shape, 'deploy');
  for (const t of Object.values(w)) t.data.forEach((_, i, a) => (a[i] += 0.2 * Math.sin(2.3 * i + t.data.length)));
  return w;
};
const checkpoint = (): Checkpoint => {
  const w = weights();
  return {
    format: 'cpp-checkpoint',
    version: 1,
    config: { cache: 'tiny', seed: 0 },
    shape,
    team: ['a1', 'a2', 'a3'],
    encoder: `bof-${D}`,
    epoch: 1,
    step: 1,
    baseline: [],
    best: null,
    engine: { weights: w, step: 0, m: zeroMoments(w), v: zeroMoments(w) },
  };
};

beforeAll(async () => {
  await loadBackend('cpu');
});

describe('checkpoints of a policy with revise and stop decisions', () => {
  it('keep the setting; one saved before it reads as edges; a missing head is an error naming the field', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cpp-decide-ckpt-'));
    saveCheckpoint(join(dir, 'c.json'), checkpoint());
    expect(loadCheckpoint(join(dir, 'c.json')).shape.decisions).toBe('edges+revise+stop');
    const old = checkpoint();
    const { decisions: _, ...before } = { ...old.shape, decisions: 'edges' as const };
    const w = initWeights({ ...shape, decisions: 'edges' }, 'old');
    saveCheckpoint(join(dir, 'old.json'), { ...old, shape: before as PolicyShape, engine: { weights: w, step: 0, m: zeroMoments(w), v: zeroMoments(w) } });
    const json = JSON.parse(readFileSync(join(dir, 'old.json'), 'utf8'));
    expect(json.shape).not.toHaveProperty('decisions');
    expect(loadCheckpoint(join(dir, 'old.json')).shape.decisions).toBe('edges');
    const cut = JSON.parse(readFileSync(join(dir, 'c.json'), 'utf8'));
    delete cut.engine.weights['stopHead.b'];
    writeFileSync(join(dir, 'cut.json'), JSON.stringify(cut));
    expect(() => loadCheckpoint(join(dir, 'cut.json'))).toThrow(/cut\.json: engine\.weights\.stopHead\.b: missing/);
  });
});

describe('the exported policy and the inference API', () => {
  it('policy.onnx takes kind and agree; golden.json holds rows of each kind that policy.onnx reproduces', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cpp-decide-export-'));
    const { policy, onnx } = await exportPolicy(checkpoint(), join(dir, 'export'));
    expect(loadPolicy(policy).shape.decisions).toBe('edges+revise+stop');
    const spec = readFileSync(join(dir, 'export', 'policy.spec.md'), 'utf8');
    expect(spec).toContain('## Revise and stop decisions (decisions: edges+revise+stop)');
    expect(spec).toMatch(/\| `kind` \| int64 \[N\] \|.*\n\| `agree` \| float32 \[N\] \|/);
    const session = await ort.InferenceSession.create(readFileSync(onnx));
    expect(session.inputNames).toEqual(['query', 'behavior', 'candidate', 'own', 'source', 'round', 'current', 'turn', 'kind', 'agree']);
    const golden = JSON.parse(readFileSync(join(dir, 'export', 'golden.json'), 'utf8')) as Golden;
    const rows = golden.decisions.flatMap((d) => d.rows);
    expect(new Set(rows.map((r) => r.kind))).toEqual(new Set([KIND.edge, KIND.revise, KIND.stop]));
    const int = (x: number) => new ort.Tensor('int64', BigInt64Array.of(BigInt(x)), [1]);
    for (const r of rows) {
      const out = await session.run({
        query: new ort.Tensor('float32', Float32Array.from(r.query), [1, D]),
        behavior: new ort.Tensor('float32', Float32Array.from(r.behavior), [1, D]),
        candidate: new ort.Tensor('float32', Float32Array.from(r.candidate), [1, D]),
        own: int(r.own),
        source: int(r.source),
        round: int(r.round),
        current: int(r.current),
        turn: int(r.turn),
        kind: int(r.kind!),
        agree: new ort.Tensor('float32', Float32Array.of(r.agree!), [1]),
      });
      expect((out.keep_probability.data as Float32Array)[0]).toBeCloseTo(r.keep_probability, 6);
    }
  });

  it("its stop and revise probabilities are the rollout's on the same debate; without the team's answers it refuses", async () => {
    const cache = cacheFromRecords(tinyRecords(4));
    const env = makeEnvironment(cache, { rounds: 2, miss: 'error' });
    const emb = await ensureEmbeddings(mkdtempSync(join(tmpdir(), 'cpp-decide-emb-')), cache, bofEncoder(D));
    const c = checkpoint();
    const engine = tfjsEngine(shape, c.engine, { lr: 1e-3, beta1: 0.9, beta2: 0.999, epsilon: 1e-8, entropyBonus: 0 });
    const played = await rollout(engine, env, emb, [0], { mode: 'greedy', debateSeed: '0', conditioning: true });
    engine.dispose();
    const deployed = await deployPolicy(
      { ...c, format: 'cpp-policy', trainedOn: { cache: 'tiny', seed: 0, epoch: 1 }, weights: c.engine.weights },
      bofEncoder(D),
    );
    const q = cache.questions[0];
    const r1 = (a: string) => cache.responses.find((r) => r.question === q.id && r.agent === a && r.round === 1)!;
    const team = ['a1', 'a2', 'a3'];
    const request = {
      question: { text: q.text, tokens: q.promptTokens },
      round: 2,
      responses: Object.fromEntries(team.map((a) => [a, { text: r1(a).text, tokens: r1(a).outTokens }])),
      answers: Object.fromEntries(team.map((a) => [a, cache.answerKeys[r1(a).ans]])),
    };
    const layout = decisionLayout(3, 2, shape.decisions);
    expect((await deployed.stop(request)).p).toBeCloseTo(played.probs[layout.stopAt(2)], 5);
    expect(played.actions[layout.stopAt(2)]).toBe(0); // went on: the revisions were decided
    for (const [i, recipient] of team.entries())
      expect((await deployed.revise({ ...request, recipient })).p).toBeCloseTo(played.probs[layout.reviseAt(2, i)], 5);
    const { answers: _, ...without } = request;
    await expect(deployed.decide({ ...without, recipient: 'a1' })).rejects.toThrow(/give answers/);
  });
});
