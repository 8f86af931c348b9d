// Text encoders by name. Embeddings are computed once per cache and stored beside it
// (src/cache/embeddings.ts); encoders only turn texts into vectors.
import { bofEncoder } from './bof.ts';
import { useEncoder } from './use.ts';

export interface Encoder {
  /** Stable id, part of the embeddings file name: changing the encoder changes the id. */
  id: string;
  dim: number;
  encode(texts: string[]): Promise<Float32Array[]>;
}

export const ENCODERS = ['bof', 'use'] as const;
export type EncoderName = (typeof ENCODERS)[number];

export async function makeEncoder(name: EncoderName): Promise<Encoder> {
  return name === 'bof' ? bofEncoder() : useEncoder();
}
