// The deployable export: policy.onnx fed as policy.spec.md says gives the trainer's decisions, and
// golden.json holds what a deployer checks a reimplementation against (the inference example of
// docs/deploy.md runs in the packed package, without TF.js: tests/package.test.ts).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { onnx } from 'onnx-proto';
import * as ort from 'onnxruntime-node';
import { beforeAll, describe, expect, it } from 'vitest';
import { bofEncoder } from '../../src/encoders/bof.ts';
import { candidateOrder } from '../../src/env/actions.ts';
import { loadCheckpoint } from '../../src/policy/artifact.ts';
import { inferenceEngine } from '../../src/policy/createEngine.ts';
import { exportPolicy } from '../../src/policy/export.ts';
import { GOLDEN_TEXTS, type Golden } from '../../src/policy/golden.ts';
import { loadDeployedPolicy } from '../../src/policy/inference.ts';
import { rollout } from '../../src/policy/rollout.ts';
import { generateCache } from '../../src/sim/generate.ts';
import { resolveConfig } from '../../train/config.ts';
import { runFiles } from '../../train/runFolder.ts';
import { setup } from '../../train/setup.ts';
import { train } from '../../train/trainer.ts';
import { BUILT_CLI as CLI } from '../fixtures/cli.ts';
import { METHOD } from '../fixtures/method.ts';

describe('the deployable export', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cpp-deploy-'));
  const config = resolveConfig({ ...METHOD, cache: join(dir, 'world'), out: join(dir, 'run'), epochs: 1, hidden: 16, batchSize: 16 });
  const exportDir = join(dir, 'checkpoints/k0/export');
  beforeAll(async () => {
    await generateCache(config.cache, { questions: 40 }, 'small'); // team atlas, sage, brisk
    await train(config, { log: () => {} });
    await exportPolicy(loadCheckpoint(runFiles(config.out).best), exportDir);
  }, 120_000);

  it('policy.onnx, fed as its spec says, decides as the trained policy does', async () => {
    const model = readFileSync(join(exportDir, 'policy.onnx'));
    const meta = Object.fromEntries(onnx.ModelProto.decode(model).metadataProps.map((p) => [p.key, p.value]));
    const spec = readFileSync(join(exportDir, 'policy.spec.md'), 'utf8');
    expect(meta.spec).toBe(spec);
    expect(spec).toContain("the encoder's output **as is, not normalized**");
    expect(meta.inputs).toContain('NOT unit-norm');
    const team = JSON.parse(meta.team) as string[];
    const behavior = JSON.parse(meta.behavior) as Record<string, number[]>;
    const D = behavior[team[0]].length;
    const session = await ort.InferenceSession.create(model);
    const encoder = bofEncoder(D);

    // The trainer's own decisions on validation questions, round 2.
    const s = await setup(config);
    const questions = s.cache.questions.filter((q) => q.split === 'validation').slice(0, 5);
    const engine = await inferenceEngine({ engine: 'onnx', threads: 1, backend: 'cpu' }, s.shape, loadCheckpoint(runFiles(config.out).best).engine.weights);
    const played = await rollout(
      engine,
      s.evalEnv,
      s.emb,
      questions.map((q) => q.index),
      { mode: 'greedy', debateSeed: '0', conditioning: true },
    );
    engine.dispose();
    const A = team.length;
    const perDebate = (s.shape.rounds - 1) * A * A;

    for (const [b, q] of questions.entries()) {
      const round1 = team.map((agent) => s.cache.responses.find((r) => r.question === q.id && r.agent === agent && r.round === 1 && r.sample === 0)!);
      const [question] = await encoder.encode([q.text]);
      for (let i = 0; i < A; i++) {
        const S = Float64Array.from(question, (x) => x * q.promptTokens);
        for (const [j, c] of candidateOrder(A, i).entries()) {
          const [candidate] = await encoder.encode([round1[c].text]);
          const norm = Math.hypot(...S);
          const out = await session.run({
            query: new ort.Tensor(
              'float32',
              Float32Array.from(S, (x) => x / norm),
              [1, D],
            ),
            behavior: new ort.Tensor('float32', Float32Array.from(behavior[team[i]]), [1, D]),
            candidate: new ort.Tensor('float32', candidate, [1, D]),
            own: new ort.Tensor('int64', BigInt64Array.of(j === 0 ? 1n : 0n), [1]),
            source: new ort.Tensor('int64', BigInt64Array.of(BigInt(c)), [1]),
            round: new ort.Tensor('int64', BigInt64Array.of(0n), [1]),
            current: new ort.Tensor('int64', BigInt64Array.of(0n), [1]),
            turn: new ort.Tensor('int64', BigInt64Array.of(BigInt(i)), [1]),
          });
          const p = (out.keep_probability.data as Float32Array)[0];
          const x = b * perDebate + i * A + j; // round 2, recipient i, position j
          expect(p).toBeCloseTo(played.probs[x], 4);
          expect(p >= 0.5).toBe(played.actions[x] === 1);
          if (p >= 0.5) candidate.forEach((v, k) => (S[k] += v * round1[c].outTokens));
        }
      }
    }
  }, 300_000);

  it('golden.json holds the texts with their vectors, and decisions whose inputs policy.onnx turns into their keep probabilities', async () => {
    const golden = JSON.parse(readFileSync(join(exportDir, 'golden.json'), 'utf8')) as Golden;
    const policy = await loadDeployedPolicy(join(exportDir, 'policy.json'));
    const { team, shape } = policy.artifact;
    const encoder = bofEncoder(shape.dim);
    expect(golden.texts.map((t) => [t.name, t.text])).toEqual(Object.entries(GOLDEN_TEXTS));
    for (const t of golden.texts) expect(t.vector, t.name).toEqual(Array.from((await encoder.encode([t.text]))[0]));
    const session = await ort.InferenceSession.create(readFileSync(join(exportDir, 'policy.onnx')));
    const int = (x: number) => new ort.Tensor('int64', BigInt64Array.of(BigInt(x)), [1]);
    const f32 = (x: number[]) => new ort.Tensor('float32', Float32Array.from(x), [1, shape.dim]);
    expect(golden.decisions.map((d) => d.request.recipient)).toEqual(team);
    for (const d of golden.decisions) {
      expect(d.request.round).toBe(3); // an earlier kept response (special casing) enters the query
      const decided = await policy.decide(d.request);
      expect(decided).toEqual(d.rows.map((r) => ({ agent: r.agent, keep: r.keep, p: expect.closeTo(r.keep_probability, 6) })));
      const me = team.indexOf(d.request.recipient);
      for (const r of d.rows) {
        expect(r.behavior).toEqual(Array.from(policy.artifact.weights.behavior.data.subarray(me * shape.dim, (me + 1) * shape.dim)));
        expect(r.candidate).toEqual(Array.from((await encoder.encode([d.request.responses[r.agent].text]))[0]));
        expect([r.own, r.source, r.round, r.current, r.turn]).toEqual([r.agent === d.request.recipient ? 1 : 0, team.indexOf(r.agent), 1, 0, me]);
        const out = await session.run({
          query: f32(r.query),
          behavior: f32(r.behavior),
          candidate: f32(r.candidate),
          own: int(r.own),
          source: int(r.source),
          round: int(r.round),
          current: int(r.current),
          turn: int(r.turn),
        });
        expect((out.keep_probability.data as Float32Array)[0]).toBeCloseTo(r.keep_probability, 6);
      }
    }
  }, 300_000);

  it('serves on the WebGPU provider (`provider: webgpu`) with the decisions golden.json holds, naming its adapter', async () => {
    const golden = JSON.parse(readFileSync(join(exportDir, 'golden.json'), 'utf8')) as Golden;
    const policy = await loadDeployedPolicy(join(exportDir, 'policy.json'), undefined, { provider: 'webgpu' });
    expect(policy.adapter?.device).toBeTruthy();
    for (const d of golden.decisions)
      expect(await policy.decide(d.request)).toEqual(d.rows.map((r) => ({ agent: r.agent, keep: r.keep, p: expect.closeTo(r.keep_probability, 5) })));
  }, 300_000);

  it('`export` writes golden.json and prints no TF.js banner (was: "install our node backend")', () => {
    const r = spawnSync(process.execPath, [...CLI, 'export', runFiles(config.out).best, '--out', join(dir, 'cli-export')], {
      cwd: dir,
      encoding: 'utf8',
    });
    expect([r.status, r.stderr]).toEqual([0, '']);
    expect(r.stdout).toContain(`${join(dir, 'cli-export', 'golden.json')} (texts, vectors and decisions`);
  }, 120_000);
});
