// What a reliability trial reads of a folder tree: snapshots to tell what a command created or
// changed (the files a run derives from a cache left out), the files a kill may leave behind
// (`*.tmp`, files that do not parse), and the rules that say which bytes of a run may differ
// between an interrupted and an uninterrupted run (wall times, timestamps) and why.
import { createHash } from 'node:crypto';
import { existsSync, lstatSync, readdirSync, readFileSync } from 'node:fs';
import { basename, join, relative, resolve } from 'node:path';
import { columnsHead } from '../src/cache/columns.ts';
import { DIGEST_BYTES } from '../src/cache/columnsLayout.ts';
import { HASH_FILE } from '../src/cache/hash.ts';
import { FITS_FILE } from '../src/env/keptFit.ts';
import { INDEX_FILE } from '../src/env/keptIndex.ts';
import { BEHAVIOR_FILE } from '../src/policy/keptBehavior.ts';

const sha256 = (data: Buffer | string) => createHash('sha256').update(data).digest('hex');

/** Every file and folder under `dir` by its path relative to `dir`: a file's SHA-256, a folder 'dir'. */
export type Snapshot = Map<string, string>;

export function snapshot(dir: string, exclude: string[] = []): Snapshot {
  const shot: Snapshot = new Map();
  const skip = exclude.map((e) => resolve(dir, e));
  const walk = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      const path = join(d, name);
      if (skip.some((s) => path === s || path.startsWith(s + '/'))) continue;
      const rel = relative(dir, path);
      const st = lstatSync(path);
      if (st.isDirectory()) {
        shot.set(rel, 'dir');
        walk(path);
      } else shot.set(rel, st.isFile() ? sha256(readFileSync(path)) : 'other');
    }
  };
  if (existsSync(dir)) walk(dir);
  return shot;
}

/** Files a run keeps beside a cache for the next process (kept hashes, fits, lookup indexes, behavior rows), as it goes. */
export const KEPT_FILES = [HASH_FILE, FITS_FILE, INDEX_FILE, BEHAVIOR_FILE];

/** Files a run derives from a cache (the kept files and binary vectors), bound to their sources' inodes: stale in a trial's copy, rebuilt atomically by its first run. */
const derived = (path: string) => KEPT_FILES.includes(basename(path)) || path.endsWith('.vectors');

/** What differs between two snapshots, as `+path` (created), `-path` (removed), `~path` (changed); derived files left out. */
export function changes(before: Snapshot, after: Snapshot): string[] {
  const out: string[] = [];
  for (const [p, h] of after)
    if (!before.has(p)) out.push(`+${p}`);
    else if (before.get(p) !== h) out.push(`~${p}`);
  for (const p of before.keys()) if (!after.has(p)) out.push(`-${p}`);
  return out.filter((c) => !derived(c.slice(1))).sort();
}

/** Files of interrupted writes under `dir`: `*.tmp` (the workbench writes `<name>.<pid>.tmp`, then renames). */
export const leftoverTemp = (dir: string): string[] => [...snapshot(dir).keys()].filter((p) => /\.tmp$/.test(p));

/** Temporary files under `dir` while a command writes there (names only; files renamed meanwhile are passed over). */
export function tempNow(dir: string): string[] {
  try {
    return readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((p) => /\.tmp$/.test(p));
  } catch {
    return []; // a folder renamed or removed while read: its temporary files, if any, are gone too
  }
}

/** Why `text`, the content of file `name`, does not parse as its kind, or null when it does. */
function unparseableReason(name: string, bytes: Buffer): string | null {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return 'not UTF-8';
  }
  try {
    if (name.endsWith('.json')) JSON.parse(text);
    else if (name.endsWith('.jsonl')) {
      if (text.length > 0 && !text.endsWith('\n')) return 'last line cut short';
      text
        .split('\n')
        .slice(0, -1)
        .forEach((l, i) => {
          try {
            JSON.parse(l);
          } catch {
            throw new Error(`line ${i + 1}`);
          }
        });
    } else if (name.endsWith('.csv')) {
      const lines = text.split('\n');
      if (text.length > 0 && lines.pop() !== '') return 'last line cut short';
      // Fields of a CSV line: commas outside double quotes (the writer, csv-stringify, quotes the rest).
      const fields = (l: string) => l.replace(/"(?:[^"]|"")*"/g, '').split(',').length;
      const bad = lines.findIndex((l) => fields(l) !== fields(lines[0]));
      if (bad >= 0) return `line ${bad + 1}: ${fields(lines[bad])} fields, the header has ${fields(lines[0])}`;
      const headers = lines.filter((l) => l === lines[0]).length;
      if (headers > 1) return `the header ${headers} times`;
    } else if (name.endsWith('.svg')) {
      if (!/^<svg[\s>]/.test(text.trimStart()) || !text.trimEnd().endsWith('</svg>')) return 'not a whole SVG';
    }
  } catch (e) {
    return `does not parse (${(e as Error).message})`;
  }
  return null;
}

/** Files under `path` (or the file `path`) that do not parse as their kind (JSON, JSON lines, CSV, SVG; UTF-8 for text), with why. */
export function unparseable(path: string): string[] {
  const files = lstatSync(path).isDirectory() ? [...snapshot(path)].filter(([, h]) => h !== 'dir').map(([rel]) => rel) : [''];
  const bad: string[] = [];
  for (const rel of files) {
    const file = rel ? join(path, rel) : path;
    if (!/\.(json|jsonl|csv|svg|md|log)$/.test(file) || /\.tmp$/.test(file)) continue;
    const why = unparseableReason(file, readFileSync(file));
    if (why) bad.push(`${rel || file.split('/').pop()}: ${why}`);
  }
  return bad;
}

/**
 * What may differ between an interrupted-then-resumed run and an uninterrupted one, file by file,
 * and why. Every other file must be byte-identical (after the run folder's own path is written as
 * `<OUT>`, for runs resumed in a folder they were copied to).
 */
export const NORMALISATION: { files: RegExp; why: string; apply: ((text: string) => string) | 'skip' }[] = [
  {
    files: /(^|\/)provenance\.json$/,
    apply: 'skip',
    why: 'one session per process that worked on the run: start and end times, pid, command; a resumed run adds its session',
  },
  {
    files: /(^|\/)events\.out\.tfevents\.[^/]+$/,
    apply: 'skip',
    why: 'TensorBoard files are named by start time, host and pid, and hold wall times; a resumed run starts a new one',
  },
  { files: /(^|\/)train\.log$/, apply: 'skip', why: "a job's training child's progress lines: elapsed times, and a resumed child starts at its epoch" },
  {
    files: /(^|\/)log\.jsonl$/,
    apply: (t) => t.replace(/,"(time|seconds|decisionsPerSecond)":("[^"]*"|[-\d.e+]+)/g, ''),
    why: 'each line carries its wall time: time, seconds and decisionsPerSecond are removed',
  },
  { files: /(^|\/)log\.csv$/, apply: csvWithoutWallTimes, why: 'the same columns (time, seconds, decisionsPerSecond) are emptied' },
  {
    files: /(^|\/)(comparison|table6)\.md$/,
    apply: (t) =>
      t
        .replace(/\n## Provenance\n[\s\S]*$/, '\n')
        .replace(/^(CPP runs|Runs):.*$/gm, '$1: <which were reused>')
        .replace(/^wall time .*$/gm, ''),
    why: 'the provenance section (times, command), the line saying which runs this invocation trained or reused, the wall time',
  },
  {
    files: /(^|\/)journal\.jsonl$/,
    apply: (t) => [...new Set(t.split('\n').filter((l) => l.startsWith('{"type":"response"')))].sort().join('\n'),
    why:
      'the record journal is compared as the set of its response lines: an intent line is journaled before each ' +
      'call, so a call in flight at the kill has a second intent, and concurrent calls append in any order',
  },
  {
    files: /(^|\/)cache\.columns$/,
    apply: columnsWithoutSource,
    why:
      "the columnar form's head records the cache.jsonl it was built from (size, mtime, inode, the hash of its end blocks: how a " +
      'load knows it is fresh), which a rerun writes anew, and its closing SHA-256 covers that record; the rest of the head and every section are compared',
  },
];

/** A columns file (src/cache/columnsLayout.ts) as its head less `source`, then its sections (less the SHA-256 that ends it, which covers the source too). */
function columnsWithoutSource(latin1: string): string {
  const { head, base } = columnsHead(Buffer.from(latin1, 'latin1'));
  const { source: _stat, ...rest } = head;
  return JSON.stringify(rest) + latin1.slice(base, -DIGEST_BYTES);
}

function csvWithoutWallTimes(text: string): string {
  const lines = text.split('\n');
  const header = lines[0].split(',');
  const drop = new Set(['time', 'seconds', 'decisionsPerSecond'].map((c) => header.indexOf(c)).filter((i) => i >= 0));
  // log.csv holds numbers and names only, so a plain split is exact here.
  return lines
    .map((l) =>
      l
        .split(',')
        .filter((_, i) => !drop.has(i))
        .join(','),
    )
    .join('\n');
}

/**
 * The files under `dir` (a run's output), each as the SHA-256 of its normalised content; files the
 * rules skip are listed as 'skipped'. `outPaths`: the run folder's path as the command named it (and
 * the folder it was copied from: a copy holds the files the original wrote).
 */
export function normalisedTree(dir: string, outPaths: string[]): Snapshot {
  const tree: Snapshot = new Map();
  for (const [rel, h] of snapshot(dir)) {
    if (h === 'dir') continue;
    const rule = NORMALISATION.find((r) => r.files.test(rel));
    if (rule?.apply === 'skip') {
      // Present, not compared; under one key per rule and folder (a resumed run has two event files).
      tree.set(`${rel.replace(/[^/]*$/, '')}<${rule.files.source}>`, 'skipped');
      continue;
    }
    const bytes = readFileSync(join(dir, rel));
    if (!rule && !/\.(json|jsonl|csv|md|svg|log)$/.test(rel)) {
      tree.set(rel, sha256(bytes));
      continue;
    }
    // A binary file a rule reads (cache.columns) is seen byte for byte (latin1), a text file as UTF-8.
    const decoded = bytes.toString(/\.(json|jsonl|csv|md|svg|log)$/.test(rel) ? 'utf8' : 'latin1');
    let text = outPaths.reduce((t, p) => t.split(p).join('<OUT>'), decoded);
    if (rule) text = rule.apply(text);
    tree.set(rel, sha256(text));
  }
  return tree;
}
