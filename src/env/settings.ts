// Debate and environment settings (SPEC §1 and §3). Every default here is a setting users may
// override from a config file or a flag.
import { z } from 'zod';

export const MISS_TIERS = ['error', 'signature', 'model', 'record'] as const;
export type MissTier = (typeof MISS_TIERS)[number];

/** Forms of the tier-3 response model (responseModel.ts). */
export const RESPONSE_MODELS = ['base', 'full'] as const;

export const DebateSettings = z.strictObject({
  /** Team, as agent ids in debate order; default: every agent of the cache, in cache order. */
  agents: z.array(z.string()).optional(),
  /** Rounds R; round 1 is the independent answer, so a debate (something to prune) needs R >= 2. */
  rounds: z
    .number()
    .int()
    .min(
      2,
      'a debate needs at least 2 rounds: round 1 answers independently, round 2 revises after reading the others (below 2 there is no edge to keep or prune)',
    )
    .default(3),
  /**
   * Replay rounds beyond the deepest round the cache recorded, every answer there drawn by the
   * tier-3 response model (miss = model only). Without it that is an error: a figure from such
   * rounds reflects the fitted model, not recorded answers.
   */
  allowUnrecordedRounds: z.boolean().default(false),
  /** Which round-1 sample a debate starts from: sample 0, or a seeded random one. */
  round1Sample: z.enum(['first', 'random']).default('first'),
  /** Majority ties go to the answer of the lowest-numbered agent, or to a seeded random tied answer. */
  tieBreak: z.enum(['lowest-agent', 'random']).default('lowest-agent'),
  /** Deepest lookup tier allowed on a cache miss (SPEC §3). */
  miss: z.enum(MISS_TIERS).default('model'),
  /** Per-agent output-token limit: none, or the 85th / 95th percentile of the agent's recorded output lengths (tokenLimit.ts). */
  tokenLimit: z.enum(['none', 'q85', 'q95']).default('none'),
  /**
   * Tier-3 response model: 'full' (own response kept or pruned, kept peers agreeing / disagreeing
   * with the previous answer, peers weighted by their agent's accuracy) or 'base' (previous answer,
   * kept peers, round-1 prior: SPEC §3's base form).
   */
  responseModel: z.enum(RESPONSE_MODELS).default('full'),
  /** Smoothing of the tier-3 prior p_r(b|q): pseudo-count added to every answer bucket. */
  priorSmoothing: z.number().positive().default(0.5),
  seed: z.number().int().default(0),
});
export type DebateSettings = z.infer<typeof DebateSettings>;
