// The progress of a training run as one bar over all of it: every step of every epoch and every
// validation, so that its ETA is the whole run's (was: one bar per epoch, whose ETA ended with the
// epoch and left the validations out). The unit is a training step; a validation counts as many
// steps as it takes time, guessed from its debates before the first one and measured after.
import { progress } from '../src/progress.ts';

export interface RunShape {
  epochs: number;
  /** Epochs already trained (a resumed run): left out of the rate behind the ETA. */
  fromEpoch: number;
  stepsPerEpoch: number;
  /** Whether the run validates after `epoch`. */
  validates: (epoch: number) => boolean;
  /** Debates of a training step (questions x rollouts) and of a validation (its questions). */
  stepDebates: number;
  validationDebates: number;
}

export interface RunProgress {
  /** One training step of `epoch` done, with the step's figures. */
  step(epoch: number, status: string): void;
  /** A validation after `epoch` begins, and ends. */
  validating(epoch: number): void;
  validated(epoch: number): void;
  stop(): void;
}

export function runProgress(run: RunShape, stream?: NodeJS.WritableStream & { isTTY?: boolean }): RunProgress {
  const epochs = Array.from({ length: run.epochs }, (_, i) => i + 1);
  const validations = (upTo: number) => epochs.filter((e) => e <= upTo && run.validates(e)).length;
  // A validation plays each of its questions once, greedily (no backward pass): at most as long per debate as a step.
  let perValidation = Math.max(1, Math.round(run.validationDebates / run.stepDebates));
  let steps = run.fromEpoch * run.stepsPerEpoch;
  let validated = validations(run.fromEpoch);
  let stepSeconds = 0;
  let stepsTimed = 0;
  let last = Date.now();
  let validationStarted = 0;
  const total = () => run.epochs * run.stepsPerEpoch + validations(run.epochs) * perValidation;
  const done = () => steps + validated * perValidation;
  const bar = progress('train', total(), { done: done(), ...(stream && { stream }) });
  return {
    step(epoch, status) {
      const now = Date.now();
      stepSeconds += (now - last) / 1000;
      stepsTimed++;
      last = now;
      steps++;
      bar.update(done(), undefined, `epoch ${epoch}/${run.epochs} | ${status}`);
    },
    validating(epoch) {
      validationStarted = Date.now();
      bar.update(done(), undefined, `epoch ${epoch}/${run.epochs} | validation`);
    },
    validated(epoch) {
      const seconds = (Date.now() - validationStarted) / 1000;
      if (stepsTimed > 0) perValidation = Math.max(1, Math.round(seconds / (stepSeconds / stepsTimed)));
      validated++;
      last = Date.now();
      bar.update(done(), total(), `epoch ${epoch}/${run.epochs} | validated`);
    },
    stop: () => bar.stop(),
  };
}
