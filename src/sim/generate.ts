// Generates the simulated default world as a cache: questions, agents, independent round-1
// samples, and recorded debates (Full-Debate, No-communication, random keep masks) per question.
import { existsSync, rmSync } from 'node:fs';
import { resolve } from 'node:path';
import seedrandom from 'seedrandom';
import { CACHE_FORMAT, CACHE_VERSION, type CacheLine, type QuestionRecord, type ResponseRecord } from '../cache/format.ts';
import { cacheFilePath } from '../cache/load.ts';
import { tokenCounter } from '../cache/tokens.ts';
import { fileLines } from '../io/textFile.ts';
import { replacedWithCache, writeCacheRecords, writeCacheRecordsYielding } from '../cache/write.ts';
import { lockFolderWaitingSync, withLock } from '../io/lock.ts';
import { candidateOrder } from '../env/actions.ts';
import { progress } from '../progress.ts';
import { assignSplits } from '../cache/splits.ts';
import { profileLookup, replyFields, round3, VOCAB } from './simulator.ts';
import { OPTIONS, WorldConfig, worldAgents } from './world.ts';
import { RefusedError } from '../io/errors.ts';

/** Prompt tokens of a question: gpt-tokenizer's default encoding, o200k_base. */
const countTokens = tokenCounter('o200k_base');

function questionText(id: string, subject: string, random: () => number): string {
  const vocab = VOCAB[subject] ?? ['matter'];
  const w = () => vocab[Math.floor(random() * vocab.length)];
  const options = OPTIONS.map((o) => `(${o}) the ${w()} ${['holds', 'fails', 'doubles', 'vanishes', 'dominates'][Math.floor(random() * 5)]}`);
  return `${subject[0].toUpperCase()}${subject.slice(1)} question ${id}: given the ${w()} and the ${w()}, what happens to the ${w()}? ${options.join(' ')}`;
}

/** Every record of a simulated world cache, header first; `onQuestion` reports progress. */
export function* generateWorld(config: Partial<WorldConfig>, name = 'default-sim', onQuestion?: (done: number, total: number) => void): Generator<CacheLine> {
  const world = WorldConfig.parse(config);
  const agents = worldAgents(world);
  const profile = profileLookup(world, 'the world config');
  const random = seedrandom(`${world.seed}|world`);
  yield { type: 'cache', format: CACHE_FORMAT, version: CACHE_VERSION, name, source: 'simulator', simulator: world };
  for (const a of agents) yield { type: 'agent', id: a.id, model: a.model, priceIn: a.priceIn, priceOut: a.priceOut };

  const split = assignSplits(world.questions, world.trainFraction, world.validationFraction, random);
  const width = String(world.questions).length;
  for (let qi = 0; qi < world.questions; qi++) {
    const id = `q${String(qi + 1).padStart(width, '0')}`;
    const subject = world.subjects[Math.floor(random() * world.subjects.length)];
    const difficulty = (random() + random() + random()) / 3;
    const gold = Math.floor(random() * OPTIONS.length);
    const distractor = (gold + 1 + Math.floor(random() * (OPTIONS.length - 1))) % OPTIONS.length;
    const text = questionText(id, subject, random);
    const question: QuestionRecord = {
      type: 'question',
      id,
      text,
      gold: OPTIONS[gold],
      benchmark: 'sim-mcq',
      answerType: 'mcq',
      split: split[qi],
      promptTokens: countTokens(text) + world.instructionTokens,
      meta: { subject, difficulty: round3(difficulty), distractor },
    };
    yield question;
    yield* questionResponses(
      world,
      profile,
      question,
      agents.map((a) => a.id),
      random,
    );
    onQuestion?.(qi + 1, world.questions);
  }
}

function* questionResponses(
  world: WorldConfig,
  profile: ReturnType<typeof profileLookup>,
  question: QuestionRecord,
  team: string[],
  random: () => number,
): Generator<ResponseRecord> {
  const respond = (agent: string, round: number, context: ResponseRecord[], prev: ResponseRecord | null, sample: number, id: string): ResponseRecord => ({
    type: 'response',
    id,
    question: question.id,
    agent,
    round,
    sample,
    context: context.map((c) => c.id),
    prev: prev?.id ?? null,
    ...replyFields(world, profile, question, agent, round, context, prev, sample),
  });
  const first: ResponseRecord[] = [];
  for (const agent of team)
    for (let s = 0; s < world.round1Samples; s++) {
      const r = respond(agent, 1, [], null, s, `${question.id}.${agent}.r1.s${s}`);
      if (s === 0) first.push(r);
      yield r;
    }
  // Recorded debates: every edge kept, only the own edge kept, then random masks.
  const n = team.length;
  const rules: ((i: number, j: number) => boolean)[] = [() => true, (_i, j) => j === 0];
  for (let k = 0; k < world.randomTrajectories; k++) rules.push(() => random() < world.randomKeep);
  const recorded = new Map<string, ResponseRecord>();
  for (const keep of rules) {
    let current = first;
    for (let t = 2; t <= world.rounds; t++) {
      const next: ResponseRecord[] = [];
      for (let i = 0; i < n; i++) {
        const context = candidateOrder(n, i)
          .filter((_, j) => keep(i, j))
          .map((c) => current[c]);
        const key = `${i}|${t}|${context
          .map((c) => c.id)
          .sort()
          .join(',')}`;
        let r = recorded.get(key);
        if (!r) {
          r = respond(team[i], t, context, current[i], 0, `${question.id}.${team[i]}.r${t}.${recorded.size}`);
          recorded.set(key, r);
          yield r;
        }
        next.push(r);
      }
      current = next;
    }
  }
}

/**
 * Write a simulated world to `dir`, with a progress bar and the folder locked; checked before it is
 * renamed into place, and a stop (SIGINT, SIGTERM) meanwhile leaves the folder as it was. A folder
 * holding a cache is an error unless `force`: then the cache is replaced, and the record journal
 * and import report of the replaced one go once it is (they belong to it; its embeddings stay,
 * matched by text).
 */
export async function generateCache(dir: string, world: Partial<WorldConfig>, name: string, force = false): Promise<void> {
  await withLock(dir, 'a cache (cache gen)', async () => {
    if (existsSync(cacheFilePath(dir)) && !force)
      throw new RefusedError(`${dir} already holds a cache (${cacheFilePath(dir)}): pass --force to replace it, or choose another --out`);
    const replaced = existsSync(cacheFilePath(dir)) ? replacedWithCache(dir) : [];
    await writeWorld(dir, world, name, async (d, lines) => void (await writeCacheRecordsYielding(d, lines)));
    for (const f of replaced) rmSync(f, { force: true });
  });
}

/** Write the world's cache.jsonl with `write`, at once or giving the event loop turns (the caller holds the folder's lock). */
function writeWorld<T extends void | Promise<void>>(
  dir: string,
  world: Partial<WorldConfig>,
  name: string,
  write: (dir: string, lines: Iterable<CacheLine>) => T,
): T {
  const bar = progress(`generate ${name}`, world.questions ?? WorldConfig.shape.questions.parse(undefined));
  let written: T | undefined;
  try {
    written = write(
      dir,
      generateWorld(world, name, (done, total) => bar.update(done, total)),
    );
    return written instanceof Promise ? (written.finally(() => bar.stop()) as T) : written;
  } finally {
    if (!(written instanceof Promise)) bar.stop();
  }
}

/** Where the default simulated world lives. */
export const DEFAULT_CACHE = 'cache/default';
/** Where the default world with the adversary (`mallory`, `cache gen --adversary`) lives. */
export const ADVERSARY_CACHE = 'cache/adversary';

/** The caches made on first use: their documented paths and worlds. */
const FIRST_USE: { dir: string; world: Partial<WorldConfig>; name: string }[] = [
  { dir: DEFAULT_CACHE, world: {}, name: 'default-sim' },
  { dir: ADVERSARY_CACHE, world: { adversary: true }, name: 'adversary-sim' },
];

/**
 * Generate the default world (or the adversary world) when `dir` is its documented path and holds
 * no cache yet; say so when the cache there is another world. Any other path is left alone, so a
 * mistyped --cache fails to load (naming the path) instead of silently becoming a new simulated world.
 */
export function ensureDefaultCache(dir: string): void {
  const known = FIRST_USE.find((c) => resolve(c.dir) === resolve(dir));
  if (!known) return;
  if (existsSync(cacheFilePath(dir))) {
    if (!holdsWorld(dir, known.world))
      console.error(
        `warning: ${dir} holds another world than today's ${known.name} world (an earlier simulator, or other settings): delete it to regenerate it`,
      );
    return;
  }
  // Two jobs started at once on a fresh checkout: one generates, the other waits for it.
  const unlock = lockFolderWaitingSync(dir, 'a cache (made on first use)', 600);
  try {
    if (existsSync(cacheFilePath(dir))) return;
    console.error(
      `no cache at ${dir}: generating the ${known.name === 'default-sim' ? 'default simulated world' : 'simulated world with the adversary'} there`,
    );
    writeWorld(dir, known.world, known.name, (d, lines) => {
      writeCacheRecords(d, lines);
    });
  } finally {
    unlock();
  }
}

/** Whether the cache in `dir` was generated with today's settings of `world` (read from its header). */
export function holdsWorld(dir: string, world: Partial<WorldConfig> = {}): boolean {
  let header = '{}';
  for (const line of fileLines(cacheFilePath(dir))) {
    header = line;
    break; // closes the file
  }
  return JSON.stringify((JSON.parse(header) as { simulator?: unknown }).simulator) === JSON.stringify(WorldConfig.parse(world));
}
