// The main job (`npm start`): make sure the default simulated cache exists, then replay the
// fixed methods on its test split and print accuracy and cost beside Full-Debate.
import { existsSync } from 'node:fs';
import type { Split } from '../src/cache/format.ts';
import { cacheFilePath, loadCache } from '../src/cache/load.ts';
import { writeCacheRecords } from '../src/cache/write.ts';
import { makeEnvironment, TIERS, type TierCounts } from '../src/env/environment.ts';
import type { DebateSettings } from '../src/env/settings.ts';
import { progress } from '../src/progress.ts';
import { generateWorld } from '../src/sim/generate.ts';
import { simulatorEndpoint } from '../src/sim/simulator.ts';
import type { WorldConfig } from '../src/sim/world.ts';
import { markdownTable, pct } from '../src/table.ts';
import { fullDebate, noCommunication, singleAgent, type MethodResult } from './baselines.ts';
import { signedUtility, summarize } from './ledger.ts';

export function generateCache(dir: string, world: Partial<WorldConfig>, name: string): void {
  const bar = progress(`generate ${name}`, world.questions ?? 1);
  writeCacheRecords(dir, generateWorld(world, name, (done, total) => bar.update(done, total)));
  bar.stop();
}

export function tierShares(t: TierCounts): string {
  const total = TIERS.reduce((s, k) => s + t[k], 0);
  if (total === 0) return '-';
  return TIERS.filter((k) => t[k] > 0).map((k) => `${k} ${pct(t[k] / total, 0)}`).join(', ');
}

/**
 * One row per method: accuracy, cost % of the reference, kept edges, tier shares, the transition
 * ledger with collapse onsets by round, and signed utility against the reference (the first result).
 */
export function methodTable(results: MethodResult[], reference: MethodResult, weights = { collapse: 1, correction: 1 }): string {
  const rounds = Math.max(1, ...results.flatMap((r) => r.ledger.map((e) => e.onset ?? 1)));
  const table = markdownTable(
    ['method', 'accuracy', 'correct', 'cost %', 'kept edges', 'preserved', 'collapse', 'correction', 'unrepaired', 'invalid', 'onset by round', `utility vs ${reference.method}`, 'tiers (revisions)'],
    results.map((r) => {
      const l = summarize(r.ledger, rounds);
      const u = signedUtility(r.ledger, reference.ledger, weights.collapse, weights.correction);
      return [
        r.method, pct(r.correct / r.questions), `${r.correct}/${r.questions}`, (100 * r.cost / reference.cost).toFixed(1), `${r.keptEdges}/${r.maxEdges}`,
        l.counts.preserved, l.counts.collapse, l.counts.correction, l.counts.unrepaired, l.counts.invalid,
        l.onsets.slice(2).map((n, i) => `r${i + 2}:${n}`).join(' ') || '-',
        r === reference ? '-' : `${u.utility} (+${u.collapsesPrevented} / -${u.correctionsLost})`,
        tierShares(r.tiers),
      ];
    }),
  );
  return `${table}\n\nutility = ${weights.collapse} x collapses prevented - ${weights.correction} x corrections lost, against ${reference.method} on the same questions (shown as +prevented / -lost).`;
}

export function ensureDefaultCache(dir: string): void {
  if (existsSync(cacheFilePath(dir))) return;
  console.error(`no cache at ${dir}: generating the default simulated world there`);
  generateCache(dir, {}, 'default-sim');
}

export function baselineJob(opts: { cache: string; split: Split; settings: Partial<DebateSettings> }): string {
  ensureDefaultCache(opts.cache);
  const cache = loadCache(opts.cache);
  const endpoint = cache.header.source === 'simulator' ? simulatorEndpoint(cache) : undefined;
  const env = makeEnvironment(cache, opts.settings, opts.settings.miss === 'record' ? endpoint : undefined);
  const questions = cache.questions.filter((q) => q.split === opts.split);
  if (questions.length === 0) throw new Error(`cache ${cache.file} has no questions in split '${opts.split}'`);
  const full = fullDebate(env, questions);
  const results = [full, noCommunication(env, questions), ...env.team.map((_, i) => singleAgent(env, questions, i))];
  const source = cache.header.source === 'simulator' ? 'SIMULATED world (a seeded simulator, not model data)' : `${cache.header.source} data`;
  return [
    `${cache.header.name}: ${source}; split ${opts.split}, ${questions.length} questions; team ${env.team.map((a) => cache.agents[a].id).join(', ')}; ${env.rounds} rounds; miss = ${env.settings.miss}`,
    '',
    methodTable(results, full),
    '',
    'cost % = cost / Full-Debate cost on the same questions x 100 (each call priced with its own model\'s prices).',
  ].join('\n');
}
