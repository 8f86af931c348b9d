// Bag-of-features text encoder (the default): lower-cased word unigrams and bigrams, hashed into
// `dim` signed buckets, divided by the word count. Because it is a mean of per-word features, the
// token-weighted sum of two texts' embeddings equals the embedding sum of their concatenation
// (up to the one bigram across the seam), as docs/method.md §4's progressive query assumes.
import type { Encoder } from './index.ts';

function fnv1a(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

export function words(text: string): string[] {
  return text.toLowerCase().match(/[a-z0-9]+|[^\sa-z0-9]/g) ?? [];
}

export function encodeBof(text: string, dim: number): Float32Array {
  const v = new Float32Array(dim);
  const w = words(text);
  const add = (feature: string) => {
    const h = fnv1a(feature);
    v[h % dim] += h & 0x80000000 ? -1 : 1;
  };
  for (let i = 0; i < w.length; i++) {
    add(w[i]);
    if (i > 0) add(`${w[i - 1]} ${w[i]}`);
  }
  if (w.length > 0) for (let i = 0; i < dim; i++) v[i] /= w.length;
  return v;
}

export function bofEncoder(dim = 256): Encoder {
  return { id: `bof-${dim}`, dim, encode: async (texts) => texts.map((t) => encodeBof(t, dim)) };
}
