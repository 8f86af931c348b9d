// Float32 values stored as base64 (checkpoints, policies, embeddings), decoded straight into their
// array. Node's decoder skips what is not base64 and stops at '=': a string of the length that the
// expected number of values encodes to (padded or not) that decodes to all their bytes, its padding
// '=' where padding goes, is base64 throughout, so no pattern has to be run over every character (which took most of the time of
// reading an embeddings file or a checkpoint).

/** Why a string is not `count` float32 values: not base64, another number of bytes, or a value that is not finite. */
export type Float32Problem = { notBase64: true } | { bytes: number } | { index: number; value: number };

/**
 * `count` float32 values from base64 `text`, or what is wrong with it; decoded `into` an array of
 * `count` values when given (a check of many vectors, each dropped once checked, reuses one).
 */
export function float32FromBase64(text: string, count: number, into?: Float32Array): Float32Array | Float32Problem {
  const values = into?.length === count ? into : new Float32Array(count);
  const written = Buffer.from(values.buffer, values.byteOffset, values.byteLength).write(text, 'base64');
  const padded = 4 * Math.ceil((count * 4) / 3);
  const unpadded = Math.ceil((count * 16) / 3);
  // At the padded length the decoder skips whatever stands where the '=' go: they must be '='.
  if (written !== count * 4 || (text.length !== padded && text.length !== unpadded) || (text.length === padded && !paddedWell(text, padded - unpadded)))
    return /^[A-Za-z0-9+/]*={0,2}$/.test(text) ? { bytes: Buffer.byteLength(text, 'base64') } : { notBase64: true };
  for (let i = 0; i < count; i++) if (!Number.isFinite(values[i])) return { index: i, value: values[i] };
  return values;
}

/** Whether `text` ends with `pads` '=' (the padding its length says it has). */
function paddedWell(text: string, pads: number): boolean {
  for (let i = text.length - pads; i < text.length; i++) if (text.charCodeAt(i) !== 61) return false;
  return true;
}
