// The jobs of `cache gen | validate | stats | embed` (`cache import` is importJob.ts): each takes
// plain options and returns the text the command prints.
import { existsSync } from 'node:fs';
import { ensureEmbeddings } from '../src/cache/embeddings.ts';
import { CacheError, cacheFilePath, fileLines, formatProblem, loadCache, parseCache } from '../src/cache/load.ts';
import { cacheStats } from '../src/cache/stats.ts';
import { makeEncoder, type EncoderName } from '../src/encoders/index.ts';
import { readJsonFile } from '../src/jsonFile.ts';
import { generateCache } from '../src/sim/generate.ts';
import { WorldConfig } from '../src/sim/world.ts';

export interface GenOptions {
  out: string;
  /** JSON file of world settings; the fields below override it. */
  world?: string;
  questions?: number;
  seed?: number;
  adversary?: boolean;
  name: string;
}

export function genJob(o: GenOptions): string {
  const world = {
    ...(o.world ? readJsonFile(o.world, WorldConfig.partial()) : {}),
    ...(o.questions !== undefined && { questions: o.questions }),
    ...(o.seed !== undefined && { seed: o.seed }),
    ...(o.adversary !== undefined && { adversary: o.adversary }),
  };
  generateCache(o.out, WorldConfig.parse(world), o.name);
  return `wrote ${cacheFilePath(o.out)}`;
}

/** Every problem of a cache file (`file:line: field: problem`), or a one-line summary of a valid one. */
export function validateJob(dir: string): { text: string; valid: boolean } {
  const file = cacheFilePath(dir);
  if (!existsSync(file)) throw new CacheError([{ file, line: 0, field: '', message: 'file not found' }]);
  const { cache, problems } = parseCache(fileLines(file), file);
  if (!cache) return { text: [...problems.map(formatProblem), `${problems.length} problem${problems.length === 1 ? '' : 's'}: ${file} is not a valid cache`].join('\n'), valid: false };
  return { text: `${file}: valid (${cache.questions.length} questions, ${cache.agents.length} agents, ${cache.responses.length} responses)`, valid: true };
}

export const statsJob = (dir: string, priorSmoothing: number) => cacheStats(loadCache(dir), priorSmoothing);

export async function embedJob(dir: string, encoder: EncoderName): Promise<string> {
  const e = await ensureEmbeddings(dir, loadCache(dir), await makeEncoder(encoder));
  return `${dir}: ${e.questions.length} question and ${e.responses.length} response embeddings under ${e.encoder} (dim ${e.dim})`;
}
