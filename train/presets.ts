// Named presets of training settings (`train --preset NAME`). The built-in defaults (train/config.ts)
// are the main job's measured settings, which train; a preset names another whole set. The layers,
// later winning: built-in defaults < preset < config file < flags (docs/training.md).
import { kebab } from '../src/io/problems.ts';
import type { TrainConfig } from './config.ts';

export interface Preset {
  /** What the preset is and what it measured, for --help and --print-config. */
  describe: string;
  settings: Partial<TrainConfig>;
}

export const PRESETS = {
  /**
   * The method's own optimizer, estimator and return (docs/method.md §6-7). On the default world it
   * collapses to Full-Debate: 9 of 10 seeds pin the keep rate at 1 (docs/results.md, "What training
   * achieves on the default world", table A).
   */
  paper: {
    describe:
      "the method's settings (docs/method.md §6-7): lr 1e-3, entropy 0.01, running baseline, one rollout, batch 32, 12 epochs, " +
      'beta 0.5, gamma 0.9; on the default world they collapse to Full-Debate (keep rate pinned at 1: docs/results.md)',
    settings: {
      epochs: 12,
      batchSize: 32,
      rollouts: 1,
      baseline: 'running',
      normalizeAdvantages: false,
      lr: 1e-3,
      entropyBonus: 0.01,
      beta: 0.5,
      gamma: 0.9,
    },
  },
} satisfies Record<string, Preset>;

export type PresetName = keyof typeof PRESETS;
export const PRESET_NAMES = Object.keys(PRESETS) as PresetName[];

export const presetSettings = (name: PresetName | undefined): Partial<TrainConfig> => (name ? PRESETS[name].settings : {});

/** The layers a command resolved its settings from, in order (later wins), for --print-config. */
export function settingLayers(preset: PresetName | undefined, file: string | undefined, flags: string[]): string {
  const layers = [
    "built-in defaults (the main job's settings)",
    ...(preset ? [`preset ${preset}`] : []),
    ...(file ? [`config file ${file}`] : []),
    ...(flags.length ? [`flags (${flags.map((f) => `--${f}`).join(', ')})`] : []),
  ];
  return `settings: ${layers.join(' < ')}; later wins`;
}

/**
 * Each setting of a preset that the config file `fileName` or a flag sets otherwise: it wins, and
 * these lines say so (a flag over the file: overrideNotes of config.ts).
 */
export function presetNotes(preset: PresetName | undefined, file: Partial<TrainConfig>, flags: Partial<TrainConfig>, fileName?: string): string[] {
  if (!preset) return [];
  const p = PRESETS[preset].settings as Record<string, unknown>;
  return Object.entries({ ...file, ...flags })
    .filter(([k, v]) => p[k] !== undefined && JSON.stringify(p[k]) !== JSON.stringify(v))
    .map(
      ([k, v]) =>
        `${k in flags ? `--${kebab(k)} ${JSON.stringify(v)}` : `${k} ${JSON.stringify(v)} of ${fileName}`} ` +
        `overrides ${k} ${JSON.stringify(p[k])} of preset ${preset}`,
    );
}
