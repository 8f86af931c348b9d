// TF.js, loaded in this one place so that it is quiet: its CPU backend prints "Hi, looks like you are
// running TensorFlow.js in Node.js ... install our node backend" on its first tensor in Node (the
// native tfjs-node is optional here: docs/training.md, Policy engines). Production mode is TF.js's
// documented switch for it: in TF.js 4.x the PROD flag is read only where TF.js warns or logs
// (backend_util.warn, log.warn, a platform set twice), so no computation changes.
import * as tf from '@tensorflow/tfjs';

tf.enableProdMode();

export * from '@tensorflow/tfjs';
