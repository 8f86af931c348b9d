// Entry of the main job's training processes: a warm training process (train/trainingProcess.ts) that
// also runs the job's comparison once the runs are trained, so that the comparison finds loaded what
// they loaded: the cache, its lookup indexes and fitted tier-3 response model (shared by the
// environments of one cache, src/env/environment.ts), the embeddings and ONNX Runtime. In a process
// of its own the comparison would load and fit them all again (about 9 s of CPU on the default world).
import { serveTasks } from '../train/trainingProcess.ts';
import { evalJob, type EvalOptions } from './eval.ts';

/** What the main job asks of its training process after the runs. */
export interface CompareRequest {
  compare: EvalOptions;
}

serveTasks(
  (m): m is CompareRequest => 'compare' in m,
  async ({ compare }) => {
    const { table, files } = await evalJob(compare);
    return { table, files };
  },
);
