// Checkpoints and best policies as the jobs read them back (eval, export, train --resume, main,
// ablate, pareto, record, active, fidelity, a queue's worker): src/policy/artifact.ts checks the
// format, the shape and every tensor; the training settings a run saved inside (`config`) are
// checked here with the schema of a config file (TrainConfig), so that `lr: "fast"` or a missing
// `cache` is an error naming the file and field before anything is made from it (a cache generated
// on first use, a run resumed, a policy exported).
import { z } from 'zod';
import { InputError } from '../src/io/errors.ts';
import { formatProblem, zodProblems } from '../src/io/problems.ts';
import type { PolicyShape } from '../src/policy/model.ts';
import { type Checkpoint, checkpointHead, loadAnyPolicy, loadCheckpoint, type PolicyArtifact } from '../src/policy/artifact.ts';
import { resolveConfig, TrainConfig } from './config.ts';

/** What every run saved from the start: a run without them cannot be told (its cache, its seed). */
const always = (what: string) => ({ error: (i: { input: unknown }) => (i.input === undefined ? `missing: every run saves ${what}` : undefined) });

/**
 * The settings a checkpoint holds: any setting of a config file (settings added to the trainer since
 * the run was saved are absent, and take their defaults), and the cache and seed, which every run
 * saves. `out` is allowed (runs saved it once) and never used: a run is the folder it is in.
 */
const SavedSettings = TrainConfig.partial().extend({
  cache: z.string(always('the cache it trained on')).min(1),
  seed: z.number(always('its seed')).int(),
});

/** Check the settings saved in checkpoint `file`; every problem names the file and the field (`config.lr`). */
export function checkSavedSettings(file: string, config: Record<string, unknown>): void {
  const parsed = SavedSettings.safeParse(config);
  if (!parsed.success)
    throw new InputError(
      zodProblems(
        parsed.error.issues.map((i) => ({ ...i, path: ['config', ...i.path] })),
        file,
        0,
      )
        .map(formatProblem)
        .join('\n'),
    );
  try {
    resolveConfig(parsed.data); // settings that contradict each other (rloo with one rollout)
  } catch (e) {
    throw new InputError(`${file}: config: ${(e as Error).message.replace(/^setting /, '')}`);
  }
}

/** A training checkpoint, its saved settings checked too. */
export const readCheckpoint = (path: string): Checkpoint => loadCheckpoint(path, checkSavedSettings);

/** An exported policy, or a checkpoint (a best policy) with its saved settings checked. */
export const readAnyPolicy = (path: string): PolicyArtifact => loadAnyPolicy(path, checkSavedSettings);

/** A run folder's checkpoint without its tensors (what a job asks to reuse or resume a run), its saved settings checked. */
export const readCheckpointHead = (path: string): Omit<Checkpoint, 'engine'> => checkpointHead(path, checkSavedSettings);

/** A checkpoint to resume must fit the run its settings make on this cache: shape, encoder, team, baseline state. */
export function checkResumed(file: string, c: Checkpoint, shape: PolicyShape, encoder: string, team: string[], baseline: number): void {
  const differ = [
    ...(['dim', 'hidden', 'agents', 'rounds'] as const)
      .filter((k) => c.shape[k] !== shape[k])
      .map((k) => `shape.${k} ${c.shape[k]}, the run's settings on this cache give ${shape[k]}`),
    ...(c.encoder !== encoder ? [`encoder ${c.encoder}, the run's settings give ${encoder}`] : []),
    ...(c.team.join() !== team.join() ? [`team ${c.team.join(', ')}, the run's settings give ${team.join(', ')}`] : []),
    ...(c.baseline.length !== baseline
      ? [`baseline holds ${c.baseline.length} values, the ${String(c.config.baseline ?? 'running')} baseline of this run needs ${baseline}`]
      : []),
  ];
  if (differ.length) throw new InputError(`${file}: does not fit its own run: ${differ.join('; ')}`);
}
