// The fitted simulator as stored (`cache fit` writes it, the record tier reads it): the schema of
// simulator-fit.json beside a recorded cache (the knobs, the skill per subject, each question's
// options and drawn offset), its path, and the check that a fit still belongs to the cache beside it.
// Apart from fitted.ts (how the knobs are fitted) and fittedEndpoint.ts (how the fit answers), so
// that reading a fit needs neither the fitting nor the endpoint.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import { FIT_FILE } from '../cache/format.ts';
import type { Cache } from '../cache/types.ts';
import { writeFileAtomic } from '../io/atomic.ts';
import { readJsonFile } from '../io/jsonFile.ts';
import { InputError } from '../io/errors.ts';

export const fitPath = (dir: string) => join(dir, FIT_FILE);

const Knobs = z.strictObject({
  latentSd: z.number().nonnegative(),
  wrongFocus: z.number().min(0).max(1),
  knowledge: z.number().nonnegative(),
  slip: z.number().min(0).max(1),
  stubbornness: z.number().nonnegative(),
  ownBoost: z.number().nonnegative(),
  swayRight: z.number().nonnegative(),
  swayWrong: z.number().nonnegative(),
});
export type Knobs = z.infer<typeof Knobs>;

const FittedQuestion = z.strictObject({
  subject: z.string(),
  difficulty: z.number().min(0).max(1),
  /** The question's drawn ability offset (posterior given its round-1 answers). */
  offset: z.number(),
  /** Option 0 is the gold answer; the last is "no stated answer" (answer null). */
  options: z
    .array(
      z.strictObject({
        answer: z.string().nullable(),
        /** Id of a recorded response or shown solution stating it, whose text replies reuse; null: a one-line text. */
        source: z.string().nullable(),
      }),
    )
    .min(2),
  distractor: z.number().int().nonnegative(),
  /** Preferred wrong option per agent id (its recorded round-1 answer when wrong). */
  wrong: z.record(z.string(), z.number().int().nonnegative()),
});
export type FittedQuestion = z.infer<typeof FittedQuestion>;

export const SimulatorFit = z.strictObject({
  format: z.literal('cpp-simulator-fit'),
  version: z.literal(1),
  /** Name of the cache it was fitted to (its header's). */
  cache: z.string(),
  seed: z.number().int(),
  knobs: Knobs,
  /** P(right) on a question of medium difficulty (MATH level 3) at offset 0, per subject. */
  skill: z.record(z.string(), z.number().gt(0).lt(1)),
  fit: z.strictObject({
    round1Answers: z.number().int().nonnegative(),
    revisions: z.number().int().nonnegative(),
    /**
     * Mean log-likelihood per recorded revision: the fitted world's, and "state the previous answer
     * again" at its recorded share, else any other option alike.
     */
    logLik: z.number(),
    keepPreviousLogLik: z.number(),
  }),
  questions: z.record(z.string(), FittedQuestion),
});
export type SimulatorFit = z.infer<typeof SimulatorFit>;

export function saveFit(dir: string, fit: SimulatorFit): void {
  writeFileAtomic(fitPath(dir), [JSON.stringify(fit, null, 1) + '\n']);
}

/** The fitted world of a cache directory, checked against the cache it is to answer for. */
export function loadFit(cache: Cache): SimulatorFit {
  const file = fitPath(dirname(cache.file));
  const fit = readJsonFile(file, SimulatorFit);
  const stale: string[] = [];
  if (fit.cache !== cache.header.name) stale.push(`it was fitted to cache '${fit.cache}', this is '${cache.header.name}'`);
  for (const q of cache.questions)
    if (!fit.questions[q.id]) {
      stale.push(`question '${q.id}' is not in it`);
      break;
    }
  for (const [id, q] of Object.entries(fit.questions))
    for (const opt of q.options)
      if (opt.source !== null && !cache.responseIndex.has(opt.source) && !cache.externalIndex.has(opt.source)) {
        stale.push(`question '${id}': source '${opt.source}' is in no record`);
        break;
      }
  if (stale.length)
    throw new InputError(
      `${file} does not fit the cache beside it (${stale.slice(0, 3).join('; ')}): refit it with \`cache fit ${dirname(cache.file)} --force\``,
    );
  return fit;
}

/** Whether a cache directory holds a fitted simulator. */
export const hasFit = (dir: string) => existsSync(fitPath(dir));
