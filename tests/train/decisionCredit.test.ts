import { describe, expect, it } from 'vitest';
import { cacheFromRecords } from '../../src/cache/load.ts';
import { keepAll, playDebates, startDebate, type DebateResult } from '../../src/env/debate.ts';
import { makeEnvironment } from '../../src/env/environment.ts';
import { decisionLayout } from '../../src/policy/decisionLayout.ts';
import { debateRewards, influenceWeights, returns, RewardSettings } from '../../src/reward.ts';
import { advantagesOf, batchRewards, type AdvantageSettings, type Played } from '../../train/advantage.ts';
import { checkTarget, costFloor } from '../../train/budget.ts';
import { resolveConfig } from '../../train/config.ts';
import { tinyRecords } from '../fixtures/tinyWorld.ts';

// Two agents, three rounds, every decision: per round a stop, two revisions, four edges (7 slots).
const layout = decisionLayout(2, 3, 'edges+revise+stop');
const N = layout.perDebate;

/** Round 2: go on, a1 (wrong) revises keeping a2's edge and gets it right, a2 keeps its answer; round 3: stop. */
function wentOn(): { d: DebateResult; actions: Uint8Array; present: Uint8Array } {
  const actions = new Uint8Array(N);
  const present = new Uint8Array(N);
  const made = (x: number, a: number) => ((present[x] = 1), (actions[x] = a));
  made(layout.stopAt(2), 0);
  made(layout.reviseAt(2, 0), 1);
  made(layout.reviseAt(2, 1), 0);
  made(layout.edge(2, 0, 0), 0);
  made(layout.edge(2, 0, 1), 1);
  made(layout.stopAt(3), 1);
  const d = {
    q: 0,
    answers: [
      [0, 1],
      [1, 1],
      [1, 1],
    ],
    correct: [
      [false, true],
      [true, true],
      [true, true],
    ],
    keeps: [
      [
        [false, true],
        [false, false],
      ],
      [
        [false, false],
        [false, false],
      ],
    ],
  } as unknown as DebateResult;
  return { d, actions, present };
}

/** The same question stopped before round 2: its one decision. */
function stoppedAtOnce(): { d: DebateResult; actions: Uint8Array; present: Uint8Array } {
  const actions = new Uint8Array(N);
  const present = new Uint8Array(N);
  present[layout.stopAt(2)] = actions[layout.stopAt(2)] = 1;
  const row = [false, true];
  const none = [
    [false, false],
    [false, false],
  ];
  const d = {
    q: 0,
    answers: [
      [0, 1],
      [0, 1],
      [0, 1],
    ],
    correct: [row, row, row],
    keeps: [none, none],
  } as unknown as DebateResult;
  return { d, actions, present };
}

const reward = (over: Partial<RewardSettings> = {}) => RewardSettings.parse({ lambda: 1, ...over });

describe('rewards and returns of revise and stop decisions', () => {
  it('a revision earns its recipient transition (kept row) and pays its call; a kept answer the pruned row; a stop nothing; absent decisions 0', () => {
    const { d, actions, present } = wentOn();
    const r = debateRewards(reward(), d, 100, () => 50, { layout, actions, present });
    expect(r[layout.reviseAt(2, 0)]).toBeCloseTo(2 - 0.5); // wrong -> right, revised; lambda 1 x 50 / 100
    expect(r[layout.reviseAt(2, 1)]).toBe(0); // right -> right, kept (pruned row)
    expect(r[layout.edge(2, 0, 1)]).toBeCloseTo(1.5);
    expect(r[layout.stopAt(2)]).toBe(0);
    expect(r[layout.edge(2, 1, 0)]).toBe(0); // a2 kept its answer: no edge decision
    expect([...r].filter((x) => x !== 0)).toHaveLength(2);
  });

  it("a stop decision's return is what the rest of the debate earns, whatever beta (a going-on debate's later rewards, a stopped one's 0)", () => {
    const { d, actions, present } = wentOn();
    const r = debateRewards(reward(), d, 100, () => 50, { layout, actions, present });
    for (const beta of [0, 0.5]) {
      const G = returns(influenceWeights(2, 3, beta, 0, 'edges+revise+stop'), r);
      expect(G[layout.stopAt(2)]).toBeCloseTo(3);
    }
    const W = influenceWeights(2, 3, 0.5, 0, 'edges+revise+stop');
    // a1's revision in round 2 reaches round 3's decisions of a1 and of whoever reads a1, at beta.
    expect(W[layout.reviseAt(2, 0) * N + layout.reviseAt(3, 0)]).toBeCloseTo(0.5);
    expect(W[layout.reviseAt(2, 0) * N + layout.edge(3, 1, 1)]).toBeCloseTo(0.5); // a2 reading a1
    expect(W[layout.reviseAt(2, 0) * N + layout.edge(3, 1, 0)]).toBe(0); // a2 reading itself
    // With edges alone, the layout is the method's numbering and its weights.
    expect(influenceWeights(2, 3, 0.5, 0.5, 'edges')).toEqual(influenceWeights(2, 3, 0.5, 0.5));
  });
});

describe('advantages with revise and stop decisions', () => {
  const played = (): Played => {
    const [a, b] = [wentOn(), stoppedAtOnce()];
    return {
      results: [a.d, b.d],
      tokens: new Float32Array(2 * N).fill(50),
      decisions: { layout, actions: Uint8Array.from([...a.actions, ...b.actions]), present: Uint8Array.from([...a.present, ...b.present]) },
    };
  };
  const settings = (over: Partial<AdvantageSettings> = {}): AdvantageSettings => ({
    reward: reward(),
    W: influenceWeights(2, 3, 0, 0, 'edges+revise+stop'),
    meanTokens: 100,
    agents: 2,
    baseline: 'rloo',
    rollouts: 2,
    normalize: false,
    state: [],
    momentum: 0.9,
    step: 0,
    budget: { multiplier: 1, priceIn: [1, 1], fullCost: () => 100 },
    ...over,
  });

  it('the budget charges a revision its call and a kept edge its tokens, and a stop nothing', () => {
    const r = batchRewards(played(), settings());
    expect(r[layout.reviseAt(2, 0)]).toBeCloseTo(1.5 - 0.5);
    expect(r[layout.edge(2, 0, 1)]).toBeCloseTo(1.5 - 0.5);
    expect(r[N + layout.stopAt(2)]).toBe(0);
    expect(r[layout.stopAt(3)]).toBe(0);
  });

  it('RLOO compares a decision with the other rollouts that made it; absent decisions get no advantage', () => {
    const { advantages } = advantagesOf(played(), settings());
    expect(advantages[layout.stopAt(2)]).toBeCloseTo(2); // went on: earned 1 + 1 against the stopped rollout's 0
    expect(advantages[N + layout.stopAt(2)]).toBeCloseTo(-2);
    expect(advantages[layout.reviseAt(2, 0)]).toBeCloseTo(1); // no other rollout made it: baseline 0
    expect(advantages[N + layout.reviseAt(2, 0)]).toBe(0);
    // A third rollout that revised a1 to no avail (wrong -> wrong: 0, less its call): a1's revision is
    // compared with it alone, not with the rollout that never decided it.
    const stayedWrong = wentOn();
    stayedWrong.d.correct = [
      [false, true],
      [false, true],
      [false, true],
    ];
    const p = played();
    const three: Played = {
      results: [...p.results, stayedWrong.d],
      tokens: new Float32Array(3 * N).fill(50),
      decisions: {
        layout,
        actions: Uint8Array.from([...p.decisions!.actions, ...stayedWrong.actions]),
        present: Uint8Array.from([...p.decisions!.present, ...stayedWrong.present]),
      },
    };
    const a3 = advantagesOf(three, settings({ rollouts: 3 })).advantages;
    expect(a3[layout.reviseAt(2, 0)]).toBeCloseTo(1 - -1);
    const normalized = advantagesOf(played(), settings({ normalize: true })).advantages;
    const made = played().decisions!.present;
    expect(normalized.filter((_, x) => !made[x]).every((a) => a === 0)).toBe(true);
    expect(normalized.reduce((s, a) => s + a, 0)).toBeCloseTo(0, 5);
  });
});

describe('the budget floor of a policy that may keep answers without a call', () => {
  const cache = cacheFromRecords(tinyRecords(8));
  const env = makeEnvironment(cache, { rounds: 2, miss: 'error' });
  const qs = cache.questions.filter((q) => q.split === 'train').map((q) => q.index);

  it("is round 1's own cost, below pruning every edge; a target under it is refused naming it", async () => {
    const full = (await playDebates(env, qs, keepAll)).reduce((s, d) => s + d.cost, 0);
    const roundOne = qs.reduce((s, q) => s + startDebate(env, q).cost, 0);
    expect(await costFloor(env, qs, 'edges+revise')).toBeCloseTo(roundOne / full, 10);
    expect(await costFloor(env, qs, 'edges')).toBeGreaterThan(roundOne / full);
    const between = ((await costFloor(env, qs, 'edges')) + roundOne / full) / 2;
    await expect(checkTarget(between, env, qs, 'edges')).rejects.toThrow(/pruning every edge.*--decisions edges\+revise/);
    await expect(checkTarget(between, env, qs, 'edges+revise+stop')).resolves.toBeUndefined();
    await expect(checkTarget((0.9 * roundOne) / full, env, qs, 'edges+revise+stop')).rejects.toThrow(/round 1 alone/);
  });

  it('decisions beyond edges train with the rloo baseline and the return credit: other settings are refused', () => {
    expect(() => resolveConfig({ decisions: 'edges+revise', baseline: 'running' })).toThrow(/decisions: edges\+revise needs baseline rloo/);
    expect(() => resolveConfig({ decisions: 'edges+revise+stop', credit: 'counterfactual' })).toThrow(/needs credit return/);
    expect(resolveConfig({ decisions: 'edges+revise+stop' }).decisions).toBe('edges+revise+stop');
  });
});
