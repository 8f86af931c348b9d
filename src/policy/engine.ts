// The one interface the trainer calls for policy math (forward, gradients, optimizer step,
// state for checkpoints), so compute engines can be swapped without touching the trainer.
import type { DecisionBatch, PolicyShape, Weights } from './model.ts';

export interface OptimizerSettings {
  /** Adam learning rate and moments (docs/method.md §7). */
  lr: number;
  beta1: number;
  beta2: number;
  epsilon: number;
  /** Weight of the entropy bonus subtracted from the loss. */
  entropyBonus: number;
}

/** Weights plus Adam state: everything a checkpoint needs to continue exactly. */
export interface EngineState {
  weights: Weights;
  step: number;
  m: Weights;
  v: Weights;
}

export interface StepStats {
  loss: number;
  entropy: number;
}

export interface PolicyEngine {
  readonly name: string;
  readonly shape: PolicyShape;
  /** Debates an evaluation plays at once (default 256; the GPU engine wants large batches: more decisions per run). */
  readonly evalBatch?: number;
  keepLogits(batch: DecisionBatch): Promise<Float32Array>;
  /**
   * Loss -(mean advantage * log pi(action)) - entropyBonus * mean entropy, its gradients for the
   * trainable parameters, without updating anything.
   */
  lossAndGradients(batch: DecisionBatch, actions: Uint8Array, advantages: Float32Array): Promise<StepStats & { gradients: Weights }>;
  /** One Adam step on that loss. */
  trainStep(batch: DecisionBatch, actions: Uint8Array, advantages: Float32Array): Promise<StepStats>;
  getState(): Promise<EngineState>;
  dispose(): void;
}

/** Zero-filled Adam moments for the given weights. */
export function zeroMoments(weights: Weights): Weights {
  return Object.fromEntries(Object.entries(weights).map(([k, t]) => [k, { shape: t.shape, data: new Float32Array(t.data.length) }]));
}
