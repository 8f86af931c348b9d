// Every command of the command line, in the order `--help` lists them: cli/index.ts builds the
// program from this list, and tests/docs.test.ts reads each command's flags from it (every
// `npx cpp-workbench ...` line of the documentation must name a real command and real flags).
import { ablateCommand } from './ablate.ts';
import { activeCommand } from './active.ts';
import { baselinesCommand } from './baselines.ts';
import { cacheCommand } from './cache.ts';
import { debateCommand } from './debate.ts';
import { evalCommand } from './eval.ts';
import { exportCommand } from './export.ts';
import { fidelityCommand } from './fidelity.ts';
import { mainCommand } from './main.ts';
import { paretoCommand } from './pareto.ts';
import { recordCommand } from './record.ts';
import { serveCommand } from './serve.ts';
import { trainCommand } from './train.ts';
import { transferCommand } from './transfer.ts';
import { workerCommand } from './worker.ts';

export const commands = [
  mainCommand,
  baselinesCommand,
  cacheCommand,
  trainCommand,
  evalCommand,
  ablateCommand,
  paretoCommand,
  transferCommand,
  exportCommand,
  serveCommand,
  debateCommand,
  recordCommand,
  activeCommand,
  workerCommand,
  fidelityCommand,
];
