// Reading an embeddings file with its vectors decoded by the scan (scanFile's `decode`, what
// `cache validate` does): a line in the written form is taken without JSON.parse, every other line
// as before. Against the plain scan, on the lines that look written but are not the JSON they seem.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { scanFile, textKey, type StoredLine } from '../../src/cache/embeddingsFile.ts';
import type { Problem } from '../../src/io/problems.ts';

const DIM = 4;
const vector = (values: number[]) => Buffer.from(new Float32Array(values).buffer).toString('base64');
const key = (i: number) => textKey(`text ${i}`);
const written = (i: number, v = vector([i, 0.5, -1, 2])) => `{"sha256":"${key(i)}","v":"${v}"}`;

/** What a scan hands over (the decoded values as numbers) and the problems it finds. */
function scan(file: string, decode: boolean) {
  const problems: Problem[] = [];
  const lines: (Omit<StoredLine, 'values'> & { values?: number[] })[] = [];
  const out = scanFile(file, problems, ({ values, ...l }) => lines.push({ ...l, ...(values && { values: [...values] }) }), decode);
  return { lines, problems, out };
}

describe('an embeddings file scanned with its vectors decoded', () => {
  it('hands over the same lines and finds the same problems as the plain scan', () => {
    const good = vector([1, 2, 3, 4]);
    const lines = [
      JSON.stringify({ type: 'embeddings', version: 2, encoder: 'bof-4', dim: DIM }),
      written(1),
      written(2, vector([1, 2, 3])), // another dimension: not decoded whole
      written(3, `${good.slice(0, 5)}\t${good.slice(6)}`), // a tab inside v: not JSON
      written(4, `${good.slice(0, 5)}\\u0041${good.slice(6)}`), // an escape: JSON, whose v is another string
      written(5, `${good.slice(0, 5)}"${good.slice(6)}`), // a quote inside v: not JSON
      `{"sha256": "${key(6)}", "v": "${good}"}`, // spaces: JSON, not the written form
      `{"v":"${good}","sha256":"${key(7)}"}`, // keys in another order
      `{"sha256":"${key(8).toUpperCase()}","v":"${good}"}`, // not lowercase hex
      `{"sha256":"${key(9)}","v":"${good}","x":1}`, // another key
      written(10, vector([Number.NaN, 1, 2, 3])), // a value that is not finite
      written(11, good.replace(/=*$/, '')), // unpadded
      written(12, `${good.slice(0, -2)}-_`), // base64url characters where padding goes
      '',
      written(1), // a second vector for a text
      written(13).slice(0, 60), // a torn last line
    ];
    const file = join(mkdtempSync(join(tmpdir(), 'cpp-emb-scan-')), 'bof-4.jsonl');
    writeFileSync(file, lines.join('\n'));
    const plain = scan(file, false);
    const decoded = scan(file, true);
    expect(decoded.problems).toEqual(plain.problems);
    expect(decoded.out).toEqual(plain.out);
    expect(decoded.lines.map(({ values: _, ...l }) => l)).toEqual(plain.lines);
    // The written lines were decoded by the scan, each whole; the others were handed over as text.
    expect(decoded.lines.filter((l) => l.values).map((l) => l.line)).toEqual([2, 12, 15]);
    expect(decoded.lines.find((l) => l.line === 2)?.values).toEqual([1, 0.5, -1, 2]);
    expect(plain.problems.length).toBeGreaterThan(3);
  });
});
