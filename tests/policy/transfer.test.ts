import { describe, expect, it } from 'vitest';
import type { PolicyArtifact } from '../../src/policy/artifact.ts';
import { initWeights } from '../../src/policy/model.ts';
import { teamChange, transferredPolicy } from '../../src/policy/transfer.ts';
import { TINY } from '../fixtures/gradientCheck.ts';

const agents = (...list: [string, string][]) => list.map(([id, model]) => ({ id, model }));
const OLD = agents(['atlas', 'sim/atlas'], ['sage', 'sim/sage'], ['brisk', 'sim/brisk']);
const TEAM = ['atlas', 'sage', 'brisk'];

describe('which member of a team was replaced', () => {
  it('a simulated world with one agent replaced: the agent that left and the one that arrived, in its seat', () => {
    const change = teamChange(TEAM, OLD, agents(['atlas', 'sim/atlas'], ['sage', 'sim/sage'], ['brisk-stronger', 'sim/brisk-stronger']));
    expect(change).toEqual({
      seat: 2,
      replaced: { id: 'brisk', model: 'sim/brisk' },
      newcomer: { id: 'brisk-stronger', model: 'sim/brisk-stronger' },
      team: ['atlas', 'sage', 'brisk-stronger'],
    });
  });

  it('two imports whose teams differ in one model: the same position under another model is another member', () => {
    const imported = agents(['a1', 'gpt-3.5-turbo'], ['a2', 'gpt-3.5-turbo'], ['a3', 'gpt-3.5-turbo']);
    const change = teamChange(['a1', 'a2', 'a3'], imported, agents(['a1', 'gpt-3.5-turbo'], ['a2', 'gpt-4o-mini'], ['a3', 'gpt-3.5-turbo']));
    expect(change).toMatchObject({ seat: 1, replaced: { id: 'a2', model: 'gpt-3.5-turbo' }, newcomer: { id: 'a2', model: 'gpt-4o-mini' } });
    expect(change.team).toEqual(['a1', 'a2', 'a3']);
  });

  it('a cache with more agents takes --replace; without the old models, --replace is the only way', () => {
    const bigger = agents(['atlas', 'sim/atlas'], ['sage', 'sim/sage'], ['nova', 'sim/nova'], ['mallory', 'sim/mallory']);
    expect(() => teamChange(TEAM, OLD, bigger)).toThrow(/brisk \(sim\/brisk\) left, nova \(sim\/nova\), mallory \(sim\/mallory\) arrived: .*--replace OLD=NEW/);
    expect(teamChange(TEAM, OLD, bigger, ['brisk', 'mallory']).team).toEqual(['atlas', 'sage', 'mallory']);
    expect(teamChange(TEAM, null, bigger, ['brisk', 'nova'])).toMatchObject({ seat: 2, replaced: { id: 'brisk', model: null } });
    expect(() => teamChange(TEAM, null, bigger)).toThrow(/models of the policy's team are unknown .*--replace OLD=NEW/);
  });

  it('refuses teams that do not differ, that differ in two members, and replacements it cannot make', () => {
    expect(() => teamChange(TEAM, OLD, OLD)).toThrow(/differ in no member/);
    const two = agents(['atlas', 'sim/atlas'], ['sage-2', 'sim/sage-2'], ['brisk-2', 'sim/brisk-2']);
    expect(() => teamChange(TEAM, OLD, two)).toThrow(/sage \(sim\/sage\), brisk \(sim\/brisk\) left/);
    expect(() => teamChange(TEAM, OLD, two, ['brisk', 'brisk-2'])).toThrow(/lacks sage of the policy's team besides 'brisk'/);
    expect(() => teamChange(TEAM, OLD, OLD, ['nobody', 'sage'])).toThrow(/'nobody' is not in the policy's team/);
    expect(() => teamChange(TEAM, OLD, OLD, ['brisk', 'nobody'])).toThrow(/the new cache has no agent 'nobody'/);
    expect(() => teamChange(TEAM, OLD, OLD, ['brisk', 'sage'])).toThrow(/'sage' is in the policy's team already/);
  });
});

describe('the policy on the new team', () => {
  const shape = { ...TINY, behavior: 'mean' as const };
  const policy: PolicyArtifact = {
    format: 'cpp-policy',
    version: 1,
    shape,
    team: TEAM,
    encoder: 'bof-6',
    trainedOn: { cache: 'cache/default', seed: 0, epoch: 3 },
    weights: initWeights({ ...shape, behavior: 'random' }, 'transfer'),
  };
  const change = teamChange(TEAM, OLD, agents(['atlas', 'sim/atlas'], ['sage', 'sim/sage'], ['brisk-weaker', 'sim/brisk-weaker']));

  it("sets the newcomer's row of the behavior embedding and nothing else; without a row it keeps the replaced member's", () => {
    const row = Float32Array.from({ length: shape.dim }, (_, k) => k + 1);
    const moved = transferredPolicy(policy, change, row);
    expect(moved.team).toEqual(['atlas', 'sage', 'brisk-weaker']);
    const before = policy.weights.behavior.data;
    const after = moved.weights.behavior.data;
    expect(after.subarray(0, 2 * shape.dim)).toEqual(before.subarray(0, 2 * shape.dim));
    expect(after.subarray(2 * shape.dim)).toEqual(row);
    for (const name of Object.keys(policy.weights).filter((n) => n !== 'behavior')) expect(moved.weights[name]).toBe(policy.weights[name]);
    expect(policy.weights.behavior.data).toBe(before); // the old policy is left as it was
    expect(transferredPolicy(policy, change).weights.behavior.data).toEqual(before);
  });
});
