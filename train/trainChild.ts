// Entry of a training child process (train/runs.ts starts one per run, so two cores train two runs
// at once): `node --import tsx train/trainChild.ts SETTINGS.json [--resume]`. Progress and errors go
// to stderr, where the parent reads the validation lines.
import { dirname } from 'node:path';
import { readConfigFile, resolveConfig } from './config.ts';
import { train } from './trainer.ts';

const [settingsFile, ...rest] = process.argv.slice(2);
try {
  // The run is the folder its settings file is in (a path saved in the file is never used to write).
  await train(resolveConfig(readConfigFile(settingsFile), { out: dirname(settingsFile) }), { resume: rest.includes('--resume') });
} catch (e) {
  console.error((e as Error).message);
  process.exit(1);
}
