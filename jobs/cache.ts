// The jobs of `cache gen | stats | audit | embed | compact | fit` (`cache import` is import.ts, `cache
// validate` validate.ts): each takes plain options and returns the text the command prints.
import { embedCache } from '../src/cache/embeddings.ts';
import { cacheFilePath, loadCache, loadCacheSteps } from '../src/cache/load.ts';
import { cacheStatsSteps } from '../src/cache/stats.ts';
import { auditReportSteps, type AuditOptions } from '../src/cache/audit.ts';
import { compactCache } from '../src/cache/write.ts';
import { onInterrupt, stoppableSteps } from '../src/io/interrupt.ts';
import { fidelityTableSteps } from '../src/env/modelFidelity.ts';
import { makeEncoder, type EncoderName } from '../src/encoders/index.ts';
import { readJsonFile } from '../src/io/jsonFile.ts';
import { parseSettings } from '../src/io/problems.ts';
import { fitPath, saveFit } from '../src/sim/fitFile.ts';
import { fitSimulatorSteps } from '../src/sim/fitted.ts';
import { generateCache } from '../src/sim/generate.ts';
import { markdownTable, pct } from '../src/table.ts';
import { existsSync } from 'node:fs';
import { WorldConfig } from '../src/sim/world.ts';
import { replaceAgent, replacementLine, type Replacement } from '../src/sim/replace.ts';
import { RefusedError } from '../src/io/errors.ts';
import { withLock } from '../src/io/lock.ts';

export interface GenOptions {
  out: string;
  /** JSON file of world settings; the fields below override it. */
  world?: string;
  questions?: number;
  seed?: number;
  adversary?: boolean;
  /** Derive the world with this member replaced (src/sim/replace.ts). */
  replace?: Replacement;
  name: string;
  /** Replace a cache the folder holds already (else an error). */
  force?: boolean;
}

export async function genJob(o: GenOptions): Promise<string> {
  const file: Partial<WorldConfig> = o.world ? readJsonFile(o.world, WorldConfig.partial()) : {};
  const flags = {
    ...(o.questions !== undefined && { questions: o.questions }),
    ...(o.seed !== undefined && { seed: o.seed }),
    ...(o.adversary !== undefined && { adversary: o.adversary }),
  };
  // A flag over the world file wins, and says so.
  for (const [k, v] of Object.entries(flags))
    if (file[k as keyof typeof flags] !== undefined && file[k as keyof typeof flags] !== v)
      console.error(`--${k} ${v} overrides ${k} ${file[k as keyof typeof flags]} of ${o.world}`);
  const world = parseSettings(WorldConfig, { ...file, ...flags }, (field) => (field in flags ? `--${field}` : `${o.world ?? 'world settings'}: ${field}`));
  const derived = o.replace && replaceAgent(world, o.replace);
  await generateCache(o.out, derived ? derived.world : world, o.name, o.force);
  return `wrote ${cacheFilePath(o.out)}${derived ? `: ${replacementLine(derived.replaced, derived.newcomer, o.replace!.ability)}` : ''}`;
}

/**
 * Work that only reads (loading a cache, computing a report), run as steps with stop points between
 * them (src/io/interrupt.ts stoppableSteps): stopped (Ctrl-C), it says that nothing was written.
 */
export function readingSteps<T>(what: string, steps: Generator<unknown, T>): Promise<T> {
  const unregister = onInterrupt({ say: () => [`${what} stopped before it printed anything; nothing was written (it only reads): a rerun starts over`] });
  return stoppableSteps(steps).finally(unregister);
}

/** What a cache holds (src/cache/stats.ts), then the tier-3 response model's fidelity on it. */
export function statsJob(dir: string, priorSmoothing: number): Promise<string> {
  return readingSteps(
    `cache stats ${dir}`,
    (function* () {
      const cache = yield* loadCacheSteps(dir);
      return `${yield* cacheStatsSteps(cache)}\n\n${yield* fidelityTableSteps(cache, priorSmoothing)}`;
    })(),
  );
}

/** The misread audit (src/cache/audit.ts): per agent, the responses whose stored answer is not in their closing sentences. */
export function auditJob(dir: string, o: AuditOptions): Promise<string> {
  return readingSteps(
    `cache audit ${dir}`,
    (function* () {
      return yield* auditReportSteps(yield* loadCacheSteps(dir), o);
    })(),
  );
}

/**
 * Embed every text of the cache not embedded yet, with the cache locked throughout (a second writer
 * is refused, naming this one); vectors are written as they are made and not kept (embedCache).
 */
export async function embedJob(dir: string, encoder: EncoderName): Promise<string> {
  return withLock(dir, 'a cache (cache embed)', async () => {
    const cache = loadCache(dir);
    const e = await makeEncoder(encoder);
    const { index, embedded } = await embedCache(dir, cache, e, { locked: true });
    return (
      `${dir}: ${cache.questions.length} question and ${cache.responses.length} response embeddings under ${e.id} (dim ${e.dim}): ` +
      `${index.size} distinct texts, ${embedded} embedded now`
    );
  });
}

/** Fold the record tier's journal into cache.jsonl (src/cache/write.ts compactCache). */
export async function compactJob(dir: string): Promise<string> {
  const unregister = onInterrupt({
    say: () => [`cache compact stopped before it renamed the new cache.jsonl into place: nothing was written; the cache and its journal are as they were`],
  });
  const r = await compactCache(dir).finally(unregister);
  return r.journalKept
    ? `${dir}: folded ${r.responses} journaled responses into cache.jsonl; the journal grew meanwhile (a run is recording) and was left whole`
    : `${dir}: folded ${r.responses} journaled responses into ` +
        `cache.jsonl${r.unanswered ? `; the journal keeps ${r.unanswered} intents without replies` : '; journal removed'}`;
}

/**
 * Fit a simulator to a recorded cache's records (src/sim/fitted.ts) and write it beside the cache,
 * where the record tier finds it as the cache's live endpoint; prints the fitted knobs and how the
 * fitted world's revisions compare with the recorded ones.
 */
export function fitJob(dir: string, o: { seed: number; force?: boolean }): Promise<string> {
  return withLock(dir, 'a cache (cache fit)', () => fitLocked(dir, o));
}

/** Stopped (Ctrl-C) while it loads the cache or fits (stop points in both), it writes nothing. */
async function fitLocked(dir: string, o: { seed: number; force?: boolean }): Promise<string> {
  const file = fitPath(dir);
  if (existsSync(file) && !o.force)
    throw new RefusedError(`${file} exists: pass --force to fit again (the endpoint's answers to contexts not yet recorded change with it)`);
  const unregister = onInterrupt({ say: () => [`cache fit ${dir} stopped before it wrote ${file}; nothing was written: a rerun fits from the start`] });
  const { cache, fit, calibration } = await stoppableSteps(
    (function* () {
      const cache = yield* loadCacheSteps(dir);
      return { cache, ...(yield* fitSimulatorSteps(cache, { seed: o.seed, log: (line) => console.error(line) })) };
    })(),
  ).finally(unregister);
  saveFit(dir, fit);
  const k = fit.knobs;
  const knobs = markdownTable(
    ['knob', 'fitted', 'default world (atlas / sage / brisk)'],
    [
      ['latentSd (one offset per question, shared by the agents)', k.latentSd.toFixed(2), '3.2 (one per agent and question)'],
      ['wrongFocus', k.wrongFocus.toFixed(3), '0.6'],
      ['knowledge', k.knowledge.toFixed(3), '0.25'],
      ['slip', k.slip.toFixed(3), '0.08'],
      ['stubbornness + ownBoost (split 1 : 0.67, assumed)', `${k.stubbornness.toFixed(2)} + ${k.ownBoost.toFixed(2)}`, '2.6 + 1.8 / 2.3 + 1.5 / 1.8 + 1.2'],
      ['swayRight', k.swayRight.toFixed(2), '4.3 / 5.8 / 6.8'],
      ['swayWrong', k.swayWrong.toFixed(2), '4.3 / 5.4 / 6.8'],
    ],
  );
  const skill = markdownTable(
    ['subject', 'skill (P right at level 3, offset 0)'],
    Object.entries(fit.skill).map(([s, p]) => [s, pct(p)]),
  );
  const rows = markdownTable(
    ['previous answer', 'peers agreeing with it', 'revisions', 'right afterwards: recorded', 'fitted world'],
    calibration.map((r) => [r.fromRight ? 'right' : 'wrong', `${r.agreeing} of ${r.peers}`, String(r.n), pct(r.recorded), pct(r.fitted)]),
  );
  return [
    `wrote ${file}: a simulator fitted to the ${fit.fit.round1Answers} round-1 answers and ${fit.fit.revisions} revisions of ${cache.file} (seed ${fit.seed})`,
    'It is now the live endpoint of this cache (miss = record, `record`, `active`, `fidelity`): a ' +
      'model of the recorded agents; what it answers for contexts nobody recorded is its assumption.',
    '',
    knobs,
    '',
    skill,
    '',
    `Revision log-likelihood per recorded revision: fitted world ${fit.fit.logLik.toFixed(3)}; "state the previous ` +
      `answer again at its recorded share, else any other answer alike" ${fit.fit.keepPreviousLogLik.toFixed(3)}.`,
    '',
    rows,
  ].join('\n');
}
