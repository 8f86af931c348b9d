// Debate and environment settings (docs/method.md §1 and §3). Every default here is a setting users may
// override from a config file or a flag.
import { z } from 'zod';

export const MISS_TIERS = ['error', 'signature', 'model', 'record'] as const;
export type MissTier = (typeof MISS_TIERS)[number];

/** Debate protocols (src/env/protocol.ts): the synchronous rounds of the method, or the one an imported log recorded. */
export const PROTOCOLS = ['synchronous', 'recorded'] as const;
export type Protocol = (typeof PROTOCOLS)[number];

/** Forms of the tier-3 response model (responseModel.ts). */
export const RESPONSE_MODELS = ['base', 'full'] as const;

export const DebateSettings = z.strictObject({
  agents: z.array(z.string()).optional().describe('team as agent ids, in debate order (default: every agent of the cache, in cache order)'),
  /** Round 1 is the independent answer, so a debate (something to prune) needs R >= 2. */
  rounds: z
    .number()
    .int()
    .min(
      2,
      'a debate needs at least 2 rounds: round 1 answers independently, round 2 revises after reading the others (below 2 there is no edge to keep or prune)',
    )
    .default(3)
    .describe('debate rounds R >= 2 (round 1 = independent answers); at most the deepest round the cache recorded, unless allowUnrecordedRounds'),
  /** Without it that is an error: a figure from such rounds reflects the fitted model, not recorded answers. */
  allowUnrecordedRounds: z
    .boolean()
    .default(false)
    .describe('with miss = model: replay rounds beyond the deepest round the cache recorded, the tier-3 model drawing every answer there'),
  protocol: z
    .enum(PROTOCOLS)
    .default('synchronous')
    .describe(
      "who reads what in rounds >= 2: synchronous (every member reads the others' previous-round answers) or recorded (the " +
        "imported log's own: each round's speakers, their order and what each read, early stops and dropped agents included; " +
        'docs/replay.md)',
    ),
  round1Sample: z
    .enum(['first', 'random'])
    .default('first')
    .describe("round-1 sample a debate starts from: the first, or a seeded random one (a training run's validation always starts from the first)"),
  tieBreak: z
    .enum(['lowest-agent', 'random'])
    .default('lowest-agent')
    .describe('majority tie rule: the answer of the lowest-numbered agent, or a seeded random tied answer'),
  miss: z
    .enum(MISS_TIERS)
    .default('model')
    .describe(
      'deepest lookup tier on a cache miss (docs/method.md §3); record asks the live endpoint (the simulator of a simulated cache, ' +
        'a fitted simulator (cache fit) or --endpoints) and journals each reply',
    ),
  tokenLimit: z
    .enum(['none', 'q85', 'q95'])
    .default('none')
    .describe(
      "per-agent output-token limit: none, or the 85th / 95th percentile of the agent's recorded output lengths; " +
        'a longer reply is cut and loses its answer (src/env/tokenLimit.ts)',
    ),
  responseModel: z
    .enum(RESPONSE_MODELS)
    .default('full')
    .describe(
      'tier-3 response model: full (own response kept or pruned, kept peers agreeing / disagreeing with the previous answer, ' +
        'peers weighted by their accuracy) or base (previous answer, kept peers, round-1 prior: docs/method.md §3 base form)',
    ),
  priorSmoothing: z.number().positive().default(0.5).describe('smoothing of the tier-3 prior p_r(b|q): pseudo-count added to every answer bucket'),
  seed: z.number().int().default(0).describe('seed of every random choice of a replay (and of a training run: initialization, shuffling, sampling)'),
});
export type DebateSettings = z.infer<typeof DebateSettings>;
