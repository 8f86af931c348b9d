import seedrandom from 'seedrandom';
import { describe, expect, it } from 'vitest';
import type { CacheLine, ResponseRecord } from '../../src/cache/format.ts';
import { cacheFromRecords } from '../../src/cache/load.ts';
import { responseModelFidelity } from '../../src/env/modelFidelity.ts';
import {
  answerProbabilities,
  drawAnswer,
  FEATURES,
  formFeatures,
  modelInputs,
  onTrain,
  outcomes,
  type ModelInputs,
  type ResponseModel,
  type RevisionContext,
} from '../../src/env/responseModel.ts';
import { fitResponseModel, fitWeights, revisions, type Revision } from '../../src/env/responseModelFit.ts';
import { generateWorld } from '../../src/sim/generate.ts';
import { response } from '../fixtures/handCache.ts';

const inputs = (): ModelInputs => ({
  agents: 3,
  smoothing: 0.5,
  prior: new Map([
    [
      0 * 3 + 0,
      new Map([
        [1, 3],
        [3, 1],
      ]),
    ],
  ]),
  accuracy: [0.7, 0.5, 0.3, 0.5],
  gold: [2],
  stated: new Map(),
});

/** Draw an outcome index from probabilities that include the OTHER bucket. */
function drawIndex(p: number[], random: () => number): number {
  let u = random();
  for (let k = 0; k < p.length; k++) if ((u -= p[k]) < 0) return k;
  return p.length - 1;
}

describe('tier-3 response model', () => {
  it('outcome features: previous answer, own response shown, peers, their accuracy and rightness, agreement, smoothed log prior with an other bucket', () => {
    const c: RevisionContext = {
      q: 0,
      agent: 0,
      prev: 1,
      prevShown: true,
      peers: [
        { agent: 1, ans: 2 },
        { agent: 2, ans: 2 },
        { agent: 1, ans: 1 },
      ],
    };
    const o = outcomes(inputs(), c);
    expect(o.answers).toEqual([1, 2, 3, -2]);
    const denom = 4 + 0.5 * 3;
    expect(FEATURES).toEqual(['prev', 'prevShown', 'alone', 'peers', 'peerAccuracy', 'peersRight', 'agreeing', 'disagreeing', 'prior']);
    const rows = o.features.map((f) => f.map((x) => Math.round(x * 1e9) / 1e9));
    const r = (x: number) => Math.round(x * 1e9) / 1e9;
    expect(rows).toEqual([
      [1, 1, 0, 1, 0, 0, 1, 2, r(Math.log(3.5 / denom))],
      [0, 0, 0, 2, r(0 + -0.2), 2, 0, 0, r(Math.log(0.5 / denom))],
      [0, 0, 0, 0, 0, 0, 0, 0, r(Math.log(1.5 / denom))],
      [0, 0, 0, 0, 0, 0, 0, 0, r(Math.log(0.5 / denom))],
    ]);
    // Own response pruned: only the prevShown feature changes.
    const pruned = outcomes(inputs(), { ...c, prevShown: false });
    expect(pruned.features.map((f) => f[1])).toEqual([0, 0, 0, 0]);
    expect(pruned.features.map((f) => f.filter((_, k) => k !== 1))).toEqual(o.features.map((f) => f.filter((_, k) => k !== 1)));
    // Nothing kept: the alone feature marks the previous answer.
    expect(outcomes(inputs(), { ...c, prevShown: false, peers: [] }).features.map((f) => f[2])).toEqual([1, 0, 0]);
  });

  it('the base form: maximum likelihood recovers the weights that generated the data', () => {
    const truth = [1.5, 0.8, 0.6]; // prev, peers, prior
    const random = seedrandom('fit');
    const data: Revision[] = [];
    const base = formFeatures('base').map((name) => FEATURES.indexOf(name));
    for (let n = 0; n < 4000; n++) {
      const prior = new Map([
        [Math.floor(random() * 4), 1 + Math.floor(random() * 4)],
        [Math.floor(random() * 4), 1],
      ]);
      const o = outcomes(
        { ...inputs(), prior: new Map([[0, prior]]) },
        {
          q: 0,
          agent: 0,
          prev: Math.floor(random() * 4),
          prevShown: true,
          peers: [
            { agent: 1, ans: Math.floor(random() * 4) },
            { agent: 2, ans: Math.floor(random() * 4) },
          ],
        },
      );
      const s = o.features.map((f) => Math.exp(base.reduce((t, k, j) => t + truth[j] * f[k], 0)));
      const z = s.reduce((a, b) => a + b, 0);
      data.push({
        agent: 0,
        outcomes: o,
        observed: drawIndex(
          s.map((x) => x / z),
          random,
        ),
      });
    }
    const fit = fitWeights(data, 'base');
    expect(fit.slip).toBe(0);
    fit.weights.forEach((w, j) => expect(Math.abs(w - truth[j]), formFeatures('base')[j]).toBeLessThan(0.15));
  });

  it('the full form: EM recovers the logit weights and the share of fresh answers', () => {
    // prev, prevShown, alone, peers, peerAccuracy, peersRight, agreeing, disagreeing, prior
    const truth = { weights: [1.2, 1.5, 0.5, 1.0, 0, 1.5, -0.5, 0, 0.3], slip: 0.15 };
    const random = seedrandom('em');
    const data: Revision[] = [];
    for (let n = 0; n < 8000; n++) {
      const prior = new Map([
        [Math.floor(random() * 4), 1 + Math.floor(random() * 6)],
        [Math.floor(random() * 4), 1],
      ]);
      const peers = Array.from({ length: Math.floor(random() * 3) }, (_, k) => ({ agent: 1 + k, ans: Math.floor(random() * 4) }));
      const o = outcomes(
        { ...inputs(), prior: new Map([[0, prior]]), gold: [Math.floor(random() * 4)] },
        { q: 0, agent: 0, prev: Math.floor(random() * 4), prevShown: random() < 0.5, peers },
      );
      const s = o.features.map((f) => Math.exp(truth.weights.reduce((t, w, k) => t + w * f[k], 0)));
      const fresh = o.features.map((f) => Math.exp(f[FEATURES.indexOf('prior')]));
      const z = s.reduce((a, b) => a + b, 0),
        zf = fresh.reduce((a, b) => a + b, 0);
      data.push({
        agent: 0,
        outcomes: o,
        observed: drawIndex(
          s.map((x, k) => (1 - truth.slip) * (x / z) + (truth.slip * fresh[k]) / zf),
          random,
        ),
      });
    }
    const fit = fitWeights(data, 'full');
    expect(Math.abs(fit.slip - truth.slip)).toBeLessThan(0.04);
    for (const name of ['prev', 'prevShown', 'peers', 'peersRight', 'agreeing'] as const) {
      const k = FEATURES.indexOf(name);
      expect(Math.abs(fit.weights[k] - truth.weights[k]), name).toBeLessThan(0.3);
    }
  });

  it("gives the other bucket's share to answers cached responses state outside the outcome set, by how many state them", () => {
    const model: ResponseModel = {
      ...inputs(),
      form: 'base',
      fits: [{ weights: [0, 0, 1], slip: 0 }],
      stated: new Map([
        [
          0,
          new Map([
            [1, 3],
            [5, 1],
            [6, 3],
          ]),
        ],
      ]),
    };
    const { answers, p } = answerProbabilities(model, { q: 0, agent: 0, prev: 1, prevShown: true, peers: [] });
    expect(answers).toEqual([1, 3, 5, 6]);
    const denom = 4 + 0.5 * 3; // prior {1: 3, 3: 1}: the weights draw each outcome by its smoothed frequency
    expect(p[0]).toBeCloseTo(3.5 / denom, 12);
    expect(p[1]).toBeCloseTo(1.5 / denom, 12);
    expect(p[2]).toBeCloseTo(0.25 * (0.5 / denom), 12);
    expect(p[3]).toBeCloseTo(0.75 * (0.5 / denom), 12);
  });

  it('never draws the other bucket', () => {
    const model: ResponseModel = { ...inputs(), prior: new Map(), form: 'base', fits: [{ weights: [-5, 0, 1], slip: 0 }] };
    const random = seedrandom('x');
    for (let k = 0; k < 200; k++) expect(drawAnswer(model, { q: 0, agent: 0, prev: 0, prevShown: true, peers: [] }, random)).toBe(0);
  });

  it('learns that a recipient holds its answer when its own response is kept and gives in when it is pruned; the base form cannot tell', () => {
    const cache = cacheFromRecords(ownKeptRecords());
    const a1 = cache.agentIndex.get('a1')!;
    const q = cache.questionIndex.get('t0')!;
    const B = cache.answerKeys.indexOf('B'),
      A = cache.answerKeys.indexOf('A');
    const shown = (model: ResponseModel, prevShown: boolean) => {
      const { answers, p } = answerProbabilities(model, { q, agent: a1, prev: B, prevShown, peers: [{ agent: cache.agentIndex.get('a2')!, ans: A }] });
      return p[answers.indexOf(B)];
    };
    const full = fitResponseModel(cache, { responseModel: 'full', priorSmoothing: 0.5 });
    expect(full.fits[a1].weights[FEATURES.indexOf('prevShown')]).toBeGreaterThan(1);
    expect(shown(full, true)).toBeGreaterThan(0.7);
    expect(shown(full, false)).toBeLessThan(0.3);
    const base = fitResponseModel(cache, { responseModel: 'base', priorSmoothing: 0.5 });
    expect(shown(base, true)).toBeCloseTo(shown(base, false), 12);
  });

  it('is fitted on the train split only: a test-split revision does not move the fit, a train-split one does', () => {
    const fitOf = (records: CacheLine[]) => fitResponseModel(cacheFromRecords(records), { responseModel: 'full', priorSmoothing: 0.5 }).fits;
    const flip = (split: string) =>
      ownKeptRecords().map((r) => (r.type === 'response' && r.id === `${split}1.a1.kept` ? { ...r, answer: 'A', text: 'The answer is A.' } : r));
    const original = fitOf(ownKeptRecords());
    expect(fitOf(flip('e'))).toEqual(original);
    expect(fitOf(flip('t'))).not.toEqual(original);
  });

  it("a cache's fit is each agent's fit on its own train-split revisions, to the last bit, in either form", () => {
    const cache = cacheFromRecords([...generateWorld({ questions: 60, round1Samples: 2 })]);
    const train = onTrain(cache);
    for (const form of ['base', 'full'] as const) {
      const model = fitResponseModel(cache, { responseModel: form, priorSmoothing: 0.5 });
      const data = revisions(cache, modelInputs(cache, 0.5, train), (r) => train(r.q));
      expect(new Set(data.map((d) => d.agent)).size).toBe(cache.agents.length);
      expect(model.fits).toEqual(
        cache.agents.map((_, a) =>
          fitWeights(
            data.filter((d) => d.agent === a),
            form,
          ),
        ),
      );
    }
  });

  it('on the simulated world the full form beats the base form and "keep your previous answer" on held-out revisions', () => {
    const cache = cacheFromRecords([...generateWorld({ questions: 200, round1Samples: 4 })]);
    for (const row of responseModelFidelity(cache, 0.5)) {
      expect(row.heldOut).toBeGreaterThan(100);
      expect(row.model.full.logLik).toBeGreaterThan(row.model.base.logLik);
      expect(row.model.base.logLik).toBeGreaterThan(row.keepPrevious.logLik);
      expect(row.model.full.accuracy).toBeGreaterThanOrEqual(row.keepPrevious.accuracy);
      expect(row.fits.full.slip).toBeGreaterThan(0);
    }
  });
});

/**
 * 40 train questions ('t0'...) and 10 test questions ('e0'...), gold A: agent a1 answers B in round
 * 1, a2 answers A. In round 2, a1 shown its own response and a2's mostly holds B; shown a2's alone
 * it mostly gives in to A (every fifth question the other way round).
 */
function ownKeptRecords(): CacheLine[] {
  const records: CacheLine[] = [
    { type: 'cache', format: 'cpp-debate-cache', version: 1, name: 'own-kept', source: 'recorded' },
    { type: 'agent', id: 'a1', model: 'm1', priceIn: 1, priceOut: 1 },
    { type: 'agent', id: 'a2', model: 'm2', priceIn: 1, priceOut: 1 },
  ];
  const questions = [...Array.from({ length: 40 }, (_, i) => ['t', i, 'train'] as const), ...Array.from({ length: 10 }, (_, i) => ['e', i, 'test'] as const)];
  for (const [prefix, i, split] of questions) {
    const q = `${prefix}${i}`;
    records.push({ type: 'question', id: q, text: `Question ${q}?`, gold: 'A', benchmark: 'hand', answerType: 'mcq', split, promptTokens: 10 });
    const odd = i % 5 === 0;
    const r: ResponseRecord[] = [
      response(`${q}.a1.r1`, q, 'a1', 1, 'B', 5),
      response(`${q}.a2.r1`, q, 'a2', 1, 'A', 5),
      response(`${q}.a1.kept`, q, 'a1', 2, odd ? 'A' : 'B', 5, [`${q}.a1.r1`, `${q}.a2.r1`], `${q}.a1.r1`),
      response(`${q}.a1.pruned`, q, 'a1', 2, odd ? 'B' : 'A', 5, [`${q}.a2.r1`], `${q}.a1.r1`),
    ];
    records.push(...r);
  }
  return records;
}
