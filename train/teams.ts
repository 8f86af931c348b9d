// Training across teams (docs/transfer.md, "A team-general policy"): setting `teams` names caches
// of other teams on the same questions (simulated worlds with a seat taken by a family member,
// src/sim/family.ts, or imports); each step plays one team, drawn by the seed, so a policy that
// reads behavior rows has to read them to do well. Validation stays on the run's own cache and team.
// Every per-seat input is off unless setting `seatInputs` names it as an ablation (config.ts,
// seatInputsProblem), and the run says which it reads.
import seedrandom from 'seedrandom';
import { ensureEmbeddings, type Embeddings } from '../src/cache/embeddings.ts';
import { loadCache } from '../src/cache/load.ts';
import type { Cache } from '../src/cache/types.ts';
import type { Encoder } from '../src/encoders/index.ts';
import { keepAll, playDebates } from '../src/env/debate.ts';
import { splitQuestions, teamIds, type Environment } from '../src/env/environment.ts';
import { SettingsError } from '../src/io/errors.ts';
import { openEnvironment } from '../src/recording.ts';
import { meanResponseTokens } from '../src/reward.ts';
import { debateSettingsOf, seatInputsProblem, type TrainConfig } from './config.ts';
import { creditOf } from './counterfactual.ts';

/** One team a step can play: its cache, environment and embeddings, and what its rewards read. */
export interface Team {
  cache: Cache;
  env: Environment;
  emb: Embeddings;
  /** Full-Debate's cost per question (the budget term and the logged cost read it). */
  fullCost: Map<number, number>;
  meanTokens: number;
  priceIn: number[];
  credit: ReturnType<typeof creditOf>;
}

/** A team from its environment, embeddings and Full-Debate's cost per question. */
export const teamWith = (config: TrainConfig, env: Environment, emb: Embeddings, fullCost: Map<number, number>): Team => ({
  cache: env.cache,
  env,
  emb,
  fullCost,
  meanTokens: meanResponseTokens(env.cache),
  priceIn: env.team.map((a) => env.cache.agents[a].priceIn),
  credit: creditOf(config, env),
});

/** A team of another cache: Full-Debate played on `questions` for its costs. */
async function teamOf(config: TrainConfig, env: Environment, emb: Embeddings, questions: number[]): Promise<Team> {
  const full = await playDebates(env, questions, keepAll);
  return teamWith(config, env, emb, new Map(full.map((d) => [d.q, d.cost])));
}

/**
 * The run's own team first, then one per cache of setting `teams` (every agent of it, in cache
 * order): each must hold the run's train questions under the same ids and as many agents. A per-seat
 * input (behavior embedding, source or turn feature) would describe each seat's agents of every team
 * alike: refused unless `seatInputs` names it.
 */
export async function openTeams(config: TrainConfig, own: Team, encoder: Encoder): Promise<Team[]> {
  const problem = seatInputsProblem(config);
  if (problem) throw new SettingsError(`setting ${problem}`);
  if (config.teams.length === 0) return [own];
  const train = splitQuestions(own.env, 'train').questions;
  const teams = [own];
  for (const dir of config.teams) {
    const cache = loadCache(dir);
    const env = openEnvironment(cache, { ...debateSettingsOf(config, 'train'), agents: undefined });
    const differs = train.find((q) => cache.questions[q.index]?.id !== q.id || cache.questions[q.index].split !== 'train');
    if (differs)
      throw new SettingsError(`setting teams: ${dir} does not hold the run's train question '${differs.id}' at the same place: its questions differ`);
    if (env.team.length !== own.env.team.length)
      throw new SettingsError(`setting teams: ${dir} has ${env.team.length} agents, the run's team ${own.env.team.length}`);
    teams.push(
      await teamOf(
        config,
        env,
        await ensureEmbeddings(dir, cache, encoder),
        train.map((q) => q.index),
      ),
    );
  }
  return teams;
}

/** What a run across teams says: its teams, and what the policy knows an agent by. */
export function teamsNote(config: TrainConfig, teams: Team[]): string {
  const rows = config.behaviorRows ? 'behavior rows' : 'nothing (behaviorRows is off: no agent is told from another)';
  const kept = config.seatInputs.length ? `; per-seat inputs kept as an ablation: ${config.seatInputs.join(', ')}` : '; no per-seat input';
  return `training across ${teams.length} teams: ${teams.map((t) => teamIds(t.env).join('+')).join(', ')}; agents known by ${rows}${kept}`;
}

/** The team each step of an epoch plays: drawn uniformly by (seed, epoch), so a resumed run draws the same. */
export function teamDraw(config: TrainConfig, teams: Team[], epoch: number): () => Team {
  const random = seedrandom(`${config.seed}|team|${epoch}`);
  return () => (teams.length === 1 ? teams[0] : teams[Math.floor(random() * teams.length)]);
}
