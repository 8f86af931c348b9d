// `train`: one REINFORCE training run (train/trainer.ts); every setting is a flag.
import { COMPUTE_SETTINGS } from '../../src/policy/backends.ts';
import { overrideNotes, readConfigFile, resolveConfig } from '../../train/config.ts';
import { PRESET_NAMES, PRESETS, presetNotes, presetSettings, settingLayers } from '../../train/presets.ts';
import { flagSettings, kebab, trainFlags } from '../flags.ts';
import { finishedRun, trainDescription } from '../../train/plan.ts';
import { computeRules, planOptions, refuseUnused, runOrPlan } from '../options.ts';
import { SettingsError } from '../../src/io/errors.ts';
import { shellWords } from '../../src/io/commandLine.ts';
import { continueWith } from '../../src/io/interrupt.ts';
import { existsSync } from 'node:fs';
import { command } from './command.ts';

export const trainCommand = command(
  (y) =>
    planOptions(trainFlags(y))
      .option('preset', {
        choices: PRESET_NAMES,
        describe: `named settings under the config file and the flags: ${PRESET_NAMES.map((n) => `${n}: ${PRESETS[n].describe}`).join('; ')}`,
      })
      .option('config', { type: 'string', describe: 'JSON file of training settings over the preset; flags override it' })
      .option('resume', {
        type: 'boolean',
        default: false,
        describe: 'continue the run in --out from its last checkpoint (its saved settings apply, except --engine, --threads and --backend)',
      })
      .option('force', { type: 'boolean', describe: 'train anew in an --out that holds a run (its files are replaced); not with --resume' })
      .example('$0 train --epochs 12 --k -1 --out checkpoints/k-1', 'train with prune pressure')
      .example('$0 train --preset paper --out checkpoints/paper', "the method's settings (they collapse on the default world)")
      .example('$0 train --config train/configs/main.json --print-config', 'the settings a run would use, as JSON')
      .example('$0 train --resume --out checkpoints/k-1 --dry-run', 'whether the run would resume, and from which epoch')
      .example('$0 train --resume --out checkpoints/k-1', 'continue an interrupted run'),
  async (a) => {
    const flags = flagSettings(a);
    if (a.resume && a.force) throw new SettingsError('--force with --resume: --resume continues the run in --out, --force replaces it; give one');
    if (a.resume) {
      const why = 'is not used by --resume: the run goes on with the settings it was started with (only --engine, --threads and --backend may change)';
      refuseUnused(a, [
        ['config', true, why],
        ['preset', true, why],
        ...Object.keys(flags)
          .filter((k) => k !== 'out' && !(COMPUTE_SETTINGS as readonly string[]).includes(k))
          .map((k): [string, boolean, string] => [kebab(k), true, why]),
      ]);
    }
    const file = a.config ? readConfigFile(a.config) : {};
    const config = resolveConfig(presetSettings(a.preset), file, flags);
    refuseUnused(a, computeRules(config));
    const notes = [...presetNotes(a.preset, file, flags, a.config), ...overrideNotes(file, flags, a.config)];
    for (const line of notes) console.error(line);
    if (a.printConfig && !a.resume) console.error(settingLayers(a.preset, a.config, Object.keys(flags).map(kebab)));
    const compute = Object.fromEntries(COMPUTE_SETTINGS.filter((k) => flags[k] !== undefined).map((k) => [k, flags[k]]));
    await runOrPlan(
      a,
      () => trainDescription(config, a.resume, compute, a.force),
      async () => {
        const finished = a.resume ? finishedRun(config.out) : undefined;
        if (finished) {
          // Killed after its last checkpoint, a finished run may lack its end-of-run files: written now.
          await (await import('../../train/runs.ts')).completeFinished(config.out);
          return console.log(finished);
        }
        const { train } = await import('../../train/trainer.ts');
        const { runFiles } = await import('../../train/runFolder.ts');
        // A stop keeps the last checkpoint: it says which, and that --resume continues from it.
        (await import('../../train/stopped.ts')).sayRunOnStop(config.out);
        const computeWords = Object.entries(compute).flatMap(([k, v]) => [`--${kebab(k)}`, String(v)]);
        continueWith(() =>
          existsSync(runFiles(config.out).checkpoint)
            ? `to continue: npx cpp-workbench ${shellWords(['train', '--resume', '--out', config.out, ...computeWords])}`
            : undefined,
        );
        const { checkpoint } = await train(config, { resume: a.resume, force: a.force, compute });
        const files = runFiles(config.out);
        const best = checkpoint.best;
        console.log(
          `done: ${config.out} (logs ${files.jsonl}, ${files.csv}, TensorBoard events; provenance ${files.provenance}); best validation epoch ` +
            `${best?.epoch}: accuracy ${best ? (100 * best.accuracy).toFixed(1) : '-'}%, cost ${best?.costPct.toFixed(1)}% -> ${files.best}`,
        );
      },
    );
  },
);
