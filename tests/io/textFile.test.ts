// Text files are read one way everywhere: a byte-order mark is dropped (in a cache as in a config),
// bytes that are not UTF-8 are an error naming file and line, and a folder or a missing file in
// place of a file is an error naming the path.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cacheFilePath, loadCache } from '../../src/cache/load.ts';
import { readConfigFile } from '../../train/config.ts';
import { fileLines, readTextFile } from '../../src/io/textFile.ts';
import { tinyRecords } from '../fixtures/tinyWorld.ts';

const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

describe('reading text files', () => {
  it('a byte-order mark is dropped, in a cache as in a config file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cpp-text-'));
    writeFileSync(
      cacheFilePath(dir),
      Buffer.concat([
        BOM,
        Buffer.from(
          tinyRecords(4)
            .map((r) => JSON.stringify(r))
            .join('\n') + '\n',
        ),
      ]),
    );
    expect(loadCache(dir).questions).toHaveLength(4);
    writeFileSync(join(dir, 'config.json'), Buffer.concat([BOM, Buffer.from('{"epochs": 3}')]));
    expect(readConfigFile(join(dir, 'config.json'))).toEqual({ epochs: 3 });
  });

  it('bytes that are not UTF-8 are an error naming the file and line, never replaced in silence', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cpp-text-'));
    const file = join(dir, 'config.json');
    writeFileSync(file, Buffer.concat([Buffer.from('{\n  "epochs": 3,\n  "out": "caf'), Buffer.from([0xe9]), Buffer.from('"\n}\n')]));
    expect(() => readTextFile(file)).toThrow(`${file}:3: not valid UTF-8 text (column 14); save the file as UTF-8`);
    expect(() => readConfigFile(file)).toThrow(`${file}:3: not valid UTF-8 text`);
    const lines = records4WithBadByte(dir);
    expect(() => loadCache(dir)).toThrow(`${cacheFilePath(dir)}:${lines}: not valid UTF-8 text`);
    expect(() => [...fileLines(cacheFilePath(dir))]).toThrow(`${cacheFilePath(dir)}:${lines}: not valid UTF-8 text`);
  });

  it('lines are read whole whatever their length, in every chunk size, with UTF-8 text and a bad byte named by its line', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cpp-text-'));
    const file = join(dir, 'lines.txt');
    // Lines from empty to longer than a read and than a decoded piece (64 kB), ASCII and not, so
    // that line ends fall on every side of the pieces' and chunks' boundaries.
    const lines: string[] = [];
    for (let i = 0; i < 400; i++) lines.push(i % 7 === 3 ? '' : `${i}:${(i % 5 === 0 ? 'é–' : 'ab').repeat((i * 997) % 3000)}`);
    lines.push('x'.repeat(200_000), 'tail é');
    writeFileSync(file, lines.join('\n'));
    for (const chunk of [1 << 16, 1 << 17, 1 << 20, 1 << 24]) expect([...fileLines(file, chunk)]).toEqual(lines);
    writeFileSync(file, `${lines.join('\n')}\n`);
    expect([...fileLines(file, 1 << 20)]).toEqual(lines); // a last newline ends the last line
    const bad = Buffer.from(`${lines.join('\n')}\n`);
    bad[bad.indexOf('399:')] = 0xff;
    writeFileSync(file, bad);
    expect(() => [...fileLines(file, 1 << 20)]).toThrow(`${file}:400: not valid UTF-8 text (column 1)`);
  });

  it('a folder or a missing file where a file should be is an error naming the path', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cpp-text-'));
    mkdirSync(cacheFilePath(dir));
    expect(() => loadCache(dir)).toThrow(`${cacheFilePath(dir)}: is a folder, not a file`);
    expect(() => readConfigFile(join(dir, 'none.json'))).toThrow(`${join(dir, 'none.json')}: file not found`);
  });
});

/** The tiny cache with a Latin-1 byte in its last line; returns that line's number. */
function records4WithBadByte(dir: string): number {
  const lines = tinyRecords(4).map((r) => Buffer.from(JSON.stringify(r)));
  const last = lines.length - 1;
  lines[last] = Buffer.concat([lines[last].subarray(0, 20), Buffer.from([0xe9]), lines[last].subarray(21)]);
  writeFileSync(cacheFilePath(dir), Buffer.concat(lines.flatMap((l) => [l, Buffer.from('\n')])));
  return lines.length;
}
