import { describe, expect, it } from 'vitest';
import { float32FromBase64 } from '../../src/io/float32.ts';

const b64 = (v: Float32Array) => Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('base64');

describe('float32 values from base64', () => {
  it('reads back what was written, padded or not', () => {
    const v = new Float32Array([1.5, -2, 0.25]); // 12 bytes: no padding
    expect(Array.from(float32FromBase64(b64(v), 3) as Float32Array)).toEqual([1.5, -2, 0.25]);
    const w = new Float32Array([3, 4]); // 8 bytes: one '='
    expect(b64(w).endsWith('=')).toBe(true);
    expect(Array.from(float32FromBase64(b64(w), 2) as Float32Array)).toEqual([3, 4]);
    expect(Array.from(float32FromBase64(b64(w).replace(/=+$/, ''), 2) as Float32Array)).toEqual([3, 4]);
  });

  it("refuses other characters where the padding's '=' go", () => {
    const v = new Float32Array([7]); // 4 bytes: '=='
    const text = b64(v);
    expect(text.endsWith('==')).toBe(true);
    for (const tail of ['\t\t', '"x', '=\t', 'AA']) expect(float32FromBase64(text.slice(0, -2) + tail, 1)).not.toBeInstanceOf(Float32Array);
  });

  it('decodes into a view that does not start its buffer, leaving the rest of the buffer alone', () => {
    const whole = new Float32Array([9, 9, 9, 9]);
    const into = whole.subarray(2, 4);
    const got = float32FromBase64(b64(new Float32Array([1, 2])), 2, into);
    expect(got).toBe(into);
    expect(Array.from(whole)).toEqual([9, 9, 1, 2]);
  });

  it('says a value that is not finite, and a wrong number of bytes', () => {
    expect(float32FromBase64(b64(new Float32Array([1, Number.NaN])), 2)).toEqual({ index: 1, value: Number.NaN });
    expect(float32FromBase64(b64(new Float32Array([1, 2, 3])), 2)).toHaveProperty('bytes');
  });
});
