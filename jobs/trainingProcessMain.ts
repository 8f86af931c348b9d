// Entry of the main job's training processes: a warm training process (train/trainingProcess.ts) that
// also runs the job's comparison once the runs are trained, so that the comparison finds loaded what
// they loaded: the cache, its lookup indexes and fitted tier-3 response model (shared by the
// environments of one cache, src/env/environment.ts), the embeddings and ONNX Runtime. In a process
// of its own the comparison would load and fit them all again (about 9 s of CPU on the default world).
// Before it, the process that falls idle while the last run trains trains the comparison's static
// masks, which read the train split only.
import { serveTasks } from '../train/trainingProcess.ts';
import { evalJob, trainMasks, type EvalOptions } from './eval.ts';

/** What the main job asks of its training process after the runs. */
export interface CompareRequest {
  compare: EvalOptions;
}

/** What the main job asks of a training process idle while its last run trains: `masks.policies` names one finished policy. */
export interface MasksRequest {
  masks: EvalOptions;
}

serveTasks(
  (m): m is CompareRequest | MasksRequest => 'compare' in m || 'masks' in m,
  async (m) => {
    if ('masks' in m) return trainMasks(m.masks);
    const { table, files } = await evalJob(m.compare);
    return { table, files };
  },
);
