// Entry of a training child process (train/runs.ts starts one per run, so two cores train two runs
// at once): `node --import tsx train/trainChild.ts SETTINGS.json [--resume]`. Progress and errors go
// to stderr, where the parent reads the validation lines.
import { readConfigFile, resolveConfig } from './config.ts';
import { train } from './trainer.ts';

const [settingsFile, ...rest] = process.argv.slice(2);
try {
  await train(resolveConfig(readConfigFile(settingsFile)), { resume: rest.includes('--resume') });
} catch (e) {
  console.error((e as Error).message);
  process.exit(1);
}
