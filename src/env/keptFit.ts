// The response model's fitted weights kept beside the cache (`<cache>/fits.json`), so that a
// process that fits a cache fitted before takes the weights instead (the fit is the largest part
// of a training process's setup: about 10 s of CPU at 10,000 questions, 100 s at 100,000). An entry
// is keyed by the form, the prior smoothing and FIT_VERSION, and bound to what the fit reads:
// cache.jsonl and its record journal as they are now (sourceState: size, mtime, inode, end blocks,
// as the columns file is). An entry bound to other files is never used: the model is fitted again
// and the entry replaced, and a line says so. The rest of the model (priors, accuracies) is made
// from the cache each time (tens of milliseconds). JSON keeps every weight exactly.
import { dirname, join } from 'node:path';
import type { Cache } from '../cache/types.ts';
import { keepEntry, keptEntries } from '../io/jsonFile.ts';
import type { AgentFit } from './responseModel.ts';
import { FIT_VERSION } from './responseModelFit.ts';
import type { DebateSettings } from './settings.ts';

export const FITS_FILE = 'fits.json';

type FitSettings = Pick<DebateSettings, 'responseModel' | 'priorSmoothing'>;
interface Entry {
  from: string;
  fits: AgentFit[];
}

const fitsPath = (cache: Cache) => join(dirname(cache.file), FITS_FILE);
const keyOf = (s: FitSettings) => `${s.responseModel}|${s.priorSmoothing}|${FIT_VERSION}`;

/** The entries of a fits file: none when it is not there or does not parse (each is then fitted again). */
const entries = (file: string) => keptEntries(file) as Record<string, Entry | undefined>;

const isFits = (fits: unknown, agents: number): fits is AgentFit[] =>
  Array.isArray(fits) &&
  fits.length === agents &&
  fits.every((f) => Array.isArray(f?.weights) && f.weights.every((w: unknown) => Number.isFinite(w)) && Number.isFinite(f.slip));

/** The kept weights of `cache`'s fit under `s` when bound to the cache as it is (`from`: recordsBinding now); a stale entry is said. */
export function keptFits(cache: Cache, s: FitSettings, from: string): AgentFit[] | undefined {
  const file = fitsPath(cache);
  const entry = entries(file)[keyOf(s)];
  if (!entry) return undefined;
  if (entry.from === from && isFits(entry.fits, cache.agents.length)) return entry.fits;
  console.error(
    `${file}: the response model's fit (${s.responseModel}, prior smoothing ${s.priorSmoothing}) was made from another ${cache.file}: fitted again`,
  );
  return undefined;
}

/** Keep `fits` (made from the cache as `from` says) for the next process; a folder that cannot be written is said, and the next process fits again. */
export function keepFits(cache: Cache, s: FitSettings, from: string, fits: AgentFit[]): void {
  keepEntry(fitsPath(cache), keyOf(s), { from, fits }, 'fits the response model');
}
