// Corpus cases of kind 'columns': the columnar form of the inputs' cache (src/cache/columns.ts,
// built by the setup: the 60-question cache is below the size that gets one when loaded), then one
// change of it: a byte in the middle of each region of its layout (magic, head length, head, head
// padding, every section, its SHA-256), one character of each field of its head, the file cut or
// lengthened; or cache.jsonl edited in place at either end, its size, mtime and inode kept. `cache
// stats` reads the cache: it must name the columns file (damaged, or built from another
// cache.jsonl), rebuild it from cache.jsonl and go on (exit 0), changing no other file.
import { createHash } from 'node:crypto';
import { closeSync, openSync, readFileSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { columnsHead, columnsPath, sourceState, writeColumns } from '../../src/cache/columns.ts';
import { DIGEST_BYTES, HEAD_FIELDS, type Head, MAGIC, pad8, SECTIONS } from '../../src/cache/columnsLayout.ts';
import { cacheFilePath, loadCache } from '../../src/cache/load.ts';
import { INPUT } from '../inputs.ts';
import type { CorpusCase } from './case.ts';

/** The regions of the layout, in file order. */
const REGIONS = ['magic', 'head length', 'head', 'head padding', ...SECTIONS.map((s) => `section ${s}`), 'SHA-256'];

/** The changes of a columns file: a byte in the middle of each region, one character of each field of its head, a cut and a lengthened file. */
export function columnsDamages(good: Buffer): Map<string, Buffer> {
  const { head, base } = columnsHead(good);
  const headLength = good.readUInt32LE(8);
  const places: [number, number][] = [
    [0, 8],
    [8, 12],
    [12, 12 + headLength],
    [12 + headLength, base],
    ...SECTIONS.map((name): [number, number] => [base + head.sections[name].offset, base + head.sections[name].offset + head.sections[name].bytes]),
    [good.length - DIGEST_BYTES, good.length],
  ];
  const damages = new Map<string, Buffer>();
  REGIONS.forEach((name, i) => {
    const [from, to] = places[i];
    const bytes = Buffer.from(good);
    bytes[to > from ? (from + to) >> 1 : from] ^= 0x01; // (a region without bytes: the byte after it)
    damages.set(`a byte of its ${name}`, bytes);
  });
  for (const key of HEAD_FIELDS) damages.set(`its head's ${key}`, changedField(good, head, key));
  damages.set("a question's goldKey in its head", Buffer.from(good.toString('latin1').replace('"goldKey":0', '"goldKey":1'), 'latin1'));
  damages.set('cut short', good.subarray(0, good.length - 8));
  damages.set('lengthened', Buffer.concat([good, Buffer.alloc(8)]));
  return damages;
}

/** The columns file with one character of its head's field `key` changed, the length kept: a digit or letter of its value (else its first character). */
function changedField(good: Buffer, head: Head, key: string): Buffer {
  let at = 12 + 1; // after '{'
  for (const [k, v] of Object.entries(head)) {
    const name = `${JSON.stringify(k)}:`;
    const value = JSON.stringify(v);
    if (k === key) {
      const pos = at + name.length + Math.max(0, value.search(/[0-9A-Za-z]/));
      const bytes = Buffer.from(good);
      bytes[pos] = otherCase(bytes[pos]);
      return bytes;
    }
    at += name.length + value.length + 1;
  }
  throw new Error(`no head field ${key}`);
}

/** Another character of the same kind: a digit the next digit, a letter in the other case, anything else a space. */
function otherCase(byte: number): number {
  const c = String.fromCharCode(byte);
  if (/[0-9]/.test(c)) return String((Number(c) + 1) % 10).charCodeAt(0);
  if (/[a-zA-Z]/.test(c)) return (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase()).charCodeAt(0);
  return 0x20;
}

/** A sound columns file (its SHA-256 recomputed) whose head is `edit(head)`: what a workbench would have written. */
export function withHead(good: Buffer, edit: (head: Head) => Head): Buffer {
  const { head, base } = columnsHead(good);
  const json = Buffer.from(JSON.stringify(edit(head)));
  const prefix = Buffer.alloc(12);
  prefix.write(MAGIC, 0, 'latin1');
  prefix.writeUInt32LE(json.length, 8);
  const body = Buffer.concat([prefix, json, Buffer.alloc(pad8(12 + json.length)), good.subarray(base, good.length - DIGEST_BYTES)]);
  return Buffer.concat([body, createHash('sha256').update(body).digest()]);
}

/**
 * Edit `file` (a cache.jsonl) in place at its `end`, one letter's case (the header's name, or the
 * last line's text), its size kept; returns what a columns file built before the edit recorded of
 * it, with the edited file's stat, as a tool that resets the mtime leaves it: only the hash of its
 * end blocks tells.
 */
export function editInPlace(file: string, end: 'first' | 'last'): ReturnType<typeof sourceState> {
  const built = sourceState(file);
  const bytes = readFileSync(file);
  const at = end === 'first' ? bytes.indexOf('"name":"') + 8 : bytes.lastIndexOf('"text":"') + 8;
  const fd = openSync(file, 'r+');
  writeSync(fd, Buffer.from([otherCase(bytes[at])]), 0, 1, at);
  closeSync(fd);
  return { ...sourceState(file), ends: built.ends };
}

/** Build the columns of the inputs' cache in `ws`; returns their bytes. */
function buildColumns(ws: string): Buffer {
  const dir = join(ws, INPUT.cache);
  writeColumns(
    dir,
    loadCache(dir, () => {}),
    sourceState(cacheFilePath(dir)),
  );
  return readFileSync(columnsPath(dir));
}

/** The names of columnsDamages' changes, known before any file is. */
export const DAMAGES = [
  ...REGIONS.map((r) => `a byte of its ${r}`),
  ...HEAD_FIELDS.map((k) => `its head's ${k}`),
  "a question's goldKey in its head",
  'cut short',
  'lengthened',
];
const statsArgs = ['cache', 'stats', INPUT.cache];
const writes = [`${INPUT.cache}/cache.columns`];

export const columnsCases: CorpusCase[] = [
  ...DAMAGES.map(
    (name): CorpusCase => ({
      id: `columns: ${name}`,
      kind: 'columns',
      setup: (ws) => {
        writeFileSync(columnsPath(join(ws, INPUT.cache)), columnsDamages(buildColumns(ws)).get(name)!);
      },
      args: statsArgs,
      code: 0,
      error: String.raw`cache\.columns: damaged: .*; rebuilt from .*cache\.jsonl`,
      writes,
    }),
  ),
  ...(['first', 'last'] as const).map(
    (end): CorpusCase => ({
      id: `columns: cache.jsonl edited in place in its ${end} block, size, mtime and inode kept`,
      kind: 'columns',
      setup: (ws) => {
        const good = buildColumns(ws);
        const source = editInPlace(cacheFilePath(join(ws, INPUT.cache)), end);
        writeFileSync(
          columnsPath(join(ws, INPUT.cache)),
          withHead(good, (h) => ({ ...h, source })),
        );
      },
      args: statsArgs,
      code: 0,
      error: String.raw`cache\.columns: cache\.jsonl changed since it was built; rebuilt from .*cache\.jsonl`,
      writes,
    }),
  ),
];
