// policy.spec.md states the bof encoder exactly and language-neutrally: implemented from its words
// alone (UTF-16 code units, the listed whitespace, runs of a-z0-9, FNV-1a over code units), it gives
// the encoder's words and vectors on the golden texts (emoji, combining marks, CJK, special casing)
// and on random text of the same kinds.
import seedrandom from 'seedrandom';
import { describe, expect, it } from 'vitest';
import { encodeBof, words } from '../../src/encoders/bof.ts';
import { policySpec } from '../../src/policy/contract.ts';
import { GOLDEN_TEXTS } from '../../src/policy/golden.ts';
import { initWeights } from '../../src/policy/model.ts';

const SPACES = [
  0x9,
  0xa,
  0xb,
  0xc,
  0xd,
  0x20,
  0xa0,
  0x1680,
  ...Array.from({ length: 11 }, (_, i) => 0x2000 + i),
  0x2028,
  0x2029,
  0x202f,
  0x205f,
  0x3000,
  0xfeff,
];

/** The spec's steps 1-4: lower-cased UTF-16 code units, split into words. */
function specWords(text: string): number[][] {
  const u = Array.from({ length: text.toLowerCase().length }, (_, i) => text.toLowerCase().charCodeAt(i));
  const alnum = (c: number) => (c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39);
  const out: number[][] = [];
  for (let i = 0; i < u.length; ) {
    if (alnum(u[i])) {
      let j = i;
      while (j < u.length && alnum(u[j])) j++;
      out.push(u.slice(i, j));
      i = j;
    } else {
      if (!SPACES.includes(u[i])) out.push([u[i]]);
      i++;
    }
  }
  return out;
}

/** The spec's steps 5-6, in 32-bit arithmetic written out (BigInt: no reliance on Math.imul). */
function specVector(text: string, dim: number): Float32Array {
  const w = specWords(text);
  const v = new Array<number>(dim).fill(0);
  const add = (feature: number[]) => {
    let h = 0x811c9dc5n;
    for (const c of feature) h = ((h ^ BigInt(c)) * 0x01000193n) % 2n ** 32n;
    v[Number(h % BigInt(dim))] += h >= 2n ** 31n ? -1 : 1;
  };
  w.forEach((word, i) => {
    add(word);
    if (i > 0) add([...w[i - 1], 0x20, ...word]);
  });
  return Float32Array.from(v, (x) => (w.length ? x / w.length : 0));
}

const units = (s: string) => Array.from({ length: s.length }, (_, i) => s.charCodeAt(i));

/** Random text of the kinds the golden texts hold. */
function randomText(random: () => number): string {
  const pieces = [
    'word',
    'Caf',
    'e\u0301',
    '\u00E9',
    '\u2764\uFE0F',
    '\u{1FAC0}',
    '\u{1F44D}\u{1F3FD}',
    '\u5FC3\u810F',
    '\u0130',
    '\u03A3',
    '\u212A',
    'x9',
    '(B)',
    '!',
    ...SPACES.map((c) => String.fromCharCode(c)),
  ];
  return Array.from({ length: 1 + Math.floor(random() * 12) }, () => pieces[Math.floor(random() * pieces.length)]).join('');
}

describe("the spec's encoder", () => {
  it('gives the words and vectors of bof-256 on the golden texts: an emoji is two words, a combining mark one of its own', () => {
    for (const text of Object.values(GOLDEN_TEXTS)) {
      expect(words(text).map(units), text).toEqual(specWords(text));
      expect(Array.from(encodeBof(text, 256)), text).toEqual(Array.from(specVector(text, 256)));
    }
    expect(words(GOLDEN_TEXTS.emoji).filter((w) => w.length === 1 && w.charCodeAt(0) >= 0xd800 && w.charCodeAt(0) < 0xe000)).toHaveLength(6);
    expect(words('re\u0301sume\u0301')).toEqual(['re', '\u0301', 'sume', '\u0301']);
    expect(words('\u0130\u212A')).toEqual(['i', '\u0307', 'k']);
  });

  it('and on 2,000 random texts of emoji, combining marks, CJK, special casing and every listed space', () => {
    const random = seedrandom('golden');
    for (let n = 0; n < 2000; n++) {
      const text = randomText(random);
      expect(Array.from(encodeBof(text, 64)), JSON.stringify(text)).toEqual(Array.from(specVector(text, 64)));
    }
  });

  it('is what policy.spec.md says, code points listed', () => {
    const shape = {
      dim: 256,
      hidden: 8,
      agents: 3,
      rounds: 3,
      behavior: 'mean' as const,
      initSamples: null,
      conditioning: true,
      ownFeature: true,
      sourceFeature: true,
      roundFeature: true,
      currentFeature: false,
      turnFeature: false,
      behaviorRows: 0,
      decisions: 'edges' as const,
    };
    const spec = policySpec({ format: 'cpp-policy', version: 1, shape, team: ['a', 'b', 'c'], encoder: 'bof-256', weights: initWeights(shape, '0') } as never);
    expect(spec).toContain('UTF-16 code units');
    expect(spec).toContain('U+0009-U+000D, U+0020, U+00A0, U+1680, U+2000-U+200A, U+2028, U+2029, U+202F, U+205F, U+3000, U+FEFF');
    expect(spec).toContain('h = ((h XOR u) * 0x01000193) mod 2^32');
    expect(spec).toContain('golden.json');
  });
});
