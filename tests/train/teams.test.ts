// Training across teams (train/teams.ts): a team-general run reads no per-seat input unless an
// ablation names it (train/config.ts, seatInputsProblem), the family its other teams seat
// (src/sim/family.ts), the team each step plays, a run across teams end to end, and `transfer
// --general` with its policies.
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { genJob } from '../../jobs/cache.ts';
import { transferJob } from '../../jobs/transfer.ts';
import { loadAnyPolicy } from '../../src/policy/artifact.ts';
import { SEAT_INPUTS, seatInputsOf } from '../../src/policy/model.ts';
import { FAMILY_RANGES, familyMember } from '../../src/sim/family.ts';
import { replaceAgent } from '../../src/sim/replace.ts';
import { logit, sigmoid, WorldConfig, worldAgents } from '../../src/sim/world.ts';
import { flagSettings } from '../../cli/flags.ts';
import { resolveConfig, type TrainConfig } from '../../train/config.ts';
import { readLog, runFiles } from '../../train/runFolder.ts';
import { teamDraw, type Team } from '../../train/teams.ts';
import { train } from '../../train/trainer.ts';

/** The team-general architecture: no per-seat input, agents known by their behavior rows. */
const GENERAL = { behavior: 'none', sourceFeature: false, behaviorRows: 1 } as const;

describe('training across teams reads no per-seat input unless an ablation names it', () => {
  const teams = ['cache/family-0'];

  it('each per-seat input is declared once, and an architecture says which it reads', () => {
    expect(SEAT_INPUTS).toEqual(['behavior', 'sourceFeature', 'turnFeature']);
    expect(seatInputsOf({ behavior: 'mean', sourceFeature: true, turnFeature: false })).toEqual(['behavior', 'sourceFeature']);
    expect(seatInputsOf({ behavior: 'none', sourceFeature: false, turnFeature: true })).toEqual(['turnFeature']);
    expect(seatInputsOf({ ...GENERAL, turnFeature: false })).toEqual([]);
  });

  it('refuses each one that is on, saying how to turn it off or keep it as an ablation', () => {
    expect(resolveConfig({ ...GENERAL, teams }).seatInputs).toEqual([]);
    // sourceFeature is on by default: a run across teams that leaves it out is refused, not trained with it.
    expect(() => resolveConfig({ behavior: 'none', behaviorRows: 1, teams })).toThrow(
      'setting teams: training across teams reads agents by their behavior rows, and sourceFeature describes a seat, not the agent in it: ' +
        'set sourceFeature: false (--no-source-feature), or name it in seatInputs (--seat-inputs sourceFeature) to keep it as an ablation',
    );
    expect(() => resolveConfig({ ...GENERAL, turnFeature: true, teams })).toThrow(
      'and turnFeature describes a seat, not the agent in it: set turnFeature: false (--no-turn-feature), or name it in seatInputs',
    );
    expect(() => resolveConfig({ teams })).toThrow(
      'and behavior, sourceFeature describe a seat, not the agent in it: set behavior: none (--behavior none), sourceFeature: false (--no-source-feature), ' +
        'or name them in seatInputs (--seat-inputs behavior,sourceFeature) to keep them as an ablation',
    );
  });

  it('keeps an input an ablation names, and refuses a name that keeps nothing', () => {
    expect(resolveConfig({ ...GENERAL, sourceFeature: true, seatInputs: ['sourceFeature'], teams }).sourceFeature).toBe(true);
    expect(() => resolveConfig({ ...GENERAL, turnFeature: true, sourceFeature: true, seatInputs: ['sourceFeature'], teams })).toThrow(
      'and turnFeature describes a seat',
    );
    expect(() => resolveConfig({ ...GENERAL, seatInputs: ['turnFeature'], teams })).toThrow(
      'setting seatInputs: names turnFeature, which is off: nothing to keep',
    );
    expect(() => resolveConfig({ seatInputs: ['sourceFeature'] })).toThrow(
      'setting seatInputs: names sourceFeature, kept across teams, and teams is empty: nothing to keep',
    );
    expect(flagSettings({ seatInputs: ['sourceFeature'] })).toEqual({ seatInputs: ['sourceFeature'] });
    expect(() => flagSettings({ seatInputs: ['source'] })).toThrow(/--seat-inputs/);
  });
});

describe('the family of simulated agents (src/sim/family.ts)', () => {
  const [atlas, , brisk] = worldAgents(WorldConfig.parse({}));

  it('member k is the same agent in every seat: drawn by its index alone, with the subjects of the seat it takes', () => {
    const inAtlas = familyMember(3, atlas);
    const inBrisk = familyMember(3, brisk);
    expect(inAtlas).toMatchObject({ id: 'family-3', model: 'sim/family-3' });
    for (const k of ['persuasion', 'stubbornness', 'swayRight', 'swayWrong', 'meanTokens', 'priceOut', 'priceIn', 'adversarial'] as const)
      expect(inBrisk[k], k).toEqual(inAtlas[k]);
    expect(Object.keys(inAtlas.skill)).toEqual(Object.keys(atlas.skill));
    expect(familyMember(4, atlas).persuasion).not.toBe(inAtlas.persuasion);
    const seated = replaceAgent(WorldConfig.parse({}), { agent: 'brisk', ability: 'family-3' });
    expect(worldAgents(seated.world).map((a) => a.id)).toEqual(['atlas', 'sage', 'family-3']);
    expect(seated.newcomer).toEqual(inBrisk);
  });

  it('draws every member within the stated ranges, a quarter of them adversarial', () => {
    const members = Array.from({ length: 400 }, (_, k) => familyMember(k, atlas));
    const within = (x: number, [lo, hi]: readonly [number, number]) => x >= lo && x <= hi;
    const R = FAMILY_RANGES;
    const skill = [sigmoid(logit(R.skill[0]) - 0.8), sigmoid(logit(R.skill[1]) + 0.8)] as const;
    for (const m of members) {
      expect(
        Object.values(m.skill).every((p) => within(p, skill)),
        m.id,
      ).toBe(true);
      expect(within(m.persuasion, R.persuasion) && within(m.stubbornness, R.stubbornness), m.id).toBe(true);
      expect(within(m.swayRight, R.sway) && within(m.swayWrong, R.sway) && within(m.meanTokens, R.meanTokens), m.id).toBe(true);
      expect(within(m.priceOut, R.priceOut) && m.priceIn === m.priceOut / 3, m.id).toBe(true);
      if (m.adversarial) expect(m.eloquence, m.id).toBe(0.35);
    }
    const adversarial = members.filter((m) => m.adversarial).length / members.length;
    expect(adversarial).toBeGreaterThan(0.18);
    expect(adversarial).toBeLessThan(0.32);
  });
});

describe('the team each step plays', () => {
  const teams = ['own', 'family-0', 'family-1'] as unknown as Team[];
  const draws = (seed: number, epoch: number, n = 60) => {
    const draw = teamDraw({ seed } as TrainConfig, teams, epoch);
    return Array.from({ length: n }, () => teams.indexOf(draw()));
  };

  it('is drawn uniformly by (seed, epoch): the same again on a resumed run, another in another epoch or seed', () => {
    expect(draws(0, 1)).toEqual(draws(0, 1));
    expect(draws(0, 2)).not.toEqual(draws(0, 1));
    expect(draws(1, 1)).not.toEqual(draws(0, 1));
    const counts = [0, 1, 2].map((t) => draws(0, 1, 600).filter((d) => d === t).length);
    for (const c of counts) expect(c).toBeGreaterThan(150);
    const alone = teamDraw({ seed: 0 } as TrainConfig, [teams[0]], 1);
    expect([alone(), alone()]).toEqual([teams[0], teams[0]]);
  });
});

describe('a team-general policy trained across teams, and moved to a new team with transfer --general', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cpp-teams-'));
  const world = join(dir, 'world');
  const SMALL: Partial<TrainConfig> = { epochs: 1, batchSize: 10, hidden: 16, backend: 'cpu', threads: 1, seed: 0, cache: world };
  const stepLines = (out: string) =>
    readLog(out)
      .filter((l) => l.type === 'step')
      .map((l) => ({ loss: l.loss, keepRate: l.keepRate, meanReward: l.meanReward, costPct: l.costPct }));

  it('plays the drawn team at each step, says what the policy knows agents by, and its policies take the way (f) of transfer', async () => {
    await genJob({ out: world, questions: 120, name: 'small' });
    await genJob({ out: join(dir, 'family-0'), questions: 120, name: 'family-0', replace: { agent: 'atlas', ability: 'family-0' } });
    await genJob({ out: join(dir, 'family-1'), questions: 120, name: 'family-1', replace: { agent: 'brisk', ability: 'family-1' } });
    await genJob({ out: join(dir, 'family-101'), questions: 120, name: 'family-101', replace: { agent: 'brisk', ability: 'family-101' } });
    const said: string[] = [];
    const general = { ...SMALL, ...GENERAL, teams: [join(dir, 'family-0'), join(dir, 'family-1')], out: join(dir, 'general') };
    await train(resolveConfig(general), { log: (l) => said.push(l) });
    expect(said).toContain(
      'training across 3 teams: atlas+sage+brisk, family-0+sage+brisk, atlas+sage+family-1; agents known by behavior rows; no per-seat input',
    );

    // The same run on its own team alone: equal step for step while the draw gives the run's own team, different from the first step that plays another.
    await train(resolveConfig({ ...SMALL, ...GENERAL, out: join(dir, 'alone') }), { log: () => {} });
    const drawn = (() => {
      const draw = teamDraw(resolveConfig(general), [0, 1, 2] as unknown as Team[], 1);
      return Array.from({ length: 6 }, () => draw() as unknown as number);
    })();
    const other = drawn.findIndex((t) => t !== 0);
    expect(other).toBeGreaterThanOrEqual(0);
    const [across, alone] = [stepLines(join(dir, 'general')), stepLines(join(dir, 'alone'))];
    expect(across).toHaveLength(6); // 60 train questions, batches of 10
    expect(across.slice(0, other)).toEqual(alone.slice(0, other));
    expect(across[other]).not.toEqual(alone[other]);

    const policy = loadAnyPolicy(runFiles(join(dir, 'general')).best);
    expect(seatInputsOf(policy.shape)).toEqual([]);
    expect(policy.shape.behaviorRows).toBe(1);

    // transfer --general: a policy that reads a per-seat input is refused before anything trains ...
    const method = join(dir, 'method');
    await train(resolveConfig({ ...SMALL, out: method }), { log: () => {} });
    const options = (generalPolicy: string, out: string) => ({
      policies: [runFiles(method).best],
      general: [generalPolicy],
      cache: join(dir, 'family-101'),
      steps: 2,
      traceEvery: 1000,
      workers: 2,
      compute: { engine: 'auto' as const, threads: 1, backend: 'cpu' as const },
      out,
    });
    await expect(transferJob(options(runFiles(method).best, join(dir, 'refused')))).rejects.toThrow(
      `--general ${runFiles(method).best}: not a team-general policy (it needs behaviorRows on and no per-seat input; it reads behavior, sourceFeature)`,
    );
    expect(existsSync(join(dir, 'refused', 'scratch'))).toBe(false);
    // ... and the team-general one is the way (f) on a team with a held-out family member, untrained, with its claim.
    const printed = await transferJob(options(runFiles(join(dir, 'general')).best, join(dir, 'transfer')));
    expect(printed).toContain('brisk (sim/brisk-mini) replaced by family-101 (sim/family-101)');
    expect(printed).toMatch(/\| \(f\) team-general policy, no training +\| \d+\.\d/);
    expect(printed).toMatch(/- \(f\) keeps .* Claim, at least 80%: \(f\)'s gain minus 80% of \(d\)'s is [+-]\d/);
  }, 1_200_000);
});
