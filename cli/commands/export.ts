// `export`: a deployable policy from a training checkpoint (src/policy/export.ts).
import { command } from './command.ts';

export const exportCommand = command(
  (y) =>
    y
      .positional('checkpoint', { type: 'string', demandOption: true, describe: 'a training checkpoint (e.g. checkpoints/run/best.json)' })
      .option('out', { type: 'string', describe: 'folder to write (default: export/ beside the checkpoint)' })
      .example('$0 export checkpoints/k0/best.json', 'write checkpoints/k0/export/'),
  async (a) => {
    const { existsSync, statSync } = await import('node:fs');
    const { join } = await import('node:path');
    const { InputError } = await import('../../src/io/errors.ts');
    // No checkpoint there: said as what is missing, not as a file error; a run folder names its checkpoints.
    if (!existsSync(a.checkpoint))
      throw new InputError(`no checkpoint at ${a.checkpoint}: train one first (train --out DIR writes DIR/best.json and DIR/checkpoint.json)`);
    if (statSync(a.checkpoint).isDirectory()) {
      const held = ['best.json', 'checkpoint.json'].filter((f) => existsSync(join(a.checkpoint, f)));
      throw new InputError(
        held.length
          ? `${a.checkpoint} is a run folder, not a checkpoint: export ${join(a.checkpoint, held[0])}`
          : `no checkpoint in ${a.checkpoint}: it holds neither best.json nor checkpoint.json`,
      );
    }
    const out = a.out ?? `${a.checkpoint.replace(/[^/]*$/, '')}export`;
    const { exportPolicy } = await import('../../src/policy/export.ts');
    const { readCheckpoint } = await import('../../train/checkpoint.ts');
    const checkpoint = readCheckpoint(a.checkpoint);
    const { policy, onnx, spec, golden, tfjs } = await exportPolicy(checkpoint, out);
    console.log(
      `wrote ${policy}, ${onnx}, ${spec} (how to build every input), ${golden} (texts, vectors and decisions to check an ` +
        `implementation against) and ${tfjs}/ (model.json, weights.bin); team ${checkpoint.team.join(', ')}, as trained on cache ${String(checkpoint.config.cache)}`,
    );
  },
);
