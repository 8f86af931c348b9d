// `export`: a deployable policy from a training checkpoint (src/policy/export.ts).
import { command } from './command.ts';

export const exportCommand = command(
  (y) =>
    y
      .positional('checkpoint', { type: 'string', demandOption: true, describe: 'a training checkpoint (e.g. checkpoints/run/best.json)' })
      .option('out', { type: 'string', describe: 'folder to write (default: export/ beside the checkpoint)' })
      .example('$0 export checkpoints/k0/best.json', 'write checkpoints/k0/export/'),
  async (a) => {
    const out = a.out ?? `${a.checkpoint.replace(/[^/]*$/, '')}export`;
    const { exportPolicy } = await import('../../src/policy/export.ts');
    const { readCheckpoint } = await import('../../train/checkpoint.ts');
    const { policy, onnx, spec, golden, tfjs } = await exportPolicy(readCheckpoint(a.checkpoint), out);
    console.log(
      `wrote ${policy}, ${onnx}, ${spec} (how to build every input), ${golden} (texts, vectors and decisions to check an ` +
        `implementation against) and ${tfjs}/ (model.json, weights.bin)`,
    );
  },
);
