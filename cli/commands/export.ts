// `export`: a deployable policy from a training checkpoint (src/policy/export.ts).
import type { Argv } from 'yargs';

export const exportCommand = <T>(y: Argv<T>) =>
  y.command(
    'export <checkpoint>',
    'write a deployable policy.json (weights, architecture, team, encoder id), policy.onnx (a standard ' +
      'ONNX inference model), policy.spec.md (its input contract), golden.json (golden vectors) and the weights in TF.js format',
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
